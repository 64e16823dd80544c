import { afterEach, beforeEach } from 'vitest'
import { createMemoryRateLimiter, useRateLimiter } from '@/lib/ratelimit'

/**
 * Freezes the rate limiter's clock for the tests of one describe block. A sliding window
 * weighs the previous window's count; a test that counts to a limit must not straddle a
 * window boundary on a slow machine, or the count it expects would be right and still fail.
 * Returns the frozen time (epoch ms).
 */
export function freezeRateLimitClock(): { now: () => number } {
  let frozen = Date.now()
  beforeEach(() => {
    frozen = Date.now()
    useRateLimiter(createMemoryRateLimiter({ now: () => frozen }))
  })
  afterEach(() => {
    useRateLimiter(undefined)
  })
  return { now: () => frozen }
}
