import { describe, expect, it } from 'vitest'
import { ReplayBatch } from '@/lib/ingest/schema'
import { buildBody } from '@/sdk/src/batch'
import { DebugIdTracker, firstFrameUrl, MAX_BATCH_DEBUG_ID_CHARS, MAX_DEBUG_IDS } from '@/sdk/src/debug-ids'

const ID_A = 'c7a0f1e2-3b4d-4e5f-8a9b-0c1d2e3f4a5b'
const ID_B = 'D1E2F3A4-B5C6-4D7E-8F90-A1B2C3D4E5F6'

describe('firstFrameUrl', () => {
  it.each([
    [
      'Error\n    at https://shop.example/assets/main.3f2a.js:2:113',
      'https://shop.example/assets/main.3f2a.js',
    ],
    [
      'Error\n    at Object.<anonymous> (https://cdn.example/app.js?v=2:1:40)\n    at https://x/y.js:1:1',
      'https://cdn.example/app.js?v=2',
    ],
    ['@https://shop.example/chunk-7.js:1:22\n', 'https://shop.example/chunk-7.js'],
    ['global code@http://localhost:3000/static/app.js:3:9', 'http://localhost:3000/static/app.js'],
  ])('reads the top frame of %j', (stack, url) => {
    expect(firstFrameUrl(stack)).toBe(url)
  })

  it('is null for a stack without a position, or one far too long to be a registration', () => {
    expect(firstFrameUrl('Error\n    at <anonymous>')).toBeNull()
    expect(firstFrameUrl('')).toBeNull()
    expect(firstFrameUrl(`Error\n    at https://x/${'a'.repeat(10_000)}.js:1:1`)).toBeNull()
  })
})

describe('DebugIdTracker', () => {
  it('maps each registered bundle to its ID, hands out each pair once and picks up new bundles', () => {
    const root: Record<string, unknown> = {
      _sentryDebugIds: { 'Error\n    at https://shop.example/main.js:1:20': ID_A },
    }
    const tracker = new DebugIdTracker(root)
    expect(tracker.takeNew()).toEqual({ 'https://shop.example/main.js': ID_A })
    expect(tracker.takeNew()).toBeNull()
    root._debugIds = { '@https://shop.example/lazy.js:1:5': ID_B }
    expect(tracker.takeNew()).toEqual({ 'https://shop.example/lazy.js': ID_B })
    expect(tracker.takeNew()).toBeNull()
  })

  it('skips values that are not debug IDs, and keys without a frame; no registry means nothing', () => {
    expect(new DebugIdTracker({}).takeNew()).toBeNull()
    const tracker = new DebugIdTracker({
      _sentryDebugIds: { 'Error\n    at https://x/a.js:1:1': 'not-an-id', Error: ID_A, 7: ID_A },
      _debugIds: 'nonsense',
    })
    expect(tracker.takeNew()).toBeNull()
  })

  it(`keeps at most ${MAX_DEBUG_IDS} URLs, a batch's share bounded, and survives a registry that throws`, () => {
    const registry: Record<string, string> = {}
    for (let i = 0; i < MAX_DEBUG_IDS + 20; i++) registry[`Error\n    at https://x/chunk-${i}.js:1:1`] = ID_A
    const throwing = Object.defineProperty({}, '_debugIds', {
      get() {
        throw new Error('hostile getter')
      },
    }) as Record<string, unknown>
    throwing._sentryDebugIds = registry
    const tracker = new DebugIdTracker(throwing)
    const batches: Record<string, string>[] = []
    for (let pairs = tracker.takeNew(); pairs; pairs = tracker.takeNew()) batches.push(pairs)
    expect(batches.length).toBeGreaterThan(1)
    for (const pairs of batches)
      expect(JSON.stringify(pairs).length).toBeLessThanOrEqual(MAX_BATCH_DEBUG_ID_CHARS + 2)
    expect(batches.flatMap((pairs) => Object.keys(pairs))).toHaveLength(MAX_DEBUG_IDS)
  })

  it('sends a URL again when it is registered with a new ID, and one long pair alone', () => {
    const root: Record<string, unknown> = { _debugIds: { '@https://x/a.js:1:1': ID_A } }
    const tracker = new DebugIdTracker(root)
    expect(tracker.takeNew()).toEqual({ 'https://x/a.js': ID_A })
    root._debugIds = { '@https://x/a.js:1:1': ID_A, 'at https://x/a.js:1:1': ID_B }
    expect(tracker.takeNew()).toEqual({ 'https://x/a.js': ID_B })
    const long = `https://x/${'a'.repeat(2000)}.js`
    expect(new DebugIdTracker({ _debugIds: { [`@${long}:1:1`]: ID_A } }).takeNew(100)).toEqual({
      [long]: ID_A,
    })
  })

  it('gives a batch body the ingest API accepts, with release and debug IDs in metadata', () => {
    const debugIds = new DebugIdTracker({
      _sentryDebugIds: { 'Error\n    at https://shop.example/main.js:1:20': ID_A },
    }).takeNew()!
    const body = JSON.parse(
      buildBody(
        {
          session: { id: 's', windowId: 'w', startedAt: 1, lastActivityAt: 2, url: 'https://shop.example/' },
          user: { anonymousId: 'a', id: null, properties: null },
          page: { url: 'https://shop.example/', referrer: null, viewport: null },
          metadata: { userAgent: null, language: null, release: 'v1.2.3', debugIds },
        },
        [JSON.stringify({ type: 4, timestamp: 1, data: {} })],
        0,
        'normal',
      ),
    )
    const parsed = ReplayBatch.parse(body)
    expect(parsed.metadata).toMatchObject({
      release: 'v1.2.3',
      debugIds: { 'https://shop.example/main.js': ID_A },
    })
  })
})
