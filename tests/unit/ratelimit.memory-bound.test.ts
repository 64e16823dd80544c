import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createMemoryRateLimiter, MEMORY_RATE_LIMITER_MAX_ENTRIES } from '@/lib/ratelimit/memory'
import type { RateLimitRule } from '@/lib/ratelimit/types'

/**
 * The in-process limiter keeps at most a fixed number of identifiers: identifiers come from
 * callers (presented keys, addresses), so without a bound a flood of made-up ones would grow
 * the heap without end. The figures it gives below the bound are covered, against Upstash,
 * by ratelimit.memory.test.ts and ratelimit.adapters.test.ts.
 */

const T0 = 1_800_000_000_000
const ingestLike: RateLimitRule = { name: 'ingest', limit: 100, windowSeconds: 60 }
const threePerTenSeconds: RateLimitRule = { name: 'unit', limit: 3, windowSeconds: 10 }

function clocked(maxEntries?: number) {
  const clock = { now: T0 }
  const limiter = createMemoryRateLimiter({ now: () => clock.now, maxEntries })
  return { clock, limiter }
}

const made = (i: number) => createHash('sha256').update(`made-up-${i}`).digest('base64url')

describe('memory limiter: a bounded number of identifiers', () => {
  it('holds at most 100,000 identifiers under a flood of 200,000 made-up keys', async () => {
    const { limiter } = clocked()
    let largest = 0
    for (let i = 0; i < 200_000; i++) {
      const result = await limiter.limit(ingestLike, made(i))
      // Each made-up key is new to the limiter, so each gets its full budget.
      if (result.remaining !== 99) expect(result).toMatchObject({ success: true, remaining: 99 })
      if (i % 1_000 === 0) largest = Math.max(largest, limiter.size)
    }
    expect(MEMORY_RATE_LIMITER_MAX_ENTRIES).toBe(100_000)
    expect(Math.max(largest, limiter.size)).toBe(100_000)
    expect(limiter.size).toBe(100_000)
  })

  it('shares the bound between rules', async () => {
    const { limiter } = clocked(10)
    for (let i = 0; i < 8; i++) await limiter.limit(ingestLike, `key-${i}`)
    for (let i = 0; i < 8; i++) await limiter.limit(threePerTenSeconds, `address-${i}`)
    expect(limiter.size).toBe(10)
  })

  it('forgets the least recently used identifier first; a refused request counts as use', async () => {
    const { limiter } = clocked(3)
    for (const id of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) await limiter.limit(threePerTenSeconds, id)
    // a is refused, which still makes it the most recently used.
    expect((await limiter.limit(threePerTenSeconds, 'a')).success).toBe(false)
    await limiter.limit(threePerTenSeconds, 'd')
    expect(limiter.size).toBe(3)
    expect((await limiter.limit(threePerTenSeconds, 'a')).success).toBe(false)
    expect((await limiter.limit(threePerTenSeconds, 'c')).success).toBe(false)
    // b was the least recently used: it was forgotten and starts afresh.
    expect(await limiter.limit(threePerTenSeconds, 'b')).toMatchObject({ success: true, remaining: 2 })
  })

  it('a forgotten identifier starts afresh, also in the next window', async () => {
    const { clock, limiter } = clocked(2)
    for (let i = 0; i < 3; i++) await limiter.limit(threePerTenSeconds, 'steady')
    await limiter.limit(threePerTenSeconds, 'x')
    await limiter.limit(threePerTenSeconds, 'y')
    // Had 'steady' been kept, floor(0.5 × 3) = 1 previous request would still count.
    clock.now = T0 + 15_000
    expect(await limiter.limit(threePerTenSeconds, 'steady')).toMatchObject({ success: true, remaining: 2 })
  })

  it('still expires identifiers on time after evictions, and never counts one twice', async () => {
    const { clock, limiter } = clocked(5)
    for (let i = 0; i < 50; i++) await limiter.limit(threePerTenSeconds, `flood-${i}`)
    expect(limiter.size).toBe(5)
    // Redis would have expired every one of them two windows and a second later.
    clock.now = T0 + 21_001
    await limiter.limit(threePerTenSeconds, 'after')
    expect(limiter.size).toBe(1)
    for (let i = 0; i < 5; i++) await limiter.limit(threePerTenSeconds, `again-${i}`)
    expect(limiter.size).toBe(5)
    clock.now = T0 + 42_002
    await limiter.limit(threePerTenSeconds, 'late')
    expect(limiter.size).toBe(1)
  })
})
