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

interface CredentialCache {
  entries: LRUCache<string, Entry>
  /**
   * Bumped by every revocation. A lookup that started before a revocation must not store what
   * it read (the row may have been read before the revocation committed); it compares the
   * generation it started with when it finishes.
   */
  generation: number
}

/**
 * One cache per process, on globalThis: Next may load this module more than once (a route
 * handler and a server action in different bundles or layers, dev-mode reloads), and a
 * revocation in Settings must clear the very cache the Data API reads.
 */
const holder = globalThis as typeof globalThis & { __serviceCredentialCache?: CredentialCache }
holder.__serviceCredentialCache ??= {
  entries: new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: CREDENTIAL_CACHE_TTL_MS }),
  generation: 0,
}
const shared = holder.__serviceCredentialCache

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
  const hit = shared.entries.get(cacheKey)
  if (hit && hit.validUntil > now()) return hit.value as T
  const startedAt = shared.generation
  const found = await resolve()
  if (!found) return null
  if (startedAt === shared.generation) {
    shared.entries.set(cacheKey, {
      value: found.value,
      validUntil: found.validUntil ?? Number.POSITIVE_INFINITY,
    })
  }
  return found.value
}

/**
 * Call after any write that can make a resolved credential invalid (a key, token, chain or
 * consent revoked, a member removed, an organization deleted) has committed. Revocations are
 * rare, so everything is dropped rather than tracking which entries a revocation touches.
 */
export function forgetCredentials(): void {
  shared.generation += 1
  shared.entries.clear()
}
