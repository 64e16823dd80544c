import type { RateLimiter, RateLimitResult, RateLimitRule } from './types'

/**
 * In-process twin of @upstash/ratelimit's `Ratelimit.slidingWindow` (single region). It
 * replays that library's Lua script step by step, including its floating-point weighting and
 * its key expiry, so both adapters give the same figures for the same calls at the same
 * instants. Counters live in this process only: several processes each allow the full limit.
 */

export interface MemoryRateLimiterOptions {
  /** Epoch milliseconds; injectable so tests can step through windows without waiting. */
  now?: () => number
}

export interface MemoryRateLimiter extends RateLimiter {
  readonly kind: 'memory'
  /** Identifiers currently holding counters, over all rules (to observe eviction). */
  readonly size: number
}

/** One window's counter, as Upstash keeps one Redis key per identifier and window. */
interface Bucket {
  count: number
  expiresAt: number
}

interface Entry {
  buckets: Map<number, Bucket>
  /** Latest expiry of its buckets: once past, the entry holds nothing Redis would still have. */
  expiresAt: number
}

/**
 * Entries are re-inserted whenever they gain a bucket, so each map stays ordered by expiry
 * and eviction only looks at its head. All entries in one map share the window length.
 */
type Entries = Map<string, Entry>

function windowMilliseconds(rule: RateLimitRule): number {
  // Upstash rounds the parsed duration the same way and refuses windows under 1 ms.
  const windowMs = Math.round(rule.windowSeconds * 1000)
  if (!(windowMs >= 1)) throw new Error(`Rate-limit window must be at least 1 ms (rule ${rule.name})`)
  return windowMs
}

// Redis converts Lua numbers to integer replies by truncation; the figures must match.
const redisInteger = Math.trunc

function liveCount(entry: Entry | undefined, window: number, now: number): number {
  const bucket = entry?.buckets.get(window)
  // A Redis key is gone once the clock is strictly past its expiry time.
  return bucket && now <= bucket.expiresAt ? bucket.count : 0
}

export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const now = options.now ?? (() => Date.now())
  const rules = new Map<string, Entries>()

  function evictExpired(at: number): void {
    for (const entries of rules.values()) {
      for (const [key, entry] of entries) {
        if (at <= entry.expiresAt) break
        entries.delete(key)
      }
    }
  }

  function increment(
    entries: Entries,
    identifier: string,
    window: number,
    windowMs: number,
    at: number,
  ): number {
    let entry = entries.get(identifier)
    if (!entry) {
      entry = { buckets: new Map(), expiresAt: 0 }
      entries.set(identifier, entry)
    }
    for (const [index, bucket] of entry.buckets) if (at > bucket.expiresAt) entry.buckets.delete(index)
    const bucket = entry.buckets.get(window)
    if (bucket) return ++bucket.count
    // Upstash sets the key's expiry only when INCRBY creates it: two windows and a second.
    const expiresAt = at + windowMs * 2 + 1000
    entry.buckets.set(window, { count: 1, expiresAt })
    entry.expiresAt = Math.max(entry.expiresAt, expiresAt)
    entries.delete(identifier)
    entries.set(identifier, entry)
    return 1
  }

  function limitNow(rule: RateLimitRule, identifier: string): RateLimitResult {
    const windowMs = windowMilliseconds(rule)
    const at = now()
    evictExpired(at)
    const ruleKey = `${windowMs}:${rule.name}`
    let entries = rules.get(ruleKey)
    if (!entries) {
      entries = new Map()
      rules.set(ruleKey, entries)
    }

    const window = Math.floor(at / windowMs)
    const reset = (window + 1) * windowMs
    const limit = redisInteger(rule.limit)
    const entry = entries.get(identifier)
    const current = liveCount(entry, window, at)
    // Same operations in the same order as the Lua script, so rounding agrees to the bit.
    const weightedPrevious = Math.floor((1 - (at % windowMs) / windowMs) * liveCount(entry, window - 1, at))

    // A refused request is not counted: the script returns before INCRBY.
    const remaining =
      weightedPrevious + current >= rule.limit
        ? -1
        : redisInteger(rule.limit - (increment(entries, identifier, window, windowMs, at) + weightedPrevious))
    const success = remaining >= 0
    return {
      success,
      limit,
      remaining: Math.max(0, remaining),
      reset,
      retryAfterSeconds: success ? 0 : Math.max(1, Math.ceil((reset - at) / 1000)),
    }
  }

  return {
    kind: 'memory',
    get size() {
      let total = 0
      for (const entries of rules.values()) total += entries.size
      return total
    },
    limit: async (rule, identifier) => limitNow(rule, identifier),
  }
}
