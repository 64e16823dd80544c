import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { logger } from '@/lib/log'
import { createRateLimiter, getRateLimiter, useRateLimiter } from '@/lib/ratelimit'
import { createMemoryRateLimiter } from '@/lib/ratelimit/memory'
import type { RateLimiter, RateLimitResult, RateLimitRule } from '@/lib/ratelimit/types'
import { createUpstashRateLimiter } from '@/lib/ratelimit/upstash'
import { startUpstashShim, type UpstashShim } from '../helpers/upstash-shim'

/**
 * One suite for both adapters of the rate-limit port: the in-process one, and the Upstash one
 * talking REST to a shim in front of the machine's Redis. Without Redis the Upstash half
 * fails rather than skips: CI has Redis, and a silent skip would hide a broken adapter.
 */

let shimStarting: Promise<UpstashShim> | undefined
const shim = () => {
  shimStarting ??= startUpstashShim()
  return shimStarting
}
afterAll(async () => {
  const started = await shimStarting?.catch(() => undefined)
  await started?.close()
})

async function upstashLimiter(): Promise<RateLimiter> {
  const { url, token, keyPrefix } = await shim()
  return createUpstashRateLimiter({ url, token, keyPrefix })
}

const adapters = [
  { kind: 'memory', create: async (): Promise<RateLimiter> => createMemoryRateLimiter() },
  { kind: 'upstash', create: upstashLimiter },
] as const

/** Fresh names per test, so that tests (and adapters sharing one Redis) never share counters. */
const ruleNamed = (limit: number, windowSeconds: number): RateLimitRule => ({
  name: `rule-${randomUUID().slice(0, 8)}`,
  limit,
  windowSeconds,
})

const windowEnd = (at: number, windowMs: number) => (Math.floor(at / windowMs) + 1) * windowMs
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
const sleepUntil = (at: number) => sleep(at - Date.now())

/** Real-time tests must not straddle a window boundary unless they mean to. */
async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const now = Date.now()
  if (windowEnd(now, windowMs) - now < marginMs) await sleepUntil(windowEnd(now, windowMs) + 5)
}

async function calls(limiter: RateLimiter, rule: RateLimitRule, id: string, times: number) {
  const results: RateLimitResult[] = []
  for (let i = 0; i < times; i++) results.push(await limiter.limit(rule, id))
  return results
}

describe.each(adapters)('rate-limit port: $kind adapter', (adapter) => {
  let limiter: RateLimiter

  beforeAll(async () => {
    limiter = await adapter.create()
  })

  it('reports its kind', () => {
    expect(limiter.kind).toBe(adapter.kind)
  })

  it('allows up to the limit, counting down to zero, then refuses', async () => {
    const rule = ruleNamed(3, 60)
    await awayFromWindowEdge(60_000, 2_000)
    const before = Date.now()
    const results = await calls(limiter, rule, 'client', 5)

    expect(results.map((r) => [r.success, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ])
    for (const result of results) {
      expect(result.limit).toBe(3)
      expect(result.reset).toBe(windowEnd(before, 60_000))
    }
    expect(results.slice(0, 3).map((r) => r.retryAfterSeconds)).toEqual([0, 0, 0])
    const refused = results[3]!
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil((refused.reset - before) / 1000))
  })

  it('keeps identifiers and rule names apart', async () => {
    const rule = ruleNamed(2, 60)
    const sibling = ruleNamed(2, 60)
    await awayFromWindowEdge(60_000, 2_000)
    await calls(limiter, rule, 'a', 2)

    expect(await limiter.limit(rule, 'a')).toMatchObject({ success: false, remaining: 0 })
    expect(await limiter.limit(rule, 'b')).toMatchObject({ success: true, remaining: 1 })
    expect(await limiter.limit(sibling, 'a')).toMatchObject({ success: true, remaining: 1 })
  })

  it('lets requests through again as the window slides past', async () => {
    const rule = ruleNamed(2, 1)
    await sleepUntil(windowEnd(Date.now(), 1_000) + 20)
    const first = await calls(limiter, rule, 'client', 3)
    expect(first.map((r) => r.success)).toEqual([true, true, false])
    const { reset } = first[2]!
    expect(first[2]!.retryAfterSeconds).toBe(1)

    // Early in the next window, floor(0.9 × 2) = 1 of the previous two still counts.
    await sleepUntil(reset + 100)
    const next = await calls(limiter, rule, 'client', 2)
    expect(next.map((r) => [r.success, r.remaining])).toEqual([
      [true, 0],
      [false, 0],
    ])
    expect(next[1]!.reset).toBe(reset + 1_000)

    // One window later only the single allowed request weighs (the refusal never counted).
    await sleepUntil(reset + 1_100)
    expect(await limiter.limit(rule, 'client')).toMatchObject({
      success: true,
      remaining: 1,
      retryAfterSeconds: 0,
    })
  })
})

describe('memory and Upstash adapters agree', () => {
  it('give the same figures for the same calls at the same instants', async () => {
    const upstash = await upstashLimiter()
    // The memory adapter reads Date.now at each call, so the mocked clock below drives both.
    const memory = createMemoryRateLimiter()
    const rule = ruleNamed(10, 10)
    const hourly = ruleNamed(3, 60)
    // A minute boundary a little ahead of real time: Redis expires keys by its own clock, and
    // these keys must outlive the test whatever the simulated time.
    const base = windowEnd(Date.now(), 60_000)
    const script: [offsetMs: number, rule: RateLimitRule, id: string, times: number][] = [
      [0, rule, 'a', 12],
      [1_000, rule, 'b', 3],
      [1_500, hourly, 'a', 4],
      [13_000, rule, 'a', 4],
      [19_000, rule, 'a', 2],
      [25_000, rule, 'a', 9],
      [29_999, rule, 'b', 1],
      [40_000, rule, 'a', 1],
      [59_999, hourly, 'a', 1],
      [60_000, hourly, 'a', 2],
      [60_001, rule, 'a', 1],
    ]

    const clock = vi.spyOn(Date, 'now')
    const figures: Record<'memory' | 'upstash', RateLimitResult[]> = { memory: [], upstash: [] }
    try {
      for (const [offset, stepRule, id, times] of script) {
        clock.mockReturnValue(base + offset)
        for (let i = 0; i < times; i++) {
          figures.upstash.push(await upstash.limit(stepRule, id))
          figures.memory.push(await memory.limit(stepRule, id))
        }
      }
    } finally {
      clock.mockRestore()
    }

    expect(figures.memory).toEqual(figures.upstash)
    // The script does reach the interesting cases: refusals, a weighted previous window, and
    // 1 - 0.9 rounding 10 previous requests down to 0 rather than 1.
    const remaining = figures.upstash.map((r) => (r.success ? r.remaining : 'refused'))
    expect(remaining.slice(0, 12)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 'refused', 'refused'])
    expect(remaining.slice(19, 25)).toEqual([2, 1, 0, 'refused', 6, 5])
  })
})

describe('rate limiter factory', () => {
  it('builds the adapter the configuration chose', () => {
    expect(createRateLimiter({ kind: 'memory' }).kind).toBe('memory')
    expect(createRateLimiter({ kind: 'upstash', url: 'http://127.0.0.1:1', token: 't' }).kind).toBe('upstash')
  })

  it('memoizes the app-wide limiter, warning when in-process counters run in production', async () => {
    const warn = vi.spyOn(logger, 'warn')
    useRateLimiter(undefined)
    // A production configuration needs its public address and a real secret.
    setConfigForTests(
      parseConfig({
        NODE_ENV: 'production',
        BASE_URL: 'https://replay.example.com',
        AUTH_SECRET: process.env.AUTH_SECRET,
      }),
    )
    try {
      const limiter = getRateLimiter()
      expect(limiter.kind).toBe('memory')
      expect(getRateLimiter()).toBe(limiter)
      expect(warn).toHaveBeenCalledTimes(1)
      expect(warn.mock.calls[0]).toEqual([
        { rateLimit: 'memory' },
        expect.stringContaining('in-process rate limiter'),
      ])
    } finally {
      warn.mockRestore()
      setConfigForTests(undefined)
      useRateLimiter(undefined)
    }
  })
})
