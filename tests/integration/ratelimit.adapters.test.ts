import { randomUUID } from 'node:crypto'
import net from 'node:net'
import { Redis as IORedis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { logger } from '@/lib/log'
import { createRateLimiter, getRateLimiter, useRateLimiter } from '@/lib/ratelimit'
import { createMemoryRateLimiter } from '@/lib/ratelimit/memory'
import { createRedisRateLimiter, type RedisRateLimiter } from '@/lib/ratelimit/redis'
import type { RateLimiter, RateLimitResult, RateLimitRule } from '@/lib/ratelimit/types'
import { createUpstashRateLimiter } from '@/lib/ratelimit/upstash'
import { freePort } from '../helpers/free-port'
import { startTcpProxy } from '../helpers/tcp-proxy'
import { startUpstashShim, type UpstashShim } from '../helpers/upstash-shim'
import { waitFor } from '../helpers/wait'

/**
 * One suite for the three adapters of the rate-limit port: the in-process one, the Upstash
 * one talking REST to a shim in front of the machine's Redis, and the plain-Redis one talking
 * to that Redis directly. Without Redis the Redis-backed halves fail rather than skip: CI has
 * Redis, and a silent skip would hide a broken adapter.
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

const REDIS_URL = 'redis://127.0.0.1:6379'
/** Every key the plain-Redis adapter writes in this run starts with it; deleted afterwards. */
const redisKeyPrefix = `ratelimit-redis-test:${randomUUID().slice(0, 12)}`
const redisLimiters: RedisRateLimiter[] = []

/** A plain-Redis limiter closed after the run; by default on the machine's Redis. */
function redisLimiter(options: Partial<Parameters<typeof createRedisRateLimiter>[0]> = {}): RedisRateLimiter {
  const limiter = createRedisRateLimiter({ url: REDIS_URL, keyPrefix: redisKeyPrefix, ...options })
  redisLimiters.push(limiter)
  return limiter
}

afterAll(async () => {
  await Promise.all(redisLimiters.map((limiter) => limiter.close()))
  const redis = new IORedis(REDIS_URL, { lazyConnect: true })
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisKeyPrefix}:*`, 'COUNT', 500)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
})

const adapters = [
  { kind: 'memory', create: async (): Promise<RateLimiter> => createMemoryRateLimiter() },
  { kind: 'upstash', create: upstashLimiter },
  { kind: 'redis', create: async (): Promise<RateLimiter> => redisLimiter() },
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

describe('memory, Upstash and Redis adapters agree', () => {
  it('give the same figures for the same calls at the same instants', async () => {
    const upstash = await upstashLimiter()
    const redis = redisLimiter()
    // Every adapter reads Date.now at each call, so the mocked clock below drives all three.
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
    const figures: Record<'memory' | 'upstash' | 'redis', RateLimitResult[]> = {
      memory: [],
      upstash: [],
      redis: [],
    }
    try {
      for (const [offset, stepRule, id, times] of script) {
        clock.mockReturnValue(base + offset)
        for (let i = 0; i < times; i++) {
          figures.upstash.push(await upstash.limit(stepRule, id))
          figures.redis.push(await redis.limit(stepRule, id))
          figures.memory.push(await memory.limit(stepRule, id))
        }
      }
    } finally {
      clock.mockRestore()
    }

    expect(figures.memory).toEqual(figures.upstash)
    expect(figures.redis).toEqual(figures.upstash)
    // The script does reach the interesting cases: refusals, a weighted previous window, and
    // 1 - 0.9 rounding 10 previous requests down to 0 rather than 1.
    const remaining = figures.upstash.map((r) => (r.success ? r.remaining : 'refused'))
    expect(remaining.slice(0, 12)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 'refused', 'refused'])
    expect(remaining.slice(19, 25)).toEqual([2, 1, 0, 'refused', 6, 5])
  })
})

describe('Redis-backed adapters when Redis fails', () => {
  const HOUR_SECONDS = 3600
  const PASSWORD = 'hunter2-do-not-log'

  it('plain Redis down: every limit throws at once with a secret-free reason, and no command waits', async () => {
    const port = await freePort()
    const warn = vi.spyOn(logger, 'warn')
    try {
      const limiter = redisLimiter({ url: `redis://user:${PASSWORD}@127.0.0.1:${port}` })
      const rule = ruleNamed(5, 60)
      const first = await limiter.limit(rule, 'client').catch((error: unknown) => error)
      expect(first).toBeInstanceOf(Error)
      expect((first as Error).name).toBe('RedisUnavailableError')
      expect((first as Error).message).toContain(`redis://127.0.0.1:${port} is unreachable`)
      // While it stays down, later limits fail as well rather than queue behind a reconnect.
      await expect(limiter.limit(rule, 'client')).rejects.toThrow(/is unreachable/)
      const logged = JSON.stringify(warn.mock.calls)
      expect(logged).toContain('cannot reach Redis')
      expect(`${(first as Error).message} ${logged}`).not.toContain(PASSWORD)
      await limiter.close()
    } finally {
      warn.mockRestore()
    }
  })

  it('plain Redis: requests that arrive while it first connects wait for that connection together', async () => {
    const warnings = vi.spyOn(process, 'emitWarning')
    try {
      const limiter = redisLimiter()
      const rule = ruleNamed(5, HOUR_SECONDS)
      await awayFromWindowEdge(HOUR_SECONDS * 1000, 5_000)
      const results = await Promise.all(Array.from({ length: 20 }, () => limiter.limit(rule, 'client')))
      expect(results.filter((result) => result.success)).toHaveLength(5)
      expect(results.map((result) => result.remaining).sort()).toEqual([...Array(16).fill(0), 1, 2, 3, 4])
      // One wait shared, not one listener per request (Node warns past ten).
      expect(warnings).not.toHaveBeenCalled()
      await limiter.close()
    } finally {
      warnings.mockRestore()
    }
  })

  it('rediss:// speaks TLS: a server that does not sees a TLS handshake, and the failure names no password', async () => {
    const server = net.createServer()
    const firstBytes = new Promise<Buffer>((resolve) =>
      server.on('connection', (socket) =>
        socket.once('data', (data: Buffer) => {
          resolve(data)
          socket.destroy()
        }),
      ),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as net.AddressInfo
      const limiter = redisLimiter({ url: `rediss://:${PASSWORD}@127.0.0.1:${port}` })
      const failure = await limiter.limit(ruleNamed(5, 60), 'client').catch((error: unknown) => error)
      // 0x16: the first byte of a TLS record carrying a handshake (the ClientHello).
      expect((await firstBytes)[0]).toBe(0x16)
      expect(failure).toBeInstanceOf(Error)
      expect((failure as Error).name).toBe('RedisUnavailableError')
      expect((failure as Error).message).toContain(`rediss://127.0.0.1:${port}`)
      expect((failure as Error).message).not.toContain(PASSWORD)
      await limiter.close()
    } finally {
      server.close()
    }
  })

  it('Upstash unreachable: its limit throws too, once its client has spent its retries', async () => {
    const port = await freePort()
    const limiter = createUpstashRateLimiter({
      url: `http://127.0.0.1:${port}`,
      token: 't',
      keyPrefix: 'unused',
    })
    await expect(limiter.limit(ruleNamed(5, 60), 'client')).rejects.toThrow()
  }, 15_000)

  it('plain Redis slower than the timeout: the request is allowed with a warning, as with Upstash', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 })
    const warn = vi.spyOn(logger, 'warn')
    try {
      const limiter = redisLimiter({ url: `redis://127.0.0.1:${proxy.port}`, timeoutMs: 1_000 })
      // An hour's window: the test stays within one however long reconnecting takes.
      const rule = ruleNamed(5, HOUR_SECONDS)
      await awayFromWindowEdge(HOUR_SECONDS * 1000, 15_000)
      // Connected and the script loaded before anything is timed: on a loaded CI machine the
      // first command (connecting through the proxy, loading the script) once took longer than
      // the timeout, and was allowed by the fallback instead of counted by Redis.
      for (let attempt = 0; ; attempt++) {
        const warm = await limiter.limit(rule, `warm-up-${attempt}`)
        if (warm.remaining === 4) break
        if (attempt === 9) throw new Error('Redis never answered through the proxy within the timeout')
      }
      expect(await limiter.limit(rule, 'client')).toMatchObject({ success: true, remaining: 4 })

      proxy.hold()
      const before = Date.now()
      expect(await limiter.limit(rule, 'client')).toEqual({
        success: true,
        limit: 5,
        remaining: 0,
        reset: windowEnd(before, HOUR_SECONDS * 1000),
        retryAfterSeconds: 0,
      })
      expect(warn).toHaveBeenCalledWith(
        { rule: rule.name, rateLimit: 'redis' },
        'rate limiter timed out; request allowed',
      )

      // Past the command deadline (timeout + 1 s) the connection with the unanswered command is
      // dropped and the next command opens a fresh one: a late answer on the old one cannot be
      // taken for a new command's. Redis did run the held command: it counted.
      const connectionsBefore = proxy.forwarded
      await sleep(2_000)
      proxy.release()
      expect(await limiter.limit(rule, 'client')).toMatchObject({ success: true, remaining: 2 })
      expect(proxy.forwarded).toBe(connectionsBefore + 1)
      expect(warn).toHaveBeenCalledWith(
        { redis: `redis://127.0.0.1:${proxy.port}`, timeoutMs: 2_000 },
        'Redis rate limiter got no answer from Redis; reconnecting',
      )
      expect(await limiter.limit(rule, 'other')).toMatchObject({ success: true, remaining: 4 })
      await limiter.close()
    } finally {
      warn.mockRestore()
      await proxy.close()
    }
  })

  it('plain Redis that accepts connections but never answers: limits fail within the connect deadline', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 })
    proxy.hold()
    try {
      const limiter = redisLimiter({ url: `redis://127.0.0.1:${proxy.port}`, connectTimeoutMs: 200 })
      const rule = ruleNamed(5, 60)
      await expect(limiter.limit(rule, 'client')).rejects.toThrow(/no connection within 200 ms/)
      // Later ones fail at once rather than wait again, until the connection is ready.
      await expect(limiter.limit(rule, 'client')).rejects.toThrow(/is unreachable/)
      await limiter.close()
    } finally {
      await proxy.close()
    }
  })

  it('plain Redis that goes away and comes back: fails while away, counts on where it was', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 })
    try {
      const limiter = redisLimiter({ url: `redis://127.0.0.1:${proxy.port}` })
      const rule = ruleNamed(5, HOUR_SECONDS)
      await awayFromWindowEdge(HOUR_SECONDS * 1000, 15_000)
      expect(await limiter.limit(rule, 'client')).toMatchObject({ success: true, remaining: 4 })
      await proxy.cut()
      await waitFor('a refusal while Redis is away', async () =>
        limiter.limit(rule, 'client').then(
          () => false,
          (error: unknown) => error instanceof Error && error.name === 'RedisUnavailableError',
        ),
      )
      await proxy.restore()
      const back = await waitFor('Redis back', async () =>
        limiter.limit(rule, 'client').catch(() => undefined),
      )
      expect(back).toMatchObject({ success: true, remaining: 3 })
      await limiter.close()
    } finally {
      await proxy.close()
    }
  })
})

describe('rate limiter factory', () => {
  it('builds the adapter the configuration chose, without any I/O', async () => {
    expect(createRateLimiter({ kind: 'memory' }).kind).toBe('memory')
    expect(createRateLimiter({ kind: 'upstash', url: 'http://127.0.0.1:1', token: 't' }).kind).toBe('upstash')
    const warn = vi.spyOn(logger, 'warn')
    try {
      // Nothing listens on port 1: building the adapter must not try to connect.
      const config = parseConfig({ REDIS_URL: 'redis://:secret@127.0.0.1:1' })
      expect(config.rateLimit).toEqual({ kind: 'redis', url: 'redis://:secret@127.0.0.1:1' })
      const limiter = createRateLimiter(config.rateLimit)
      expect(limiter.kind).toBe('redis')
      await sleep(50)
      expect(JSON.stringify(warn.mock.calls)).not.toContain('127.0.0.1:1"')
    } finally {
      warn.mockRestore()
    }
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
      expect(warn.mock.calls[0]?.[1]).toContain('REDIS_URL')
    } finally {
      warn.mockRestore()
      setConfigForTests(undefined)
      useRateLimiter(undefined)
    }
  })
})
