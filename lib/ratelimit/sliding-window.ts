import { Ratelimit } from '@upstash/ratelimit'
import { logger } from '@/lib/log'
import type { RateLimiter, RateLimitResult, RateLimitRule } from './types'

/** What @upstash/ratelimit needs of a Redis client: a few commands of @upstash/redis's class. */
export type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]['redis']

type RatelimitAnswer = Awaited<ReturnType<Ratelimit['limit']>>

/**
 * How long @upstash/ratelimit waits for Redis before it lets the request through (its own
 * default, stated here so both Redis-backed adapters use the same figure).
 */
export const RATE_LIMIT_TIMEOUT_MS = 5_000

export interface SlidingWindowOptions {
  kind: 'upstash' | 'redis'
  /** Start of every Redis key. */
  keyPrefix: string
  timeoutMs?: number
}

/**
 * The rate-limit port over @upstash/ratelimit's `slidingWindow`, whatever carries its commands
 * to Redis (Upstash's REST client, or node-redis through lib/ratelimit/redis.ts): both
 * adapters run the library's own script, so their figures agree with each other and with the
 * in-process twin (memory.ts).
 */
export function createSlidingWindowLimiter<K extends SlidingWindowOptions['kind']>(
  redis: RatelimitRedis,
  { kind, keyPrefix, timeoutMs = RATE_LIMIT_TIMEOUT_MS }: SlidingWindowOptions & { kind: K },
): RateLimiter & { readonly kind: K } {
  const limiters = new Map<string, Ratelimit>()

  function limiterFor(rule: RateLimitRule): Ratelimit {
    const cacheKey = JSON.stringify([rule.name, rule.limit, rule.windowSeconds])
    let limiter = limiters.get(cacheKey)
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix: `${keyPrefix}:${rule.name}`,
        timeout: timeoutMs,
        // The default cache refuses a refused identifier locally until the window ends, so the
        // answer would depend on which process served it, and its map is never pruned.
        ephemeralCache: false,
      })
      limiters.set(cacheKey, limiter)
    }
    return limiter
  }

  return {
    kind,
    async limit(rule, identifier) {
      // A Redis that cannot be reached makes this throw: the caller's surface answers 500.
      return toRateLimitResult(kind, rule, await limiterFor(rule).limit(identifier), Date.now())
    },
  }
}

/** Our figures from the library's answer. */
function toRateLimitResult(
  kind: SlidingWindowOptions['kind'],
  rule: RateLimitRule,
  answer: RatelimitAnswer,
  now: number,
): RateLimitResult {
  if (answer.reason === 'timeout') {
    // The library lets the request through when Redis is slower than its timeout; its own
    // figures are then all zero, which would put a zero limit in the response headers.
    logger.warn({ rule: rule.name, rateLimit: kind }, 'rate limiter timed out; request allowed')
    const windowMs = Math.round(rule.windowSeconds * 1000)
    return {
      success: true,
      limit: rule.limit,
      remaining: 0,
      reset: (Math.floor(now / windowMs) + 1) * windowMs,
      retryAfterSeconds: 0,
    }
  }
  return {
    success: answer.success,
    limit: answer.limit,
    remaining: answer.remaining,
    reset: answer.reset,
    retryAfterSeconds: answer.success ? 0 : Math.max(1, Math.ceil((answer.reset - now) / 1000)),
  }
}
