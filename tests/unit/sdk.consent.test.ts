import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ConsentGate, forgetDevice, type GatedRecorder, STORAGE_PREFIX } from '@/sdk/src/consent'
import { resolveOptions } from '@/sdk/src/options'
import {
  MAX_REMOTE_SELECTORS,
  MAX_SELECTOR_LENGTH,
  maskSelectorsOf,
  RemoteMask,
  selfContained,
} from '@/sdk/src/remote-mask'
import { memoryStore } from '@/sdk/src/storage'
import { Transport, type TransportDeps } from '@/sdk/src/transport'

const base = { apiKey: 'svc_pk_abc', ingestUrl: 'https://ingest.example.com' }

describe('consent and storage options', () => {
  it('default to granted and browser storage, so existing pages record as before', () => {
    const result = resolveOptions(base)
    expect(result.ok && [result.options.consent, result.options.storage]).toEqual(['granted', 'browser'])
    const chosen = resolveOptions({ ...base, consent: 'pending', storage: 'none' })
    expect(chosen.ok && [chosen.options.consent, chosen.options.storage]).toEqual(['pending', 'none'])
  })

  it('refuse anything else', () => {
    expect(resolveOptions({ ...base, consent: 'yes' })).toEqual({
      ok: false,
      error: 'consent must be "pending", "granted" or "denied"',
    })
    expect(resolveOptions({ ...base, storage: 'cookie' })).toEqual({
      ok: false,
      error: 'storage must be "browser" or "none"',
    })
  })
})

interface FakeRecorder extends GatedRecorder {
  id: number
  identified: [string, Record<string, unknown> | null][]
  discarded: boolean
}

function gate() {
  const started: FakeRecorder[] = []
  let forgotten = 0
  const g = new ConsentGate<string, FakeRecorder>({
    start: () => {
      const recorder: FakeRecorder = {
        id: started.length + 1,
        identified: [],
        discarded: false,
        identify(userId, properties) {
          recorder.identified.push([userId, properties])
        },
        discard() {
          recorder.discarded = true
        },
      }
      started.push(recorder)
      return recorder
    },
    forgetDevice: () => {
      forgotten++
    },
  })
  return { g, started, forgotten: () => forgotten }
}

describe('ConsentGate', () => {
  it('starts at once when consent is granted, as init() always did', () => {
    const { g, started, forgotten } = gate()
    g.configure('options', 'granted')
    expect(started).toHaveLength(1)
    expect(g.running).toBe(started[0])
    expect(forgotten()).toBe(0)
  })

  it('starts nothing and forgets nothing while pending; a grant starts it with the user named meanwhile', () => {
    const { g, started, forgotten } = gate()
    g.configure('options', 'pending')
    expect(g.identify('user-1', { plan: 'pro' })).toBe(true)
    expect(started).toHaveLength(0)
    expect(forgotten()).toBe(0)
    g.answer('granted')
    expect(started).toHaveLength(1)
    expect(started[0]!.identified).toEqual([['user-1', { plan: 'pro' }]])
    g.answer('granted')
    expect(started).toHaveLength(1)
  })

  it('on withdrawal discards the recorder and forgets the device; a second grant starts a new recorder', () => {
    const { g, started, forgotten } = gate()
    g.configure('options', 'granted')
    g.answer('denied')
    expect(started[0]!.discarded).toBe(true)
    expect(g.running).toBeNull()
    expect(forgotten()).toBe(1)
    g.answer('granted')
    expect(started).toHaveLength(2)
    expect(g.running).toBe(started[1])
  })

  it('drops a user named while pending when the answer is no', () => {
    const { g, started } = gate()
    g.configure('options', 'pending')
    g.identify('user-1', null)
    g.answer('denied')
    g.answer('granted')
    expect(started[0]!.identified).toEqual([])
  })

  it('forgets the device when init says denied, and when a denial comes with nothing configured', () => {
    const { g, started, forgotten } = gate()
    g.answer('denied')
    expect(forgotten()).toBe(1)
    g.configure('options', 'granted')
    // The earlier answer wins over the option: the consent manager had spoken.
    expect(started).toHaveLength(0)
    const other = gate()
    other.g.configure('options', 'denied')
    expect(other.forgotten()).toBe(1)
    expect(other.started).toHaveLength(0)
  })

  it('remembers a grant given before init()', () => {
    const { g, started } = gate()
    g.answer('granted')
    expect(started).toHaveLength(0)
    g.configure('options', 'pending')
    expect(started).toHaveLength(1)
  })

  it('keeps no configuration when the start throws, so init() may be called again', () => {
    const g = new ConsentGate<string, FakeRecorder>({
      start: () => {
        throw new Error('no rrweb here')
      },
      forgetDevice: () => {},
    })
    expect(() => g.configure('options', 'granted')).toThrow('no rrweb here')
    expect(g.configured).toBe(false)
  })

  it('after stop() a grant starts nothing and identify() is refused until init()', () => {
    const { g, started } = gate()
    g.configure('options', 'pending')
    expect(g.release()).toBeNull()
    g.answer('granted')
    expect(started).toHaveLength(0)
    expect(g.identify('user-1', null)).toBe(false)
  })
})

function webStorage(entries: Record<string, string>): Storage {
  const map = new Map(Object.entries(entries))
  return {
    get length() {
      return map.size
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
    clear: () => map.clear(),
  }
}

describe('forgetDevice', () => {
  it("removes every key of ours from localStorage and sessionStorage and leaves the site's own", () => {
    const local = webStorage({
      [`${STORAGE_PREFIX}anonymous_id`]: 'a',
      [`${STORAGE_PREFIX}lease:w1`]: '{}',
      [`${STORAGE_PREFIX}pages:s1`]: '{}',
      'site:cart': '3',
    })
    const tab = webStorage({
      [`${STORAGE_PREFIX}session`]: '{}',
      [`${STORAGE_PREFIX}window`]: 'w1',
      [`${STORAGE_PREFIX}pending`]: '[]',
      [`${STORAGE_PREFIX}mask`]: '[]',
      theme: 'dark',
    })
    forgetDevice({ localStorage: local, sessionStorage: tab } as unknown as Window)
    expect([local.key(0), local.length]).toEqual(['site:cart', 1])
    expect([tab.key(0), tab.length]).toEqual(['theme', 1])
  })

  it('does not throw where storage is blocked', () => {
    const blocked = {
      get localStorage(): Storage {
        throw new DOMException('denied', 'SecurityError')
      },
      sessionStorage: webStorage({ [`${STORAGE_PREFIX}session`]: '{}' }),
    } as unknown as Window
    expect(() => forgetDevice(blocked)).not.toThrow()
    expect(blocked.sessionStorage.length).toBe(0)
  })
})

const parsesAll = () => true

describe('maskSelectorsOf', () => {
  it('is null for an answer without mask settings (the plain {ok: true})', () => {
    for (const answer of [
      { ok: true },
      null,
      'x',
      { mask: null },
      { mask: { selectors: '.a' } },
      { mask: [] },
    ])
      expect(maskSelectorsOf(answer, parsesAll)).toBeNull()
  })

  it('keeps trimmed, distinct, bounded selectors the parser takes, and skips the rest', () => {
    const answer = {
      ok: true,
      mask: {
        selectors: [
          ' .card ',
          '.card',
          '',
          7,
          'x'.repeat(MAX_SELECTOR_LENGTH + 1),
          '#bad!',
          'input[name="ssn"]',
        ],
      },
    }
    expect(maskSelectorsOf(answer, (s) => s !== '#bad!')).toEqual(['.card', 'input[name="ssn"]'])
    expect(maskSelectorsOf({ mask: { selectors: [] } }, parsesAll)).toEqual([])
  })

  it('reads at most MAX_REMOTE_SELECTORS entries', () => {
    const selectors = Array.from({ length: MAX_REMOTE_SELECTORS + 50 }, (_, i) => `.s${i}`)
    expect(maskSelectorsOf({ mask: { selectors } }, parsesAll)).toHaveLength(MAX_REMOTE_SELECTORS)
  })

  it('skips a selector left open, which would swallow the ones joined after it', () => {
    expect(selfContained('.a :is(.b, .c)')).toBe(true)
    expect(selfContained('a[title="x)"]')).toBe(true)
    expect(selfContained('.a\\(')).toBe(true)
    for (const open of ['div:is(.a', '[data-x', 'a[title="x]', '.a)', '.a { color: red }', '.a\\'])
      expect(selfContained(open)).toBe(false)
    expect(maskSelectorsOf({ mask: { selectors: ['div:is(.a', '.b'] } }, parsesAll)).toEqual(['.b'])
  })
})

describe('RemoteMask', () => {
  it('restarts once per change, only when a selector is new, and never unmasks while the page lives', () => {
    const mask = new RemoteMask()
    expect(mask.maskTextSelector('[data-svc-mask]')).toBe('[data-svc-mask]')
    expect(mask.update([])).toBeNull()
    expect(mask.update(['.card'])).toEqual(['.card'])
    // The same answer again (every batch carries it): nothing to do.
    expect(mask.update(['.card'])).toBeNull()
    expect(mask.update(['.card', '#ssn'])).toEqual(['.card', '#ssn'])
    // Fewer or reordered selectors add nothing: no restart, and .card stays masked.
    expect(mask.update(['#ssn'])).toBeNull()
    expect(mask.update(['#ssn', '.card'])).toBeNull()
    expect(mask.maskTextSelector('[data-svc-mask], .mine')).toBe('[data-svc-mask], .mine, .card, #ssn')
  })

  it('keeps only the latest list once the kept ones pass the bound', () => {
    const mask = new RemoteMask()
    for (let round = 0; round < 3; round++)
      mask.update(Array.from({ length: MAX_REMOTE_SELECTORS }, (_, i) => `.r${round}-${i}`))
    expect(mask.selectors).toHaveLength(MAX_REMOTE_SELECTORS)
    expect(mask.selectors[0]).toBe('.r2-0')
  })
})

describe('Transport and the ingest answer', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  function transportWith(fetch: typeof globalThis.fetch, onAnswer: (a: unknown) => void) {
    const deps: TransportDeps = {
      endpoint: 'https://ingest.example/api/sdk/replay',
      apiKey: 'svc_pk_key',
      fetch,
      sendBeacon: null,
      compress: null,
      tab: memoryStore(),
      random: () => 0.5,
      now: () => Date.now(),
      log: () => {},
      onUnauthorized: () => {},
      onAnswer,
    }
    return new Transport(deps)
  }
  const batch = (sequence: number) => ({
    sessionId: 's',
    sequence,
    flush: 'normal' as const,
    json: `{"replay":{"sequence":${sequence}}}`,
  })

  it('hands over the JSON of an accepted batch, and nothing of other answers', async () => {
    const answers: unknown[] = []
    const bodies = [
      new Response(JSON.stringify({ ok: true, mask: { selectors: ['.card'] } }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      }),
      new Response('not json', { status: 200, headers: { 'Content-Type': 'text/plain' } }),
      new Response('{broken', { status: 200, headers: { 'Content-Type': 'application/json' } }),
    ]
    const fetch = vi.fn(async () => bodies.shift()!) as unknown as typeof globalThis.fetch
    const t = transportWith(fetch, (a) => answers.push(a))
    for (let i = 0; i < 3; i++) t.enqueue(batch(i))
    await vi.runAllTimersAsync()
    expect(answers).toEqual([{ ok: true, mask: { selectors: ['.card'] } }])
  })

  it('discard() cuts off the request in flight and sends nothing queued', async () => {
    const signals: AbortSignal[] = []
    const fetch = vi.fn(
      (_url: unknown, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          signals.push(init!.signal!)
          init!.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))
        }),
    ) as unknown as typeof globalThis.fetch
    const t = transportWith(fetch, () => {})
    t.enqueue(batch(0))
    t.enqueue(batch(1))
    await vi.advanceTimersByTimeAsync(0)
    t.discard()
    await vi.runAllTimersAsync()
    expect(signals).toHaveLength(1)
    expect(signals[0]!.aborted).toBe(true)
    expect(t.pending).toBe(0)
  })
})
