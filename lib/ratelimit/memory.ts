import { LRUCache } from 'lru-cache'
import { type ExpiryLinks, ExpiryQueue } from './expiry-queue'
import type { RateLimiter, RateLimitResult, RateLimitRule } from './types'

/**
 * In-process twin of @upstash/ratelimit's `Ratelimit.slidingWindow` (single region). It
 * replays that library's Lua script step by step, including its floating-point weighting and
 * its key expiry, so both adapters give the same figures for the same calls at the same
 * instants. Counters live in this process only: several processes each allow the full limit.
 *
 * Unlike Redis, it holds at most `maxEntries` identifiers (over all rules). Identifiers come
 * from callers (a presented key, an address), so without a bound a flood of made-up ones
 * would grow the heap until the process dies. When full, the least recently used identifier
 * is forgotten and starts afresh if it comes back, as if Redis had expired it early: under a
 * flood of more distinct identifiers than the bound within a window, a legitimate counter can
 * be forgotten and its holder gets up to one more full limit. An entry with a 43-character
 * identifier (a SHA-256 in base64url, as most callers pass) measured about 540 bytes of
 * heap, so the default bound keeps the counters near 55 MB.
 */

export const MEMORY_RATE_LIMITER_MAX_ENTRIES = 100_000

export interface MemoryRateLimiterOptions {
  /** Epoch milliseconds; injectable so tests can step through windows without waiting. */
  now?: () => number
  /** Most identifiers holding counters at once, over all rules; default 100,000. */
  maxEntries?: number
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

/**
 * `expiresAt` is the latest expiry of its buckets: once past, the entry holds nothing Redis
 * would still have.
 */
interface Entry extends ExpiryLinks<Entry> {
  key: string
  buckets: Map<number, Bucket>
  /** The queue of its window length, so that an entry the LRU drops leaves it too. */
  queue: ExpiryQueue<Entry>
}

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
  const entries = new LRUCache<string, Entry>({
    max: options.maxEntries ?? MEMORY_RATE_LIMITER_MAX_ENTRIES,
    dispose: (entry) => entry.queue.remove(entry),
  })
  // One per window length: an entry moves to the back whenever it gains a bucket, whose expiry
  // is then the latest of its queue.
  const queues = new Map<number, ExpiryQueue<Entry>>()
  // Keys are `<rule number>:<identifier>`: the number has no colon, so no two rules collide.
  const ruleNumbers = new Map<string, number>()

  function queueFor(windowMs: number): ExpiryQueue<Entry> {
    let queue = queues.get(windowMs)
    if (!queue) {
      queue = new ExpiryQueue()
      queues.set(windowMs, queue)
    }
    return queue
  }

  function keyFor(windowMs: number, rule: RateLimitRule, identifier: string): string {
    const ruleKey = `${windowMs}:${rule.name}`
    let number = ruleNumbers.get(ruleKey)
    if (number === undefined) {
      number = ruleNumbers.size
      ruleNumbers.set(ruleKey, number)
    }
    return `${number}:${identifier}`
  }

  function evictExpired(at: number): void {
    for (const queue of queues.values()) {
      for (let entry = queue.expiredFirst(at); entry; entry = queue.expiredFirst(at)) {
        queue.remove(entry)
        entries.delete(entry.key)
      }
    }
  }

  function increment(
    existing: Entry | undefined,
    key: string,
    window: number,
    windowMs: number,
    at: number,
  ): number {
    let entry = existing
    if (!entry) {
      entry = {
        key,
        buckets: new Map(),
        expiresAt: 0,
        queue: queueFor(windowMs),
        earlier: undefined,
        later: undefined,
      }
      // When full, this drops the least recently used identifier.
      entries.set(key, entry)
    }
    for (const [index, bucket] of entry.buckets) if (at > bucket.expiresAt) entry.buckets.delete(index)
    const bucket = entry.buckets.get(window)
    if (bucket) return ++bucket.count
    // Upstash sets the key's expiry only when INCRBY creates it: two windows and a second.
    const expiresAt = at + windowMs * 2 + 1000
    entry.buckets.set(window, { count: 1, expiresAt })
    entry.expiresAt = Math.max(entry.expiresAt, expiresAt)
    entry.queue.moveToBack(entry)
    return 1
  }

  function limitNow(rule: RateLimitRule, identifier: string): RateLimitResult {
    const windowMs = windowMilliseconds(rule)
    const at = now()
    evictExpired(at)
    const key = keyFor(windowMs, rule, identifier)

    const window = Math.floor(at / windowMs)
    const reset = (window + 1) * windowMs
    const limit = redisInteger(rule.limit)
    // Reading counts as use: a refused identifier stays as recent as an allowed one.
    const entry = entries.get(key)
    const current = liveCount(entry, window, at)
    // Same operations in the same order as the Lua script, so rounding agrees to the bit.
    const weightedPrevious = Math.floor((1 - (at % windowMs) / windowMs) * liveCount(entry, window - 1, at))

    // A refused request is not counted: the script returns before INCRBY.
    const remaining =
      weightedPrevious + current >= rule.limit
        ? -1
        : redisInteger(rule.limit - (increment(entry, key, window, windowMs, at) + weightedPrevious))
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
      return entries.size
    },
    limit: async (rule, identifier) => limitNow(rule, identifier),
  }
}
