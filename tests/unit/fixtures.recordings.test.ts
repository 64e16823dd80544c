/**
 * Structural facts of the recorded fixtures (tests/fixtures/recordings, made by
 * `npm run fixtures:record`) that the analyser's tests rely on. If one fails after re-recording,
 * the recorder or a page changed behaviour, not the analyser.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RrwebEvent } from '@/lib/analysis/types'
import type { ExpectedFile } from '@/tests/fixtures/record/expected'

const DIR = path.resolve(import.meta.dirname, '../fixtures/recordings')

interface Recording {
  scenario: string
  sessionId: string
  recordedWith: { rrweb: string; chromium: string }
  ingestUrl: string
  events: RrwebEvent[]
}

interface NetworkRequestShape {
  name: string
  url: string
  method: string
  initiatorType: string
  status: number
  statusText: string
  timestamp: number
  startTime: number
  endTime: number
  duration: number
  error?: string
}

const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  Incremental: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
}
const Source = { Mutation: 0, MouseInteraction: 2, Input: 5 }
const Click = 2

const expected = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as ExpectedFile
const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.json') && f !== 'expected.json')
  .map((f) => f.slice(0, -'.json'.length))
  .sort()
const recordings = new Map<string, Recording>(
  names.map((n) => [n, JSON.parse(readFileSync(path.join(DIR, `${n}.json`), 'utf8')) as Recording]),
)

function get(name: string): Recording {
  const r = recordings.get(name)
  if (!r) throw new Error(`missing recording ${name}`)
  return r
}

const data = (e: RrwebEvent) => e.data as Record<string, unknown>
const ofType = (r: Recording, type: number) => r.events.filter((e) => e.type === type)
const incremental = (r: Recording, source: number) =>
  ofType(r, EventType.Incremental).filter((e) => data(e).source === source)
const clicks = (r: Recording) => incremental(r, Source.MouseInteraction).filter((e) => data(e).type === Click)
const metaHrefs = (r: Recording) => ofType(r, EventType.Meta).map((e) => String(data(e).href))

function pluginPayloads<T>(r: Recording, plugin: string): { event: RrwebEvent; payload: T }[] {
  return ofType(r, EventType.Plugin)
    .filter((e) => data(e).plugin === plugin)
    .map((event) => ({ event, payload: data(event).payload as T }))
}

const consoleRecords = (r: Recording) =>
  pluginPayloads<{ level: string; trace: string[]; payload: string[] }>(r, 'rrweb/console@1').map(
    (p) => p.payload,
  )
const networkPayloads = (r: Recording) =>
  pluginPayloads<{ requests: NetworkRequestShape[]; isInitial?: boolean }>(r, 'rrweb/network@1')
const requests = (r: Recording) => networkPayloads(r).flatMap((p) => p.payload.requests)
const customs = (r: Recording, tag: string) =>
  ofType(r, EventType.Custom)
    .map((e) => data(e) as { tag: string; payload: Record<string, unknown> })
    .filter((d) => d.tag === tag)

/** Node ids with a given `id` attribute in a serialized snapshot tree. */
function findById(node: unknown, htmlId: string): number[] {
  const n = node as { id: number; attributes?: Record<string, unknown>; childNodes?: unknown[] }
  const here = n.attributes?.id === htmlId ? [n.id] : []
  return here.concat(...(n.childNodes ?? []).map((c) => findById(c, htmlId)))
}

describe('fixture recordings', () => {
  it('exist for every expectation, and every recording has expectations', () => {
    expect(names).toEqual(Object.keys(expected.recordings).sort())
    for (const group of expected.crossSession) {
      for (const n of group.recordings) expect(recordings.has(n)).toBe(true)
    }
    // The same-error sessions must be distinct sessions.
    expect(new Set([...recordings.values()].map((r) => r.sessionId)).size).toBe(recordings.size)
  })

  it('are small enough to keep in the repository', () => {
    const total = names.reduce((sum, n) => sum + readFileSync(path.join(DIR, `${n}.json`)).length, 0)
    expect(total).toBeLessThan(1024 * 1024)
  })

  describe.each(names)('%s', (name) => {
    const r = get(name)

    it('was recorded with rrweb 2.x in Chromium', () => {
      expect(r.recordedWith.rrweb).toMatch(/^2\./)
      expect(r.recordedWith.chromium).toMatch(/^\d+\./)
      expect(r.events.length).toBeGreaterThan(5)
    })

    it('has non-decreasing timestamps', () => {
      for (let i = 1; i < r.events.length; i++) {
        expect(r.events[i]!.timestamp).toBeGreaterThanOrEqual(r.events[i - 1]!.timestamp)
      }
    })

    it('has a Meta event right before every FullSnapshot, and nothing incremental before the first', () => {
      const first = r.events.findIndex((e) => e.type === EventType.FullSnapshot)
      expect(first).toBeGreaterThan(0)
      r.events.forEach((e, i) => {
        if (e.type === EventType.FullSnapshot) expect(r.events[i - 1]!.type).toBe(EventType.Meta)
      })
      expect(r.events.slice(0, first).some((e) => e.type === EventType.Incremental)).toBe(false)
    })

    it('has well-formed network plugin events and never the ingest endpoint', () => {
      for (const { payload } of networkPayloads(r)) {
        expect(payload.requests.length).toBeGreaterThan(0)
        if ('isInitial' in payload) expect(payload.isInitial).toBe(true)
      }
      for (const req of requests(r)) {
        expect(req.name).toBe(req.url)
        expect(req.url).toMatch(/^https?:\/\//)
        expect(req.method).toMatch(/^[A-Z]+$/)
        expect(['fetch', 'xmlhttprequest']).toContain(req.initiatorType)
        expect(typeof req.status).toBe('number')
        expect(typeof req.statusText).toBe('string')
        expect(req.timestamp).toBeGreaterThan(1_600_000_000_000)
        expect(req.endTime).toBeGreaterThanOrEqual(req.startTime)
        expect(req.duration).toBeGreaterThanOrEqual(0)
        if (req.status === 0) expect(req.error).toEqual(expect.any(String))
        else expect(req.error).toBeUndefined()
        expect(req.url.startsWith(r.ingestUrl)).toBe(false)
      }
    })

    it('contains no secret or typed text', () => {
      const text = JSON.stringify(r.events)
      expect(text).not.toContain('pk_live_')
      for (const e of incremental(r, Source.Input)) {
        const value = data(e).text
        // Text fields are masked to '*'; checkboxes keep their constant value 'on'.
        if (typeof value === 'string' && value !== 'on') expect(value).toMatch(/^\**$/)
      }
    })
  })

  it('js-error-after-click: the click, the explicit error event and the stock console record', () => {
    const r = get('js-error-after-click')
    const click = clicks(r)[0]!
    const [error] = customs(r, 'error')
    expect(error?.payload).toMatchObject({
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'price')",
      handled: false,
      mechanism: 'onerror',
    })
    expect(String(error?.payload.stack)).toMatch(
      /at addToCart \(http:\/\/[^)]+\/assets\/app\.3f9a2c1d\.js:\d+:\d+\)/,
    )
    const uncaught = consoleRecords(r).filter((c) => c.level === 'error')
    expect(uncaught).toHaveLength(1)
    expect(uncaught[0]!.payload[0]).toBe(
      `"Uncaught TypeError: Cannot read properties of undefined (reading 'price')"`,
    )
    expect(uncaught[0]!.trace[0]).toMatch(/^addToCart \(/)
    const errorEvent = ofType(r, EventType.Custom)[0]!
    expect(errorEvent.timestamp - click.timestamp).toBeLessThan(1000)
    expect(errorEvent.timestamp).toBeGreaterThanOrEqual(click.timestamp)
  })

  it('console-error: error, warn, info and log records, no uncaught error', () => {
    const r = get('console-error')
    const records = consoleRecords(r)
    expect(new Set(records.map((c) => c.level))).toEqual(new Set(['error', 'warn', 'info', 'log']))
    const error = records.find((c) => c.level === 'error')!
    expect(error.payload).toEqual(['"Payment widget failed to load"', '{"code":42}'])
    expect(customs(r, 'error')).toHaveLength(0)
    // The boot-time console.info ran before rrweb started and is not recorded.
    expect(JSON.stringify(records)).not.toContain('[account] boot')
  })

  it('network-500: a POST 500 and a background 404', () => {
    const reqs = requests(get('network-500'))
    expect(reqs).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        status: 500,
        initiatorType: 'fetch',
        url: expect.stringMatching(/\/api\/checkout$/),
      }),
    )
    expect(reqs).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        status: 404,
        url: expect.stringContaining('/api/recommendations'),
      }),
    )
  })

  it('network-failed: a dropped fetch (status 0) and an XHR 503', () => {
    const reqs = requests(get('network-failed'))
    expect(reqs).toContainEqual(
      expect.objectContaining({ method: 'POST', status: 0, error: expect.stringMatching(/Failed to fetch/) }),
    )
    expect(reqs).toContainEqual(
      expect.objectContaining({ method: 'PUT', status: 503, initiatorType: 'xmlhttprequest' }),
    )
  })

  it('rage-click: 5+ clicks on one node, each within 1 s of the previous, and no Mutation after the first', () => {
    const r = get('rage-click')
    const burst = clicks(r).filter((c) => data(c).id === data(clicks(r).at(-1)!).id)
    expect(burst.length).toBeGreaterThanOrEqual(5)
    for (let i = 1; i < burst.length; i++)
      expect(burst[i]!.timestamp - burst[i - 1]!.timestamp).toBeLessThan(1000)
    expect(incremental(r, Source.Mutation).filter((m) => m.timestamp >= burst[0]!.timestamp)).toHaveLength(0)
  })

  it('dead-click: one click, then over 8 s of session without any Mutation', () => {
    const r = get('dead-click')
    const [click] = clicks(r)
    expect(clicks(r)).toHaveLength(1)
    expect(r.events.at(-1)!.timestamp - click!.timestamp).toBeGreaterThan(8000)
    expect(incremental(r, Source.Mutation).filter((m) => m.timestamp >= click!.timestamp)).toHaveLength(0)
  })

  it('multi-page: three page loads, a pushState navigation event, an initial request and the error on /cart', () => {
    const r = get('multi-page')
    expect(metaHrefs(r).map((h) => new URL(h).pathname)).toEqual(['/', '/products', '/cart'])
    expect(ofType(r, EventType.FullSnapshot)).toHaveLength(3)
    const [nav] = customs(r, 'navigation')
    expect(nav?.payload).toMatchObject({ kind: 'push' })
    expect(new URL(String(nav?.payload.href)).search).toBe('?page=2')
    expect(new URL(String(nav?.payload.from)).pathname).toBe('/products')
    expect(networkPayloads(r).filter((p) => p.payload.isInitial)).toHaveLength(1)
    expect(requests(r).some((q) => q.url.includes('api_key=[redacted]'))).toBe(true)
    expect(incremental(r, Source.Input).length).toBeGreaterThan(0)
    expect(customs(r, 'error')[0]?.payload).toMatchObject({ type: 'TypeError' })
    const lastMeta = ofType(r, EventType.Meta).at(-1)!
    expect(ofType(r, EventType.Custom).at(-1)!.timestamp).toBeGreaterThan(lastMeta.timestamp)
  })

  it('periodic-snapshots: several checkouts on one URL; the rage-clicked button exists only via Mutation', () => {
    const r = get('periodic-snapshots')
    const snapshots = ofType(r, EventType.FullSnapshot)
    expect(snapshots.length).toBeGreaterThanOrEqual(3)
    expect(new Set(metaHrefs(r)).size).toBe(1)
    const burst = clicks(r).filter((c) => data(c).id === data(clicks(r).at(-1)!).id)
    expect(burst.length).toBeGreaterThanOrEqual(5)
    const before = snapshots.filter((s) => s.timestamp <= burst[0]!.timestamp).at(-1)!
    expect(findById(data(before).node, 'export-csv')).toHaveLength(0)
    const adds = incremental(r, Source.Mutation).flatMap(
      (m) => (data(m).adds as { node: { id: number } }[] | undefined) ?? [],
    )
    expect(adds.map((a) => a.node.id)).toContain(data(burst[0]!).id)
  })

  it('traps: selection, dblclick and Input events are there for the guards to see', () => {
    const r = get('traps')
    expect(incremental(r, 14).length).toBeGreaterThan(0)
    expect(incremental(r, Source.MouseInteraction).some((e) => data(e).type === 4)).toBe(true)
    expect(incremental(r, Source.Input).some((e) => typeof data(e).isChecked === 'boolean')).toBe(true)
    expect(customs(r, 'error')).toHaveLength(0)
    expect(consoleRecords(r).filter((c) => c.level === 'error')).toHaveLength(0)
  })

  it('clean: no error of any kind', () => {
    const r = get('clean')
    expect(customs(r, 'error')).toHaveLength(0)
    expect(consoleRecords(r).filter((c) => c.level === 'error')).toHaveLength(0)
    expect(requests(r).every((q) => q.status >= 200 && q.status < 400)).toBe(true)
  })

  it('same-error-3-sessions: one TypeError from addToCart per session, different session lengths', () => {
    const group = expected.crossSession[0]!
    const lengths = group.recordings.map((n) => {
      const r = get(n)
      const errors = customs(r, 'error')
      expect(errors.length).toBeGreaterThanOrEqual(1)
      for (const e of errors) {
        expect(e.payload.message).toBe("Cannot read properties of undefined (reading 'price')")
        expect(String(e.payload.stack)).toMatch(
          /at addToCart \(http:\/\/[^)]+\/assets\/app\.[0-9a-f]{8}\.js:/,
        )
      }
      return r.events.at(-1)!.timestamp - r.events[0]!.timestamp
    })
    expect(new Set(lengths).size).toBe(3)
  })
})
