import { Redis } from '@upstash/redis'
import { createSlidingWindowLimiter } from './sliding-window'
import type { RateLimiter } from './types'

export interface UpstashRateLimiterOptions {
  url: string
  token: string
  /** Start of every Redis key; tests give each run its own so they can clean up after it. */
  keyPrefix?: string
}

/**
 * @upstash/ratelimit over Upstash's REST service. When the service cannot be reached,
 * @upstash/redis retries five times (about 4.3 s) and then throws; when it answers slower
 * than the limiter's timeout, the request is allowed with a warning (sliding-window.ts).
 */
export function createUpstashRateLimiter({
  url,
  token,
  keyPrefix = 'ratelimit',
}: UpstashRateLimiterOptions): RateLimiter & { readonly kind: 'upstash' } {
  return createSlidingWindowLimiter(new Redis({ url, token }), { kind: 'upstash', keyPrefix })
}
