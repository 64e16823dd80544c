import { describe, expect, it } from 'vitest'
import type { TimedEvent } from '@/sdk/src/batch'
import { CHECKOUT_RETRY_MS, ErrorBuffer } from '@/sdk/src/error-buffer'
import { isFailedRequest, RageClickDetector, TriggerDetector } from '@/sdk/src/error-triggers'
import { resolveOptions } from '@/sdk/src/options'
import { allowedReferrer, pageAllowed } from '@/sdk/src/page-rules'
import { SampledCapture } from '@/sdk/src/sampled-capture'
import { decideSampling } from '@/sdk/src/sampling'
import { SESSION_KEY, SessionManager } from '@/sdk/src/session'
import { SNAPSHOT_RETRY_MS, SnapshotWait } from '@/sdk/src/snapshot-wait'
import { memoryStore } from '@/sdk/src/storage'

/** A random source that returns the given values in turn. */
const sequence = (...values: number[]) => {
  let i = 0
  return () => values[i++ % values.length]!
}

const meta = (timestamp: number, href = 'https://shop.example/'): TimedEvent => ({
  type: 4,
  timestamp,
  data: { href, width: 1280, height: 800 },
})
const snapshot = (timestamp: number, size = 100): TimedEvent => ({
  type: 2,
  timestamp,
  data: { node: 'x'.repeat(size) },
})
const mutation = (timestamp: number, size = 50): TimedEvent => ({
  type: 3,
  timestamp,
  data: { source: 0, text: 'y'.repeat(size) },
})
const click = (timestamp: number, x: number, y: number): TimedEvent => ({
  type: 3,
  timestamp,
  data: { source: 2, type: 2, id: 7, x, y },
})
const uncaught = (timestamp: number): TimedEvent => ({
  type: 5,
  timestamp,
  data: { tag: 'error', payload: { type: 'TypeError', message: 'x is undefined' } },
})
const request = (timestamp: number, fields: Record<string, unknown>): TimedEvent => ({
  type: 6,
  timestamp,
  data: {
    plugin: 'rrweb/network@1',
    payload: { requests: [{ url: 'https://shop.example/api/cart', method: 'GET', ...fields }] },
  },
})
const timestamps = (events: string[]) => events.map((e) => (JSON.parse(e) as TimedEvent).timestamp)
const types = (events: string[]) => events.map((e) => (JSON.parse(e) as TimedEvent).type)

describe('decideSampling', () => {
  it('records in full with probability sessionSampleRate, else buffers with errorSampleRate, else nothing', () => {
    expect(decideSampling(0.5, 0.5, sequence(0.49))).toBe('full')
    expect(decideSampling(0.5, 0.5, sequence(0.5, 0.49))).toBe('buffer')
    expect(decideSampling(0.5, 0.5, sequence(0.5, 0.5))).toBe('off')
    // 1 always passes and 0 never does, whatever [0, 1) value is drawn.
    expect(decideSampling(1, 0, sequence(0.999999))).toBe('full')
    expect(decideSampling(0, 1, sequence(0, 0.999999))).toBe('buffer')
    expect(decideSampling(0, 0, sequence(0))).toBe('off')
  })

  it('comes out in the configured shares over many sessions', () => {
    let seed = 42
    // A small deterministic generator (LCG), so the test never flakes.
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const counts = { full: 0, buffer: 0, off: 0 }
    for (let i = 0; i < 20_000; i++) counts[decideSampling(0.1, 0.5, random)]++
    expect(counts.full / 20_000).toBeCloseTo(0.1, 1)
    expect(counts.buffer / 20_000).toBeCloseTo(0.45, 1)
    expect(counts.off / 20_000).toBeCloseTo(0.45, 1)
  })
})

describe('the sampling decision in the session', () => {
  function harness() {
    let now = 1_000_000
    let rolls = 0
    const modes = ['buffer', 'off', 'full'] as const
    const deps = {
      tab: memoryStore(),
      device: memoryStore(),
      now: () => now,
      newId: () => `id-${now}`,
      idleTimeoutMs: 60_000,
      sample: () => modes[rolls++ % modes.length]!,
    }
    return {
      deps,
      rolls: () => rolls,
      advance: (ms: number) => {
        now += ms
      },
      load: (url = 'https://shop.example/') => new SessionManager(deps, url),
    }
  }

  it('is rolled once per session and kept by reloads and later pages', () => {
    const h = harness()
    expect(h.load().current.sampling).toBe('buffer')
    h.advance(1000)
    expect(h.load('https://shop.example/cart').current.sampling).toBe('buffer')
    expect(h.rolls()).toBe(1)
  })

  it('rolls again for a new session', () => {
    const h = harness()
    const page = h.load()
    expect(page.current.sampling).toBe('buffer')
    page.rotate('https://shop.example/')
    expect(page.current.sampling).toBe('off')
    h.advance(120_000)
    expect(h.load().current.sampling).toBe('full')
  })

  it('promotes an error-only session to full, from the buffer start, for its later pages too', () => {
    const h = harness()
    const page = h.load('https://shop.example/landing')
    h.advance(5000)
    page.promoteToFull(1_003_000, 'https://shop.example/cart')
    expect(page.current).toMatchObject({
      sampling: 'full',
      startedAt: 1_003_000,
      url: 'https://shop.example/cart',
    })
    expect(h.load().current).toMatchObject({ sampling: 'full', startedAt: 1_003_000 })
  })

  it('reads a session stored without a decision as recorded in full', () => {
    const h = harness()
    h.deps.tab.setItem(
      SESSION_KEY,
      JSON.stringify({
        id: 'old',
        startedAt: 1_000_000,
        lastActivityAt: 1_000_000,
        url: 'u',
        nextSequence: 3,
      }),
    )
    expect(h.load().current).toMatchObject({ id: 'old', sampling: 'full' })
    expect(h.rolls()).toBe(0)
  })
})

describe('ErrorBuffer', () => {
  it('keeps whole checkout segments back to a full snapshot at or before now - windowMs', () => {
    const buffer = new ErrorBuffer({ windowMs: 10_000 })
    // A segment every 10 s, an event every second.
    for (let t = 0; t <= 35_000; t += 1000) {
      if (t % 10_000 === 0) {
        buffer.add(meta(t))
        buffer.add(snapshot(t))
      } else buffer.add(mutation(t))
    }
    // At 35 s the window starts at 25 s: the segment of 20 s covers it, the ones before go.
    expect(buffer.segmentCount).toBe(2)
    expect(buffer.startedAt).toBe(20_000)
    const taken = buffer.take()!
    expect(taken.startedAt).toBe(20_000)
    expect(types(taken.events).slice(0, 2)).toEqual([4, 2])
    expect(timestamps(taken.events).at(-1)).toBe(35_000)
    expect(buffer.take()).toBeNull()
  })

  it('drops the segment before only once the next one starts at or before the window start', () => {
    const buffer = new ErrorBuffer({ windowMs: 10_000 })
    buffer.add(meta(0))
    buffer.add(snapshot(0))
    buffer.add(meta(8000))
    buffer.add(snapshot(8000))
    buffer.add(mutation(17_999))
    expect(buffer.startedAt).toBe(0)
    buffer.add(mutation(18_000))
    expect(buffer.startedAt).toBe(8000)
  })

  it('asks for a checkout once the newest segment is windowMs old, once per segment', () => {
    const buffer = new ErrorBuffer({ windowMs: 10_000 })
    expect(buffer.add(meta(0))).toBe(false)
    expect(buffer.add(snapshot(0))).toBe(false)
    expect(buffer.add(mutation(9999))).toBe(false)
    expect(buffer.add(mutation(10_000))).toBe(true)
    expect(buffer.add(mutation(10_500))).toBe(false)
    buffer.add(meta(10_600))
    expect(buffer.add(mutation(20_600))).toBe(true)
  })

  it('drops whole oldest segments to stay within maxBytes, and keeps the newest whole', () => {
    const buffer = new ErrorBuffer({ windowMs: 60_000, maxBytes: 20_000 })
    for (let s = 0; s < 5; s++) {
      buffer.add(meta(s * 1000))
      buffer.add(snapshot(s * 1000, 6000))
    }
    expect(buffer.bytes).toBeLessThanOrEqual(20_000)
    expect(buffer.segmentCount).toBe(3)
    expect(buffer.startedAt).toBe(2000)
    const first = buffer.take()!.events
    expect(types(first)[0]).toBe(4)
    // One segment larger than the bound alone is kept: it is all there is to replay from.
    buffer.add(meta(10_000))
    buffer.add(snapshot(10_000, 30_000))
    expect(buffer.segmentCount).toBe(1)
    expect(buffer.bytes).toBeGreaterThan(20_000)
  })

  it('asks for an early checkout when a segment grows past half the bound, so memory stays bounded', () => {
    const maxBytes = 100_000
    const buffer = new ErrorBuffer({ windowMs: 60_000, maxBytes })
    let peak = 0
    let checkouts = 0
    let t = 0
    buffer.add(meta(t))
    buffer.add(snapshot(t, 10_000))
    // 5 MB of mutations within one window: far more than the bound.
    for (let i = 0; i < 5000; i++) {
      t += 1
      if (buffer.add(mutation(t, 1000))) {
        checkouts++
        buffer.add(meta(t))
        buffer.add(snapshot(t, 10_000))
      }
      peak = Math.max(peak, buffer.bytes)
    }
    expect(checkouts).toBeGreaterThan(0)
    // The bound, or one segment: its snapshot, half the bound and one event.
    expect(peak).toBeLessThanOrEqual(Math.max(maxBytes, 10_200 + maxBytes / 2 + 1100))
    expect(types(buffer.take()!.events)[0]).toBe(4)
  })

  it('asks again every CHECKOUT_RETRY_MS while an asked checkout does not come', () => {
    const buffer = new ErrorBuffer({ windowMs: 10_000 })
    buffer.add(meta(0))
    buffer.add(snapshot(0))
    // rrweb's takeFullSnapshot threw, or was skipped: no Meta event follows the ask.
    const asked = [10_000, 12_000, 14_999, 15_000, 16_000, 20_000].map((t) => buffer.add(mutation(t)))
    expect(asked).toEqual([true, false, false, true, false, true])
    buffer.add(meta(20_100))
    expect(buffer.add(mutation(21_000))).toBe(false)
  })

  it('drops the only segment rather than grow past its snapshot plus 3/4 of maxBytes, and keeps nothing until the next snapshot', () => {
    const maxBytes = 100_000
    const buffer = new ErrorBuffer({ windowMs: 60_000, maxBytes })
    buffer.add(meta(0))
    buffer.add(snapshot(0, 10_000))
    const snapshotBytes = buffer.bytes
    let peak = 0
    const asks: number[] = []
    // 1 MB of mutations within a second, and every checkout asked fails.
    for (let t = 1; t <= 1000; t++) {
      if (buffer.add(mutation(t, 1000))) asks.push(t)
      peak = Math.max(peak, buffer.bytes)
    }
    // Asked past half the bound; past three quarters the segment went and a snapshot was asked at once.
    expect(asks).toHaveLength(2)
    expect(peak).toBeLessThanOrEqual(snapshotBytes + (maxBytes * 3) / 4)
    expect(buffer.count).toBe(0)
    expect(buffer.startedAt).toBeNull()
    // Still no snapshot: asked again once the last ask is CHECKOUT_RETRY_MS old.
    const askedAt = asks[1]!
    expect(buffer.add(mutation(askedAt + CHECKOUT_RETRY_MS - 1))).toBe(false)
    expect(buffer.add(mutation(askedAt + CHECKOUT_RETRY_MS))).toBe(true)
    expect(buffer.count).toBe(0)
    // The snapshot comes: the buffer keeps events again, from it.
    buffer.add(meta(8000))
    buffer.add(snapshot(8000))
    expect(buffer.add(mutation(8001))).toBe(false)
    expect(types(buffer.take()!.events)).toEqual([4, 2, 3])
  })

  it('drops events before the first full snapshot and keeps timestamps from going backwards', () => {
    const buffer = new ErrorBuffer({ windowMs: 10_000 })
    buffer.add(mutation(50))
    expect(buffer.count).toBe(0)
    buffer.add(meta(100))
    buffer.add(snapshot(100))
    buffer.add(mutation(90))
    expect(timestamps(buffer.take()!.events)).toEqual([100, 100, 100])
  })
})

describe('triggers', () => {
  it('are failed requests as the server counts them: no answer unless aborted, 5xx, 429', () => {
    expect(isFailedRequest({ status: 500, url: 'https://shop.example/api' })).toBe(true)
    expect(isFailedRequest({ status: 503 })).toBe(true)
    expect(isFailedRequest({ status: 429 })).toBe(true)
    expect(isFailedRequest({ status: 0, error: 'TypeError: Failed to fetch' })).toBe(true)
    expect(isFailedRequest({ status: 0, error: 'AbortError: The user aborted a request.' })).toBe(false)
    for (const status of [200, 304, 400, 401, 403, 404, 499])
      expect(isFailedRequest({ status, url: 'https://shop.example/api' })).toBe(false)
    expect(isFailedRequest({ status: 500, url: 'https://www.google-analytics.com/collect' })).toBe(false)
    expect(isFailedRequest({ url: 'https://shop.example/api' })).toBe(false)
    expect(isFailedRequest(null)).toBe(false)
  })

  it('see uncaught errors and failed requests in events', () => {
    const detector = new TriggerDetector()
    expect(detector.check(uncaught(1))).toBe('error')
    expect(detector.check({ type: 5, timestamp: 1, data: { tag: 'navigation', payload: {} } })).toBeNull()
    expect(detector.check(request(1, { status: 500 }))).toBe('network')
    expect(detector.check(request(1, { status: 404 }))).toBeNull()
    expect(
      detector.check({
        type: 6,
        timestamp: 1,
        data: { plugin: 'rrweb/console@1', payload: { level: 'error' } },
      }),
    ).toBeNull()
    expect(detector.check(mutation(1))).toBeNull()
  })

  it('see a rage click: 4 clicks, each within 1 s and 30 px of the previous', () => {
    const rage = new RageClickDetector()
    expect([rage.click(0, 100, 100), rage.click(300, 110, 105), rage.click(600, 120, 110)]).toEqual([
      false,
      false,
      false,
    ])
    expect(rage.click(900, 120, 110)).toBe(true)
    // Once per burst.
    expect(rage.click(1000, 120, 110)).toBe(false)
  })

  it('do not see a rage click in slow, distant or too few clicks', () => {
    const slow = new RageClickDetector()
    expect([0, 1100, 2200, 3300].map((t) => slow.click(t, 10, 10))).not.toContain(true)
    const distant = new RageClickDetector()
    // 35 px apart in Manhattan distance.
    expect([0, 100, 200, 300].map((t, i) => distant.click(t, 10 + i * 20, 10 + i * 15))).not.toContain(true)
    const three = new RageClickDetector()
    expect([0, 100, 200].map((t) => three.click(t, 10, 10))).not.toContain(true)
    // A burst broken by a far click starts again.
    const broken = new RageClickDetector()
    expect(
      [
        [0, 10],
        [100, 10],
        [200, 400],
        [300, 10],
        [400, 10],
      ].map(([t, x]) => broken.click(t!, x!, 10)),
    ).not.toContain(true)
  })

  it('see rage clicks from rrweb click events', () => {
    const detector = new TriggerDetector()
    const found = [0, 200, 400, 600].map((t) => detector.check(click(t, 50, 50)))
    expect(found).toEqual([null, null, null, 'rage_click'])
  })
})

describe('SampledCapture', () => {
  function capture(mode: 'full' | 'buffer' | 'off') {
    const calls = { checkouts: 0, promoted: [] as { events: string[]; kind: string; startedAt: number }[] }
    const sampled = new SampledCapture(mode, {
      windowMs: 2000,
      checkout: () => calls.checkouts++,
      promote: (recording, kind) => calls.promoted.push({ ...recording!, kind }),
    })
    return { sampled, calls }
  }

  it('passes everything on in full mode and holds everything back when off', () => {
    expect(capture('full').sampled.hold(mutation(1))).toBe(false)
    const off = capture('off')
    expect(off.sampled.hold(meta(0))).toBe(true)
    expect(off.sampled.hold(uncaught(1))).toBe(true)
    expect(off.calls.promoted).toEqual([])
  })

  it('buffers until a trigger, then hands over the buffer (trigger included) and records in full', () => {
    const { sampled, calls } = capture('buffer')
    sampled.hold(meta(0, 'https://shop.example/a'))
    sampled.hold(snapshot(0))
    for (let t = 500; t <= 2500; t += 500) sampled.hold(mutation(t))
    expect(calls.checkouts).toBe(1)
    sampled.hold(meta(2600, 'https://shop.example/b'))
    sampled.hold(snapshot(2600))
    for (let t = 3000; t <= 5000; t += 500) sampled.hold(mutation(t))
    expect(calls.promoted).toEqual([])
    expect(sampled.hold(request(5100, { status: 502 }))).toBe(true)
    expect(sampled.mode).toBe('full')
    const [promoted] = calls.promoted
    // At 5.1 s the window starts at 3.1 s: the segment of 2.6 s is the one that reaches back.
    expect(promoted).toMatchObject({ kind: 'network', startedAt: 2600, url: 'https://shop.example/b' })
    expect(types(promoted!.events).slice(0, 2)).toEqual([4, 2])
    expect(types(promoted!.events).at(-1)).toBe(6)
    expect(sampled.hold(mutation(5200))).toBe(false)
  })

  it('starts over when a new session is decided', () => {
    const { sampled, calls } = capture('buffer')
    sampled.hold(meta(0))
    sampled.hold(snapshot(0))
    sampled.setMode('buffer')
    sampled.hold(meta(100))
    sampled.hold(uncaught(200))
    expect(calls.promoted[0]!.startedAt).toBe(100)
  })
})

describe('SnapshotWait', () => {
  it('drops events until the next Meta event, and passes everything when not waiting', () => {
    let asked = 0
    const wait = new SnapshotWait(() => asked++)
    expect(wait.drops(3, 0)).toBe(false)
    wait.start(1000)
    expect(asked).toBe(1)
    expect([wait.drops(3, 1001), wait.drops(6, 1002), wait.drops(4, 1003), wait.drops(2, 1003)]).toEqual([
      true,
      true,
      false,
      false,
    ])
    expect(wait.waiting).toBe(false)
    expect(wait.drops(3, 1004)).toBe(false)
    expect(asked).toBe(1)
  })

  it('asks again while the snapshot does not come, so a failed one cannot stop the recording for good', () => {
    let asked = 0
    const wait = new SnapshotWait(() => asked++)
    wait.start(0)
    // takeFullSnapshot threw: no Meta event follows, events keep coming.
    for (let t = 100; t < SNAPSHOT_RETRY_MS; t += 100) wait.drops(3, t)
    expect(asked).toBe(1)
    expect(wait.drops(3, SNAPSHOT_RETRY_MS)).toBe(true)
    expect(asked).toBe(2)
    expect(wait.drops(3, SNAPSHOT_RETRY_MS + 100)).toBe(true)
    expect(asked).toBe(2)
    expect(wait.drops(4, SNAPSHOT_RETRY_MS + 200)).toBe(false)
    expect(wait.waiting).toBe(false)
  })
})

describe('page rules', () => {
  const rules = (allowPages: (string | RegExp)[], denyPages: (string | RegExp)[]) => ({
    allowPages,
    denyPages,
  })

  it('allow every page without rules', () => {
    expect(pageAllowed('https://shop.example/anything', rules([], []))).toBe(true)
  })

  it('match strings as contained in the URL and regular expressions against the whole URL', () => {
    const r = rules(['/shop/', /^https:\/\/shop\.example\/help\b/], ['/shop/account'])
    expect(pageAllowed('https://shop.example/shop/cart', r)).toBe(true)
    expect(pageAllowed('https://shop.example/help/faq', r)).toBe(true)
    expect(pageAllowed('https://shop.example/blog', r)).toBe(false)
    // Denied even though allowed.
    expect(pageAllowed('https://shop.example/shop/account/billing', r)).toBe(false)
  })

  it('deny pages on their own, hash routes included', () => {
    const r = rules([], [/#\/settings/, 'checkout'])
    expect(pageAllowed('https://app.example/#/settings/profile', r)).toBe(false)
    expect(pageAllowed('https://app.example/checkout?step=2', r)).toBe(false)
    expect(pageAllowed('https://app.example/#/home', r)).toBe(true)
  })

  it('give the same answer every time for a global expression', () => {
    const r = rules([], [/admin/g])
    for (let i = 0; i < 3; i++) expect(pageAllowed('https://app.example/admin', r)).toBe(false)
  })

  it('leave out a referrer that is a page of this site the rules keep out, and keep other sites', () => {
    const r = rules([], ['/account'])
    const origin = 'https://shop.example'
    expect(allowedReferrer('https://shop.example/account/billing', origin, r)).toBeNull()
    expect(allowedReferrer('https://shop.example/cart', origin, r)).toBe('https://shop.example/cart')
    expect(allowedReferrer('https://search.example/?q=/account', origin, r)).toBe(
      'https://search.example/?q=/account',
    )
    expect(allowedReferrer('', origin, r)).toBeNull()
  })
})

describe('the default error buffer', () => {
  it('uploads from a full snapshot at least 60 s before the trigger, and at most 60 s plus one checkout interval', () => {
    const resolved = resolveOptions({ apiKey: 'svc_pk_test', ingestUrl: 'https://replay.example' })
    if (!resolved.ok) throw new Error(resolved.error)
    const windowMs = resolved.options.errorBufferMs
    expect(windowMs).toBe(60_000)
    let asked = false
    let uploaded: TimedEvent[] | null = null
    const capture = new SampledCapture('buffer', {
      windowMs,
      checkout: () => {
        asked = true
      },
      promote: (recording) => {
        uploaded = (recording?.events ?? []).map((json) => JSON.parse(json) as TimedEvent)
      },
    })
    const hold = (event: TimedEvent) => expect(capture.hold(event)).toBe(true)
    // 150 s of a page: a mouse move a second; an asked checkout comes a second later, as the
    // recorder's snapshotSoon answers it a turn after rrweb's emit.
    const answerMs = 1000
    for (let t = 0; t < 150_000; t += 1000) {
      if (t === 0 || asked) {
        asked = false
        hold({ type: 4, timestamp: t, data: { href: 'https://shop.example/', width: 1, height: 1 } })
        hold({ type: 2, timestamp: t, data: { node: {}, initialOffset: { top: 0, left: 0 } } })
      } else hold({ type: 3, timestamp: t, data: { source: 1, positions: [] } })
    }
    const trigger = 150_000
    hold({ type: 5, timestamp: trigger, data: { tag: 'error', payload: { message: 'boom' } } })
    expect(capture.mode).toBe('full')
    const events = uploaded as TimedEvent[] | null
    expect(events?.[0]?.type).toBe(4)
    const snapshot = events?.find((e) => e.type === 2)
    expect(snapshot).toBe(events?.[1])
    const reach = trigger - (snapshot?.timestamp ?? trigger)
    expect(reach).toBeGreaterThanOrEqual(windowMs)
    // A checkout is asked when the newest segment is windowMs old and answered answerMs later.
    expect(reach).toBeLessThanOrEqual(windowMs + windowMs + answerMs)
    expect(events?.at(-1)?.timestamp).toBe(trigger)
  })
})
