import { hkdfSync } from 'node:crypto'
import { getConfig } from '@/lib/config'

/**
 * Purpose-bound keys derived from AUTH_SECRET with HKDF-SHA256, so that one secret in the
 * environment never signs two kinds of thing with the same key (cursors, CSRF tokens,
 * webhook-secret encryption).
 */
export type KeyPurpose =
  | 'cursor-v1'
  | 'csrf-v1'
  | 'webhook-secret-v1'
  | 'integration-secret-v1'
  /** Privacy requests' person identifiers, sealed while the request runs. */
  | 'privacy-person-v1'
  /** The key-encryption key of session data keys when DATA_ENCRYPTION_KEYS is not set. */
  | 'session-data-kek-v1'

const cache = new Map<string, Buffer>()

export function deriveKey(purpose: KeyPurpose, secret = getConfig().authSecret): Buffer {
  const cacheKey = `${purpose}\n${secret}`
  let key = cache.get(cacheKey)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'session-replay-issues', purpose, 32))
    cache.set(cacheKey, key)
  }
  return key
}
