import { LRUCache } from 'lru-cache'

/**
 * How long a credential that resolved may be trusted without asking the database again. This
 * is the bound on revocation across server instances: a key or token revoked on one instance
 * may still be accepted by another for at most this long. On the instance that revokes it,
 * `forgetCredentials()` makes the next request ask the database at once.
 */
const CREDENTIAL_CACHE_TTL_MS = 5_000

const MAX_ENTRIES = 10_000

/** A resolved principal; boxed so that any value, whatever its type, can be cached. */
interface Entry {
  value: unknown
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
  resolve: () => Promise<T | null>,
): Promise<T | null> {
  const hit = shared.entries.get(cacheKey)
  if (hit) return hit.value as T
  const startedAt = shared.generation
  const found = await resolve()
  if (found === null) return null
  if (startedAt === shared.generation) shared.entries.set(cacheKey, { value: found })
  return found
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
