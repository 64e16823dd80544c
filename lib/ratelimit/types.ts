/**
 * Rate-limit port. Every implementation uses @upstash/ratelimit's `slidingWindow`: its own
 * script over Upstash REST (upstash.ts) or a plain Redis (redis.ts), or an in-process twin
 * (memory.ts), so limits, remaining counts and reset times agree.
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
