import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { DbOrTx } from '@/db/client'
import { RateLimitedError, UnauthorizedError } from '@/lib/errors'
import { INVALID_API_KEY, type IngestPrincipal, resolveIngestKey } from '@/lib/ingest/resolve-ingest-key'
import { logger } from '@/lib/log'
import { getRateLimiter, type RateLimiter } from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { RATE_LIMITED } from './limits'

/**
 * Ingest keys are public and anyone may present made-up ones, so the database is asked about
 * a key not recently seen only within two budgets: one per client address, and one for keys
 * that fail, from everyone together. The caches below are per process, hold key hashes only
 * and are bounded; a flood of made-up keys can neither grow them nor push a working key out
 * of the first one.
 */

const RECENT_KEYS_MAX = 20_000
const RECENT_KEY_TTL_MS = 60_000

/**
 * Keys that resolved within the last minute skip the budgets, not the lookup: a revoked key
 * fails at its next request. Only a working key gets in.
 */
const recentlyWorking = new LRUCache<string, true>({ max: RECENT_KEYS_MAX, ttl: RECENT_KEY_TTL_MS })

/**
 * Keys that failed within the last minute are refused without a lookup or a budget. Keys are
 * random and revocation is final, so a key that failed cannot start working; this spares the
 * budgets a revoked key still embedded in a busy site.
 */
const recentlyFailing = new LRUCache<string, true>({ max: RECENT_KEYS_MAX, ttl: RECENT_KEY_TTL_MS })

/**
 * Until when (real clock) the shared budget for failing keys is spent. A limiter cannot read
 * a budget without spending it, so its last refusal is remembered; kept per limiter, as the
 * figure comes from that limiter's counters.
 */
const missesRefusedUntil = new WeakMap<RateLimiter, number>()

export interface KeyLookup {
  /** The key as presented. */
  key: string
  /** SHA-256 of the trimmed key, as the per-key rate limit counts it. */
  keyId: string
  /** The client address, for the per-address budget. */
  address: string
}

/** What this process recently learnt about a key; `undefined` for a key it has not seen. */
export type KnownAs = 'working' | 'failing' | undefined

/**
 * Lets a key's request go on to be counted and looked up, or refuses it with 429 when it is
 * not recently seen and a budget is spent. Called before anything is counted for the key, so
 * an address over its budget adds no counters however many keys it makes up. A working key
 * not recently seen is refused alike: the refusal says nothing about the key.
 */
export async function admitKeyLookup(lookup: KeyLookup): Promise<KnownAs> {
  if (recentlyFailing.has(lookup.keyId)) return 'failing'
  if (recentlyWorking.has(lookup.keyId)) return 'working'
  const limiter = getRateLimiter()
  const wait = (missesRefusedUntil.get(limiter) ?? 0) - Date.now()
  if (wait > 0) throw new RateLimitedError(RATE_LIMITED, Math.ceil(wait / 1000))
  const perAddress = await limiter.limit(
    RATE_LIMITS.ingestKeyLookupsPerAddress,
    createHash('sha256').update(lookup.address).digest('base64url'),
  )
  if (!perAddress.success) throw new RateLimitedError(RATE_LIMITED, perAddress.retryAfterSeconds)
  return undefined
}

/** Resolves a key that `admitKeyLookup` let through, keeping the caches and the budget. */
export async function resolveAdmittedKey(
  db: DbOrTx,
  lookup: KeyLookup,
  knownAs: KnownAs,
): Promise<IngestPrincipal> {
  if (knownAs === 'failing') throw new UnauthorizedError(INVALID_API_KEY)
  try {
    const principal = await resolveIngestKey(db, lookup.key)
    recentlyWorking.set(lookup.keyId, true)
    return principal
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      recentlyWorking.delete(lookup.keyId)
      recentlyFailing.set(lookup.keyId, true)
      // The answer stays the key's 401 even if the limiter cannot be reached.
      await countMiss(getRateLimiter()).catch((countError: unknown) =>
        logger.warn({ err: countError }, 'could not count a failed ingest key'),
      )
    }
    throw error
  }
}

/**
 * The lookup that finds the budget spent has already happened: the database sees at most the
 * budget, plus one each time it reopens, plus the lookups in flight when it ran out.
 */
async function countMiss(limiter: RateLimiter): Promise<void> {
  const result = await limiter.limit(RATE_LIMITS.ingestKeyMisses, 'all')
  if (!result.success) missesRefusedUntil.set(limiter, Date.now() + result.retryAfterSeconds * 1000)
}
