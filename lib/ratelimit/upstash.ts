import { Ratelimit } from '@upstash/ratelimit'
import { Redis } from '@upstash/redis'
import { logger } from '@/lib/log'
import type { RateLimiter, RateLimitRule } from './types'

export interface UpstashRateLimiterOptions {
  url: string
  token: string
  /** Start of every Redis key; tests give each run its own so they can clean up after it. */
  keyPrefix?: string
}

export function createUpstashRateLimiter({
  url,
  token,
  keyPrefix = 'ratelimit',
}: UpstashRateLimiterOptions): RateLimiter & { readonly kind: 'upstash' } {
  const redis = new Redis({ url, token })
  const limiters = new Map<string, Ratelimit>()

  function limiterFor(rule: RateLimitRule): Ratelimit {
    const cacheKey = JSON.stringify([rule.name, rule.limit, rule.windowSeconds])
    let limiter = limiters.get(cacheKey)
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix: `${keyPrefix}:${rule.name}`,
        // The default cache refuses a refused identifier locally until the window ends, so the
        // answer would depend on which process served it, and its map is never pruned.
        ephemeralCache: false,
      })
      limiters.set(cacheKey, limiter)
    }
    return limiter
  }

  return {
    kind: 'upstash',
    async limit(rule, identifier) {
      const answer = await limiterFor(rule).limit(identifier)
      const now = Date.now()
      if (answer.reason === 'timeout') {
        // Upstash lets the request through when Redis is slower than its timeout; its own
        // figures are then all zero, which would put a zero limit in the response headers.
        logger.warn({ rule: rule.name }, 'rate limiter timed out; request allowed')
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
    },
  }
}
