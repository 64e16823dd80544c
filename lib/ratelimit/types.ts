/**
 * Rate-limit port. Both implementations use the same sliding-window algorithm as
 * @upstash/ratelimit's `slidingWindow`, so limits, remaining counts and reset times agree.
 */
export interface RateLimitRule {
  /** Namespaces the counters: `ingest`, `data-read`, `data-write`, `signin`, ... */
  name: string
  limit: number
  windowSeconds: number
}

export interface RateLimitResult {
  success: boolean
  limit: number
  remaining: number
  /** Unix epoch milliseconds at which the current window ends. */
  reset: number
  /** Whole seconds (at least 1) a refused caller should wait; 0 when allowed. */
  retryAfterSeconds: number
}

export interface RateLimiter {
  readonly kind: 'upstash' | 'redis' | 'memory'
  limit(rule: RateLimitRule, identifier: string): Promise<RateLimitResult>
}
