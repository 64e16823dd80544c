import { describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '@/lib/ratelimit/memory'
import type { RateLimitRule } from '@/lib/ratelimit/types'

// A round epoch far from zero, so window indexes and `now % window` look like production.
const T0 = 1_800_000_000_000
const tenPerTenSeconds: RateLimitRule = { name: 'unit', limit: 10, windowSeconds: 10 }

function clocked(start = T0) {
  const clock = { now: start }
  const limiter = createMemoryRateLimiter({ now: () => clock.now })
  return { clock, limiter }
}

async function drain(
  limiter: ReturnType<typeof clocked>['limiter'],
  rule: RateLimitRule,
  id: string,
  times: number,
) {
  const results = []
  for (let i = 0; i < times; i++) results.push(await limiter.limit(rule, id))
  return results
}

describe('memory sliding window: one window', () => {
  it('counts down to zero, then refuses with the same reset', async () => {
    const { limiter } = clocked(T0 + 2_500)
    const results = await drain(limiter, { name: 'unit', limit: 3, windowSeconds: 10 }, 'a', 4)
    expect(results).toEqual([
      { success: true, limit: 3, remaining: 2, reset: T0 + 10_000, retryAfterSeconds: 0 },
      { success: true, limit: 3, remaining: 1, reset: T0 + 10_000, retryAfterSeconds: 0 },
      { success: true, limit: 3, remaining: 0, reset: T0 + 10_000, retryAfterSeconds: 0 },
      { success: false, limit: 3, remaining: 0, reset: T0 + 10_000, retryAfterSeconds: 8 },
    ])
  })

  it('rounds Retry-After up to whole seconds, and never below one', async () => {
    const { clock, limiter } = clocked()
    const rule = { name: 'unit', limit: 1, windowSeconds: 60 }
    await limiter.limit(rule, 'a')
    clock.now = T0 + 1
    expect((await limiter.limit(rule, 'a')).retryAfterSeconds).toBe(60)
    clock.now = T0 + 58_999
    expect((await limiter.limit(rule, 'a')).retryAfterSeconds).toBe(2)
    clock.now = T0 + 59_999
    expect((await limiter.limit(rule, 'a')).retryAfterSeconds).toBe(1)
  })

  it('refuses everything under a zero limit without keeping state', async () => {
    const { limiter } = clocked()
    const result = await limiter.limit({ name: 'unit', limit: 0, windowSeconds: 10 }, 'a')
    expect(result).toMatchObject({ success: false, limit: 0, remaining: 0, reset: T0 + 10_000 })
    expect(limiter.size).toBe(0)
  })

  it('keeps identifiers and rule names apart', async () => {
    const { limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 10)
    expect((await limiter.limit(tenPerTenSeconds, 'a')).success).toBe(false)
    expect(await limiter.limit(tenPerTenSeconds, 'b')).toMatchObject({ success: true, remaining: 9 })
    expect(await limiter.limit({ ...tenPerTenSeconds, name: 'other' }, 'a')).toMatchObject({
      success: true,
      remaining: 9,
    })
  })
})

describe('memory sliding window: the previous window, weighted', () => {
  it('weighs the previous count by the part of it still inside the sliding window', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 10)
    // 30% into the next window: floor(0.7 × 10) = 7 of the previous requests still count.
    clock.now = T0 + 13_000
    const results = await drain(limiter, tenPerTenSeconds, 'a', 4)
    expect(results.map((r) => [r.success, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ])
    expect(results[3]).toMatchObject({ reset: T0 + 20_000, retryAfterSeconds: 7 })
  })

  it('floors the weighted count', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 3)
    // floor(0.5 × 3) = 1
    clock.now = T0 + 15_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({ remaining: 8 })
  })

  it('uses the same floating-point arithmetic as the Lua script', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 10)
    // 1 - 0.9 is 0.09999999999999998 in doubles, so 10 previous requests weigh 0, not 1.
    clock.now = T0 + 19_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({ success: true, remaining: 9 })
  })

  it('counts the whole previous window at the first millisecond of the next one', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 10)
    clock.now = T0 + 10_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({
      success: false,
      remaining: 0,
      reset: T0 + 20_000,
      retryAfterSeconds: 10,
    })
  })

  it('does not count refused requests', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 25)
    // Had the 15 refusals counted, the weighted previous count would be floor(0.5 × 25) = 12.
    clock.now = T0 + 15_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({ success: true, remaining: 4 })
  })

  it('forgets a window once it is two windows old', async () => {
    const { clock, limiter } = clocked()
    await drain(limiter, tenPerTenSeconds, 'a', 10)
    clock.now = T0 + 15_000
    await drain(limiter, tenPerTenSeconds, 'a', 5)
    // Window 0 no longer counts; window 1 (5 requests) weighs floor(0.9 × 5) = 4.
    clock.now = T0 + 21_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({ success: true, remaining: 5 })
    clock.now = T0 + 40_000
    expect(await limiter.limit(tenPerTenSeconds, 'a')).toMatchObject({ success: true, remaining: 9 })
  })
})

describe('memory sliding window: windows and memory', () => {
  it('reads fractional windows in milliseconds, as Upstash parses them', async () => {
    const { limiter } = clocked(T0 + 1_400)
    const result = await limiter.limit({ name: 'unit', limit: 1, windowSeconds: 1.5 }, 'a')
    expect(result.reset).toBe(T0 + 1_500)
  })

  it('rejects windows shorter than a millisecond', async () => {
    const { limiter } = clocked()
    await expect(limiter.limit({ name: 'unit', limit: 1, windowSeconds: 0.0001 }, 'a')).rejects.toThrow(
      /1 ms/,
    )
  })

  it('evicts identifiers whose counters Redis would have expired', async () => {
    const { clock, limiter } = clocked()
    for (let i = 0; i < 1_000; i++) await limiter.limit(tenPerTenSeconds, `id-${i}`)
    await limiter.limit({ name: 'other', limit: 5, windowSeconds: 60 }, 'kept')
    expect(limiter.size).toBe(1_001)
    // Upstash's keys live two windows and a second after their first increment.
    clock.now = T0 + 21_000
    await limiter.limit(tenPerTenSeconds, 'fresh')
    expect(limiter.size).toBe(1_002)
    clock.now = T0 + 21_001
    await limiter.limit(tenPerTenSeconds, 'fresh')
    expect(limiter.size).toBe(2)
  })

  it('keeps an identifier that stays active', async () => {
    const { clock, limiter } = clocked()
    for (let step = 0; step < 10; step++) {
      clock.now = T0 + step * 10_000
      await limiter.limit(tenPerTenSeconds, 'steady')
      await limiter.limit(tenPerTenSeconds, `passing-${step}`)
    }
    // The passing identifiers from more than two windows and a second ago are gone.
    expect(limiter.size).toBe(4)
    clock.now = T0 + 100_000
    expect(await limiter.limit(tenPerTenSeconds, 'steady')).toMatchObject({ success: true, remaining: 8 })
  })
})
