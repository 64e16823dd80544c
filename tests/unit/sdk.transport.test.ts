import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PreparedBatch } from '@/sdk/src/batch'
import { memoryStore } from '@/sdk/src/storage'
import { BEACON_MAX_BYTES, PENDING_KEY, Transport, type TransportDeps } from '@/sdk/src/transport'

interface Call {
  sequence: number
  body: string
  headers: Record<string, string>
}

function batch(sequence: number, size = 10, flush: 'normal' | 'final' = 'normal'): PreparedBatch {
  return {
    sessionId: 's',
    sequence,
    flush,
    json: `{"replay":{"sequence":${sequence}},"pad":"${'x'.repeat(size)}"}`,
  }
}

/** A fetch answering from a script of statuses (0 = network failure), then 200. */
function scriptedFetch(statuses: (number | [number, Record<string, string>])[]) {
  const calls: Call[] = []
  let inFlight = 0
  let maxInFlight = 0
  const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    const body = String(init?.body)
    calls.push({
      sequence: JSON.parse(body).replay.sequence,
      body,
      headers: init?.headers as Record<string, string>,
    })
    await Promise.resolve()
    inFlight--
    const next = statuses.shift() ?? 200
    const [status, headers] = Array.isArray(next) ? next : [next, {}]
    if (status === 0) throw new TypeError('Failed to fetch')
    return new Response(null, { status, headers })
  })
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls, maxInFlight: () => maxInFlight }
}

function transport(fetch: typeof globalThis.fetch, overrides: Partial<TransportDeps> = {}) {
  const logs: string[] = []
  const deps: TransportDeps = {
    endpoint: 'https://ingest.example/api/sdk/replay',
    apiKey: 'svc_pk_key',
    fetch,
    sendBeacon: null,
    compress: null,
    tab: memoryStore(),
    random: () => 0.5,
    now: () => Date.now(),
    log: (m) => logs.push(m),
    onUnauthorized: vi.fn(),
    ...overrides,
  }
  return { t: new Transport(deps), deps, logs }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('Transport', () => {
  it('sends in order, one request at a time, with the key header', async () => {
    const f = scriptedFetch([])
    const { t } = transport(f.fetch)
    for (let i = 0; i < 4; i++) t.enqueue(batch(i))
    await vi.runAllTimersAsync()
    expect(f.calls.map((c) => c.sequence)).toEqual([0, 1, 2, 3])
    expect(f.maxInFlight()).toBe(1)
    expect(f.calls[0]!.headers['X-Service-Api-Key']).toBe('svc_pk_key')
    expect(t.pending).toBe(0)
  })

  it('retries network failures and 5xx with backoff, resending the identical body before anything later', async () => {
    const f = scriptedFetch([0, 503])
    const { t } = transport(f.fetch)
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    await vi.advanceTimersByTimeAsync(0)
    expect(f.calls).toHaveLength(1)
    // First retry after 0.5-1 s (random 0.5 → 750 ms), second after 1.5 s.
    await vi.advanceTimersByTimeAsync(749)
    expect(f.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(f.calls).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1500)
    expect(f.calls.map((c) => c.sequence)).toEqual([0, 0, 0, 1])
    expect(new Set(f.calls.slice(0, 3).map((c) => c.body)).size).toBe(1)
  })

  it('honours Retry-After on 429', async () => {
    const f = scriptedFetch([[429, { 'Retry-After': '5' }]])
    const { t } = transport(f.fetch, { random: () => 0 })
    t.enqueue(batch(0))
    await vi.advanceTimersByTimeAsync(4999)
    expect(f.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(f.calls).toHaveLength(2)
  })

  it('drops a batch the server refuses (400) with a debug note, and goes on', async () => {
    const f = scriptedFetch([400])
    const { t, logs } = transport(f.fetch)
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    await vi.runAllTimersAsync()
    expect(f.calls.map((c) => c.sequence)).toEqual([0, 1])
    expect(logs).toEqual(['batch 0 dropped: the ingest API answered 400'])
  })

  it('stops on 401 instead of looping on a bad key', async () => {
    const f = scriptedFetch([401])
    const { t, deps } = transport(f.fetch)
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    await vi.runAllTimersAsync()
    expect(f.calls).toHaveLength(1)
    expect(deps.onUnauthorized).toHaveBeenCalledOnce()
    expect(t.pending).toBe(0)
  })

  it('gzips once and sends the same compressed bytes on every attempt', async () => {
    const bodies: unknown[] = []
    const compress = vi.fn(async (text: string) => new Uint8Array(new TextEncoder().encode(`gz:${text}`)))
    let n = 0
    const fetch = (async (_u: unknown, init?: RequestInit) => {
      bodies.push(init?.body)
      expect(new Headers(init?.headers ?? {}).get('Content-Encoding')).toBe('gzip')
      return new Response(null, { status: n++ === 0 ? 500 : 200 })
    }) as typeof globalThis.fetch
    const { t } = transport(fetch, { compress })
    t.enqueue(batch(0))
    await vi.runAllTimersAsync()
    expect(compress).toHaveBeenCalledOnce()
    expect(bodies).toHaveLength(2)
    expect(bodies[0]).toBe(bodies[1])
  })

  it('on leaving, beacons what fits (text/plain, key in the query) and keeps the rest for the next page', async () => {
    const beacons: { url: string; type: string; text: string }[] = []
    const pending: Promise<void>[] = []
    const sendBeacon = (url: string, data: Blob) => {
      pending.push(data.text().then((text) => void beacons.push({ url, type: data.type, text })))
      return true
    }
    const never = (() => new Promise<Response>(() => {})) as typeof globalThis.fetch
    const { t, deps } = transport(never, { sendBeacon })
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    t.enqueue(batch(2, BEACON_MAX_BYTES))
    t.enqueue(batch(3))
    t.sendAllByBeacon()
    await Promise.all(pending)
    // Batch 0 was in flight too: resent by beacon, identical, which the server stores once.
    expect(beacons.map((b) => JSON.parse(b.text).replay.sequence)).toEqual([0, 1])
    expect(beacons[0]!.url).toBe('https://ingest.example/api/sdk/replay?api_key=svc_pk_key')
    expect(beacons[0]!.type).toBe('text/plain')
    // The oversized batch and everything after it wait in sessionStorage, in order.
    const saved = JSON.parse(deps.tab.getItem(PENDING_KEY)!) as PreparedBatch[]
    expect(saved.map((b) => b.sequence)).toEqual([2, 3])

    // The next page of the tab sends them first.
    const f = scriptedFetch([])
    const next = transport(f.fetch, { tab: deps.tab })
    next.t.restorePending()
    next.t.enqueue(batch(4))
    await vi.runAllTimersAsync()
    expect(f.calls.map((c) => c.sequence)).toEqual([2, 3, 4])
    expect(deps.tab.getItem(PENDING_KEY)).toBeNull()
  })

  it('keeps everything for the next page when the browser refuses the beacon', () => {
    const never = (() => new Promise<Response>(() => {})) as typeof globalThis.fetch
    const { t, deps } = transport(never, { sendBeacon: () => false })
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    t.sendAllByBeacon()
    expect((JSON.parse(deps.tab.getItem(PENDING_KEY)!) as PreparedBatch[]).map((b) => b.sequence)).toEqual([
      0, 1,
    ])
  })
})
