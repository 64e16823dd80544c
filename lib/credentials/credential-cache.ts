import { LRUCache } from 'lru-cache'

/**
 * How long a credential that resolved may be trusted without asking the database again. This
 * is the bound on revocation across server instances: a key or token revoked on one instance
 * may still be accepted by another for at most this long. On the instance that revokes it,
 * `forgetCredentials()` makes the next request ask the database at once.
 */
export const CREDENTIAL_CACHE_TTL_MS = 5_000

const MAX_ENTRIES = 10_000

interface Entry {
  value: unknown
  /** Absolute time after which the credential itself is no longer valid (OAuth expiry). */
  validUntil: number
}

const cache = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: CREDENTIAL_CACHE_TTL_MS })

/**
 * Bumped by every revocation. A lookup that started before a revocation must not store what
 * it read (the row may have been read before the revocation committed); it compares the
 * generation it started with when it finishes.
 */
let generation = 0

/**
 * The cached principal for a credential hash, or what `resolve` finds and caches. Only
 * successful resolutions are kept: a new key works at once and an unknown one always asks
 * the database (the ingest lookup budgets already bound that).
 */
export async function cachedCredential<T>(
  cacheKey: string,
  resolve: () => Promise<{ value: T; validUntil?: number } | null>,
  now: () => number = Date.now,
): Promise<T | null> {
  const hit = cache.get(cacheKey)
  if (hit && hit.validUntil > now()) return hit.value as T
  const startedAt = generation
  const found = await resolve()
  if (!found) return null
  if (startedAt === generation) {
    cache.set(cacheKey, { value: found.value, validUntil: found.validUntil ?? Number.POSITIVE_INFINITY })
  }
  return found.value
}

/**
 * Call after any write that can make a resolved credential invalid (a key, token, chain or
 * consent revoked, a member removed, an organization deleted) has committed. Revocations are
 * rare, so everything is dropped rather than tracking which entries a revocation touches.
 */
export function forgetCredentials(): void {
  generation += 1
  cache.clear()
}
