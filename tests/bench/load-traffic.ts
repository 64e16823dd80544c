import { readdirSync, readFileSync } from 'node:fs'
import { type Agent, request } from 'node:http'
import path from 'node:path'
import type { RrwebEvent } from '@/lib/analysis/types'
import { hostileEvents } from '../helpers/hostile-events'
import { type Latency, round, summarize } from './harness/stats'

/**
 * The traffic of the soak run (tests/bench/load-soak.ts): real recordings replayed as
 * sessions through the ingest route, Data API reads, MCP tool calls and a deliberately
 * throttled stream, each call recorded per route into 10-second windows and run totals.
 * The pacing itself is data-api-load.ts's runPaced; this module only says what one call does.
 */

// ---------------------------------------------------------------------------------------------
// Recording of answers

/** ok: the expected answer; limited: a 429 the stream asked for; error: anything else. */
export type Outcome = 'ok' | 'limited' | 'error'

interface Tally {
  latencies: number[]
  ok: number
  limited: number
  errors: number
}

const emptyTally = (): Tally => ({ latencies: [], ok: 0, limited: 0, errors: 0 })

export interface RouteFigures {
  route: string
  count: number
  perSecond: number
  ok: number
  limited: number
  errors: number
  latencyMs: Latency
}

function figures(route: string, tally: Tally, seconds: number): RouteFigures {
  const count = tally.ok + tally.limited + tally.errors
  return {
    route,
    count,
    perSecond: round(count / Math.max(0.001, seconds), 2),
    ok: tally.ok,
    limited: tally.limited,
    errors: tally.errors,
    latencyMs: summarize(tally.latencies),
  }
}

export class Recorder {
  private readonly windows = new Map<string, Tally>()
  private readonly totals = new Map<string, Tally>()
  private readonly samples = new Map<string, string[]>()
  private windowStart = performance.now()

  record(route: string, latencyMs: number, outcome: Outcome, detail?: string): void {
    for (const map of [this.windows, this.totals]) {
      let tally = map.get(route)
      if (!tally) {
        tally = emptyTally()
        map.set(route, tally)
      }
      tally.latencies.push(latencyMs)
      if (outcome === 'ok') tally.ok++
      else if (outcome === 'limited') tally.limited++
      else tally.errors++
    }
    if (outcome === 'error') {
      const list = this.samples.get(route) ?? []
      // Printed as they happen and kept for the report; the first few say what went wrong.
      if (list.length < 10) list.push(detail ?? 'no detail')
      this.samples.set(route, list)
      process.stderr.write(`[soak] ERROR ${route}: ${detail ?? ''}\n`)
    }
  }

  /** The latencies of the current window so far, of one route (read before `cut`). */
  windowLatencies(route: string): number[] {
    return this.windows.get(route)?.latencies ?? []
  }

  /** The figures of the window since the previous cut, per route, and a new window. */
  cut(routes: string[]): RouteFigures[] {
    const seconds = (performance.now() - this.windowStart) / 1000
    this.windowStart = performance.now()
    const rows = routes.map((route) => figures(route, this.windows.get(route) ?? emptyTally(), seconds))
    this.windows.clear()
    return rows
  }

  total(route: string, seconds: number): RouteFigures {
    return figures(route, this.totals.get(route) ?? emptyTally(), seconds)
  }

  errorSamples(): Record<string, string[]> {
    return Object.fromEntries(this.samples)
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * Requests resent because the server closed an idle keep-alive connection just as it was
 * reused: HTTP/1.1 cannot rule that race out, and clients (browsers, undici, our recorder)
 * resend such a request. Every request of the run is idempotent, so the resend is safe; the
 * count is reported.
 */
export const keepAliveRaces = { resent: 0 }

/**
 * One request over a keep-alive agent, body read to the end; rejects on network errors, except
 * that a reset of a reused connection before any answer is resent once (Node's documented
 * `request.reusedSocket` pattern).
 */
export async function send(
  agent: Agent,
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  try {
    return await sendOnce(agent, baseUrl, options)
  } catch (error) {
    if (!(error instanceof ResetOnReuse)) throw error
    keepAliveRaces.resent++
    return sendOnce(agent, baseUrl, options)
  }
}

class ResetOnReuse extends Error {}

function sendOnce(
  agent: Agent,
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  const target = new URL(baseUrl)
  const body = options.body === undefined ? undefined : Buffer.from(options.body)
  return new Promise((resolve, reject) => {
    let answered = false
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: options.path,
        method: options.method,
        agent,
        timeout: 30_000,
        headers: { ...options.headers, ...(body ? { 'content-length': body.byteLength } : {}) },
      },
      (res) => {
        answered = true
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out after 30 s')))
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        !answered && req.reusedSocket && error.code === 'ECONNRESET'
          ? new ResetOnReuse(error.message)
          : error,
      ),
    )
    req.end(body)
  })
}

const describe = (answer: Answer) => `${answer.status} ${answer.body.slice(0, 300)}`
const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Round-robin over a list (keys, tokens). */
function rotation<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('rotation over an empty list')
  let n = 0
  return () => items[n++ % items.length]!
}

/** Issue ids seen in list answers, for the single-issue reads of both the Data API and MCP. */
export class IssuePool {
  private readonly ids: string[] = []
  private n = 0

  add(ids: string[]): void {
    for (const id of ids) if (!this.ids.includes(id)) this.ids.push(id)
    // The newest ids are the interesting ones; an old id stays valid, so the cap only bounds memory.
    if (this.ids.length > 200) this.ids.splice(0, this.ids.length - 200)
  }

  next(): string | undefined {
    return this.ids.length === 0 ? undefined : this.ids[this.n++ % this.ids.length]
  }
}

// ---------------------------------------------------------------------------------------------
// Recordings and sessions

interface RecordingSource {
  name: string
  /** The recording's events as JSON text, so a variant is a plain text replacement. */
  eventsJson: string
  variant?: (word: string) => (text: string) => string
}

/**
 * Recordings whose problem is made distinct per session by one word in the error message or
 * request path, so that each such session files a new issue (and an issue.created delivery)
 * rather than adding to an existing one. Every other recording repeats its issues, as most
 * sessions of a real site do.
 */
const VARIANTS: Record<string, (word: string) => (text: string) => string> = {
  'console-error': (word) => (text) =>
    text.replaceAll('Payment widget failed to load', `Payment widget ${word} failed to load`),
  'js-error-after-click': (word) => (text) =>
    text.replaceAll("(reading 'price')", `(reading 'price_${word}')`),
  'network-500': (word) => (text) => text.replaceAll('/api/checkout', `/api/checkout-${word}`),
}

export function loadRecordings(
  dir = path.join(process.cwd(), 'tests/fixtures/recordings'),
): RecordingSource[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json') && file !== 'expected.json')
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.json'.length)
      const parsed = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { events: RrwebEvent[] }
      return { name, eventsJson: JSON.stringify(parsed.events), variant: VARIANTS[name] }
    })
}

/** n as lower-case letters (the analyser's normalisation replaces digits, not letters). */
export function word(n: number): string {
  let text = ''
  let rest = n
  do {
    text = String.fromCharCode(97 + (rest % 26)) + text
    rest = Math.floor(rest / 26)
  } while (rest > 0)
  return `v${text}`
}

function hrefOf(event: RrwebEvent): string | undefined {
  if (event.type !== 4 || typeof event.data !== 'object' || event.data === null) return undefined
  const href = (event.data as { href?: unknown }).href
  return typeof href === 'string' ? href : undefined
}

class SoakSession {
  next = 0
  inFlight = false
  constructor(
    readonly externalId: string,
    readonly recording: string,
    readonly bodies: string[],
    readonly hostile = false,
  ) {}
}

/**
 * Session n: recording n mod the number of recordings, moved in time so that it ended a
 * second ago, split into batches of `perBatch` events exactly as rrweb emitted them, the last
 * one `flush: "final"`. A hostile session also carries, after its first batch, what an
 * attacker with the public ingest key can send (tests/helpers/hostile-events.ts), one event a
 * batch so that each stays under the 5 MiB wire limit.
 */
function makeSession(
  recordings: RecordingSource[],
  n: number,
  runId: string,
  perBatch: number,
  hostile = false,
): SoakSession {
  const source = recordings[n % recordings.length]!
  const text = source.variant ? source.variant(word(n))(source.eventsJson) : source.eventsJson
  const original = JSON.parse(text) as RrwebEvent[]
  const offset = Date.now() - 1_000 - (original.at(-1)?.timestamp ?? 0)
  const events = original.map((event) => ({ ...event, timestamp: event.timestamp + offset }))
  const externalId = `${runId}-${n}-${hostile ? 'hostile-' : ''}${source.name}`
  const startedAt = events[0]?.timestamp ?? Date.now()
  const chunks: RrwebEvent[][] = []
  for (let i = 0; i < events.length; i += perBatch) chunks.push(events.slice(i, i + perBatch))
  if (hostile) {
    const [meta, snapshot, ...rest] = hostileEvents(chunks[0]?.at(-1)?.timestamp ?? startedAt)
    chunks.splice(1, 0, [meta!, snapshot!], ...rest.map((event) => [event]))
  }
  let pageUrl = events.map(hrefOf).find((href) => href !== undefined) ?? 'http://127.0.0.1/'
  const entryUrl = pageUrl
  const bodies = chunks.map((chunk, sequence) => {
    for (const event of chunk) pageUrl = hrefOf(event) ?? pageUrl
    return JSON.stringify({
      session: {
        id: externalId,
        windowId: 'w1',
        startedAt,
        lastActivityAt: chunk.at(-1)!.timestamp,
        url: entryUrl,
      },
      user: {
        anonymousId: `anon-${n % 97}`,
        id: null,
        properties: { email: `user${n % 97}@example.com`, name: 'Soak user' },
      },
      page: { url: pageUrl, referrer: null, viewport: { width: 1280, height: 800 } },
      replay: { events: chunk, sequence },
      metadata: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0', language: 'en' },
      flush: sequence === chunks.length - 1 ? 'final' : 'normal',
    })
  })
  return new SoakSession(externalId, source.name, bodies, hostile)
}

/**
 * Every batch body of the first `sessions` (ordinary) sessions the ingest stream would send:
 * the floor's POST phase reads and parses the same kind of bodies (load-floor.ts).
 */
export function ingestBodies(
  recordings: RecordingSource[],
  runId: string,
  perBatch: number,
  sessions: number,
) {
  return Array.from({ length: sessions }, (_, n) => makeSession(recordings, n, runId, perBatch).bodies).flat()
}

// ---------------------------------------------------------------------------------------------
// Streams: one call each, for runPaced

export class IngestStream {
  readonly active: SoakSession[] = []
  /** `${session}:${sequence}` of every batch answered 2xx. */
  readonly accepted = new Set<string>()
  readonly sessions = new Set<string>()
  completedSessions = 0
  private created = 0
  private readonly key: () => string

  constructor(
    private readonly options: {
      agent: Agent
      baseUrl: string
      keys: string[]
      recorder: Recorder
      recordings: RecordingSource[]
      runId: string
      perBatch: number
      parallelSessions: number
      /** Every Nth session is hostile (0: none). */
      hostileEvery: number
    },
  ) {
    this.key = rotation(options.keys)
  }

  /**
   * The next batch of a session that is not waiting for an answer (a recorder sends its
   * batches in order); a new session when none is free or fewer than `parallelSessions` run.
   */
  private pick(): SoakSession {
    const free = this.active.find((s) => !s.inFlight)
    if (free && this.active.length >= this.options.parallelSessions) return free
    const n = this.created++
    const every = this.options.hostileEvery
    const session = makeSession(
      this.options.recordings,
      n,
      this.options.runId,
      this.options.perBatch,
      every > 0 && n % every === every - 1,
    )
    this.active.push(session)
    this.sessions.add(session.externalId)
    return session
  }

  /** Sends one batch; a batch that failed is sent again by the session's next turn. */
  private async sendNext(session: SoakSession, route: string): Promise<number> {
    session.inFlight = true
    const sequence = session.next
    const started = performance.now()
    try {
      const answer = await send(this.options.agent, this.options.baseUrl, {
        method: 'POST',
        path: '/api/sdk/replay',
        headers: { 'content-type': 'application/json', 'x-service-api-key': this.key() },
        body: session.bodies[sequence],
      })
      const ok = answer.status === 200
      this.options.recorder.record(
        route,
        performance.now() - started,
        ok ? 'ok' : 'error',
        ok ? undefined : `${session.externalId}#${sequence}: ${describe(answer)}`,
      )
      if (ok) {
        this.accepted.add(`${session.externalId}:${sequence}`)
        session.next++
        if (session.next === session.bodies.length) {
          this.active.splice(this.active.indexOf(session), 1)
          this.completedSessions++
        }
      }
      return answer.status
    } catch (error) {
      this.options.recorder.record(
        route,
        performance.now() - started,
        'error',
        `${session.externalId}#${sequence}: ${describeError(error)}`,
      )
      throw error
    } finally {
      session.inFlight = false
    }
  }

  readonly task = (): Promise<number> => this.sendNext(this.pick(), 'ingest')

  /**
   * After the paced phase: every session still open sends its remaining batches (in parallel
   * across sessions, in order within one), so each ends with its final flush. A batch is tried
   * up to 5 times; what still fails stays missing and the verification says so.
   */
  async drain(): Promise<void> {
    await Promise.all(
      [...this.active].map(async (session) => {
        let failures = 0
        while (session.next < session.bodies.length && failures < 5) {
          const status = await this.sendNext(session, 'ingest drain').catch(() => 0)
          if (status !== 200) {
            failures++
            await new Promise((resolve) => setTimeout(resolve, 1_000))
          }
        }
      }),
    )
  }
}

export function dataApiTask(options: {
  agent: Agent
  baseUrl: string
  keys: string[]
  recorder: Recorder
  pool: IssuePool
}): () => Promise<number> {
  const key = rotation(options.keys)
  let n = 0
  return async () => {
    // Lists and single reads alternate; before any issue exists, only lists.
    const id = n++ % 2 === 1 ? options.pool.next() : undefined
    const route = id ? 'api get' : 'api list'
    const started = performance.now()
    try {
      const answer = await send(options.agent, options.baseUrl, {
        method: 'GET',
        path: id ? `/api/v1/issues/${id}` : '/api/v1/issues?limit=25',
        headers: { authorization: `Bearer ${key()}` },
      })
      const ok = answer.status === 200
      options.recorder.record(route, performance.now() - started, ok ? 'ok' : 'error', describe(answer))
      if (ok && !id) {
        const parsed = JSON.parse(answer.body) as { issues: { id: string }[] }
        options.pool.add(parsed.issues.map((issue) => issue.id))
      }
      return answer.status
    } catch (error) {
      options.recorder.record(route, performance.now() - started, 'error', describeError(error))
      throw error
    }
  }
}

interface ToolAnswer {
  result?: {
    isError?: boolean
    content?: { type: string; text?: string }[]
    structuredContent?: { issues?: { id: string }[]; issue?: { id: string } }
  }
  error?: unknown
}

export function mcpTask(options: {
  agent: Agent
  baseUrl: string
  /** svc_mcp_ keys and OAuth access tokens, alternately. */
  tokens: { label: 'key' | 'oauth'; token: string }[]
  recorder: Recorder
  pool: IssuePool
}): () => Promise<number> {
  const token = rotation(options.tokens)
  let n = 0
  return async () => {
    // Tools change every second call and credentials every call, so each tool is called
    // with both kinds of credential.
    const id = Math.floor(n / 2) % 2 === 1 ? options.pool.next() : undefined
    const credential = token()
    const tool = id ? 'get_issue' : 'list_issues'
    const route = `mcp ${tool} (${credential.label})`
    const started = performance.now()
    try {
      const answer = await send(options.agent, options.baseUrl, {
        method: 'POST',
        path: '/api/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${credential.token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++n,
          method: 'tools/call',
          params: { name: tool, arguments: id ? { issueId: id } : { limit: 25 } },
        }),
      })
      let parsed: ToolAnswer | undefined
      try {
        parsed = JSON.parse(answer.body) as ToolAnswer
      } catch {
        parsed = undefined
      }
      // A tool error (not found, rate limit, internal) is an HTTP 200 with isError: still an error.
      const ok = answer.status === 200 && parsed?.result !== undefined && parsed.result.isError !== true
      options.recorder.record(route, performance.now() - started, ok ? 'ok' : 'error', describe(answer))
      const issues = parsed?.result?.structuredContent?.issues
      if (ok && issues) options.pool.add(issues.map((issue) => issue.id))
      return ok ? answer.status : 500
    } catch (error) {
      options.recorder.record(route, performance.now() - started, 'error', describeError(error))
      throw error
    }
  }
}

/**
 * One Data API key read faster than its 300/min budget: the 429s it gets are deliberate and
 * must carry Retry-After; they show the limiter answering correctly under load.
 */
export function throttledTask(options: {
  agent: Agent
  baseUrl: string
  key: string
  recorder: Recorder
}): () => Promise<number> {
  return async () => {
    const started = performance.now()
    try {
      const answer = await send(options.agent, options.baseUrl, {
        method: 'GET',
        path: '/api/v1/issues?limit=1',
        headers: { authorization: `Bearer ${options.key}` },
      })
      const retryAfter = Number(answer.headers['retry-after'])
      const outcome: Outcome =
        answer.status === 200
          ? 'ok'
          : answer.status === 429 && Number.isInteger(retryAfter) && retryAfter >= 1
            ? 'limited'
            : 'error'
      options.recorder.record('api throttled', performance.now() - started, outcome, describe(answer))
      return answer.status
    } catch (error) {
      options.recorder.record('api throttled', performance.now() - started, 'error', describeError(error))
      throw error
    }
  }
}

/** Exchanges a seeded refresh token for an access token at the real token endpoint. */
export async function accessTokenFor(
  agent: Agent,
  baseUrl: string,
  credential: { token: string; clientId: string },
): Promise<string> {
  const answer = await send(agent, baseUrl, {
    method: 'POST',
    path: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: credential.token,
      client_id: credential.clientId,
    }).toString(),
  })
  if (answer.status !== 200) throw new Error(`token endpoint answered ${describe(answer)}`)
  const parsed = JSON.parse(answer.body) as { access_token?: unknown }
  if (typeof parsed.access_token !== 'string') throw new Error(`no access_token in ${answer.body}`)
  return parsed.access_token
}
