import { afterEach, beforeEach } from 'vitest'
import * as rateLimitModule from '@/lib/ratelimit'

type RateLimitModule = Pick<typeof rateLimitModule, 'createMemoryRateLimiter' | 'useRateLimiter'>

/**
 * Installs an in-process limiter whose clock stands still at `at`. A sliding window weighs the
 * previous window's count; a test that counts to a limit must not straddle a window boundary
 * on a slow machine, or the count it expects would be right and still fail. A test that
 * re-imports the app after `vi.resetModules()` passes the module instance its code will use.
 */
export function holdRateLimitClock(at: number = Date.now(), limits: RateLimitModule = rateLimitModule): void {
  const { useRateLimiter: install, createMemoryRateLimiter } = limits
  install(createMemoryRateLimiter({ now: () => at }))
}

/** Holds the limiter's clock for each test of one describe block; returns the held time (epoch ms). */
export function freezeRateLimitClock(): { now: () => number } {
  let frozen = Date.now()
  beforeEach(() => {
    frozen = Date.now()
    holdRateLimitClock(frozen)
  })
  afterEach(() => {
    rateLimitModule.useRateLimiter(undefined)
  })
  return { now: () => frozen }
}
