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
 * Retries of a request the service did not answer (a refused or reset connection): 0.1, 0.2
 * and 0.4 s apart, so an unreachable service is known within about a second. The library's
 * default (five, `e^n * 50` ms apart: about 4.3 s) came so close to the limiter's own 5 s
 * timeout that which one won depended on the machine and the Node version (on Node 24 under
 * load the timeout did, and an unreachable service let requests through as a slow one does).
 */
const UPSTASH_RETRY = { retries: 3, backoff: (retryCount: number) => 100 * 2 ** retryCount }

/**
 * @upstash/ratelimit over Upstash's REST service. When the service cannot be reached,
 * @upstash/redis retries (UPSTASH_RETRY) and then throws; when it answers slower than the
 * limiter's timeout, the request is allowed with a warning (sliding-window.ts).
 */
export function createUpstashRateLimiter({
  url,
  token,
  keyPrefix = 'ratelimit',
}: UpstashRateLimiterOptions): RateLimiter & { readonly kind: 'upstash' } {
  return createSlidingWindowLimiter(new Redis({ url, token, retry: UPSTASH_RETRY }), {
    kind: 'upstash',
    keyPrefix,
  })
}
