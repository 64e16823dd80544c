import { makeBatch } from '@/tests/fixtures/replay-batch'

/**
 * Request bodies for the ingest benchmark. Serialising a 50 KB batch per request would load
 * the client more than the server, so a few hundred batches are serialised once, split around
 * their session id and sequence, and each request only splices those two values in: every body
 * stays valid JSON and unique in (session, sequence), so nothing takes the idempotent path.
 */

const SESSION_MARK = '__bench_session__'
// An unusual but valid sequence that cannot appear anywhere else in the JSON by chance.
const SEQUENCE_MARK = 2_100_000_123

interface Template {
  head: string
  middle: string
  tail: string
  bytes: number
}

export interface BodySet {
  templates: number
  sessions: number
  minBytes: number
  maxBytes: number
  meanBytes: number
  eventsPerBatch: number
  /** The body of the n-th request of a run: session n % sessions, sequence n / sessions. */
  body(n: number): string
}

export interface BodyOptions {
  runId: string
  templates?: number
  sessions?: number
  minBytes?: number
  maxBytes?: number
  events?: number
}

// A small deterministic generator, so two runs send the same mix of sizes.
function seeded(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

export function makeBodySet(options: BodyOptions): BodySet {
  const count = options.templates ?? 300
  const sessions = options.sessions ?? 500
  const minBytes = options.minBytes ?? 30_000
  const maxBytes = options.maxBytes ?? 80_000
  const events = options.events ?? 50
  const random = seeded(20_251_122)
  // makeBatch pads the full snapshot only on sequence 0, so every template is built as a
  // first batch (a Meta and a FullSnapshot, as rrweb also sends on each checkout) and then
  // relabelled; padding is added on top of the unpadded size to land in [minBytes, maxBytes].
  const unpadded = JSON.stringify(makeBatch({ sequence: 0, events })).length
  const templates: Template[] = []
  for (let i = 0; i < count; i++) {
    const target = minBytes + Math.floor(random() * (maxBytes - minBytes))
    const batch = makeBatch({
      sessionId: SESSION_MARK,
      sequence: 0,
      events,
      start: 1_763_800_000_000 + i * 5_000,
      targetBytes: Math.max(0, target - unpadded),
    })
    batch.session.windowId = `window-${i % 7}`
    batch.user.anonymousId = `anon-${i}`
    batch.replay.sequence = SEQUENCE_MARK
    const json = JSON.stringify(batch)
    const [head, rest] = splitOnce(json, JSON.stringify(SESSION_MARK))
    const [middle, tail] = splitOnce(rest, String(SEQUENCE_MARK))
    templates.push({ head, middle, tail, bytes: json.length })
  }
  const sizes = templates.map((t) => t.bytes)
  return {
    templates: count,
    sessions,
    minBytes: Math.min(...sizes),
    maxBytes: Math.max(...sizes),
    meanBytes: Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length),
    eventsPerBatch: events,
    body(n) {
      const template = templates[n % count]!
      const session = JSON.stringify(`${options.runId}-s${n % sessions}`)
      return template.head + session + template.middle + String(Math.floor(n / sessions)) + template.tail
    },
  }
}

function splitOnce(text: string, mark: string): [string, string] {
  const at = text.indexOf(mark)
  if (at < 0 || text.indexOf(mark, at + 1) >= 0)
    throw new Error(`benchmark template: ${mark} must occur once`)
  return [text.slice(0, at), text.slice(at + mark.length)]
}

/**
 * Ingest requests over `keys` in turn. Each key stands for one site's browsers behind the one
 * trusted proxy the server is told of (`TRUSTED_PROXY_HOPS=1`), so each gets an address of its
 * own: ingest asks the database about keys it has not seen recently only within a budget per
 * client address, which one address rotating 400 keys would exhaust.
 */
export function ingestSource(
  bodies: BodySet,
  keys: string[],
): () => { body: string; key: string; address: string } {
  let n = 0
  return () => {
    const k = n % keys.length
    const request = { body: bodies.body(n), key: keys[k]!, address: `10.${k >> 8}.${k & 255}.1` }
    n++
    return request
  }
}
