import { getConfig, type RateLimitChoice } from '@/lib/config'
import { logger } from '@/lib/log'
import { createMemoryRateLimiter } from './memory'
import { createRedisRateLimiter } from './redis'
import type { RateLimiter } from './types'
import { createUpstashRateLimiter } from './upstash'

/** Builds the chosen adapter without any I/O: Redis-backed ones connect on first use. */
export function createRateLimiter(choice: RateLimitChoice): RateLimiter {
  switch (choice.kind) {
    case 'upstash':
      return createUpstashRateLimiter({ url: choice.url, token: choice.token })
    case 'redis':
      return createRedisRateLimiter({ url: choice.url })
    case 'memory':
      return createMemoryRateLimiter()
  }
}

/**
 * Kept on globalThis so that Next's dev-mode module reloading neither forgets the in-process
 * counters nor logs the choice again.
 */
const holder = globalThis as typeof globalThis & { __serviceRateLimiter?: RateLimiter }

export function getRateLimiter(): RateLimiter {
  if (!holder.__serviceRateLimiter) {
    const config = getConfig()
    const limiter = createRateLimiter(config.rateLimit)
    logger.info({ rateLimit: limiter.kind }, 'rate limiter ready')
    if (limiter.kind === 'memory' && config.nodeEnv === 'production')
      logger.warn(
        { rateLimit: limiter.kind },
        'in-process rate limiter in production: every process counts on its own, so the effective limit grows with the number of instances; set REDIS_URL (a Redis server), or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (Upstash)',
      )
    holder.__serviceRateLimiter = limiter
  }
  return holder.__serviceRateLimiter
}

/** Tests run the app's code against a limiter they built (a fake clock, a shim, ...). */
export function useRateLimiter(limiter: RateLimiter | undefined): void {
  holder.__serviceRateLimiter = limiter
}

export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './memory'
export { createMemoryRateLimiter } from './memory'
export type { RedisRateLimiter, RedisRateLimiterOptions } from './redis'
export { createRedisRateLimiter } from './redis'
export type { RateLimiter, RateLimitResult, RateLimitRule } from './types'
export type { UpstashRateLimiterOptions } from './upstash'
export { createUpstashRateLimiter } from './upstash'
