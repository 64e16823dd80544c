import { createHash, timingSafeEqual } from 'node:crypto'

function digest(value: string | Uint8Array): Buffer {
  return createHash('sha256').update(value).digest()
}

/**
 * Whether a presented secret (a client secret's hash, a CSRF MAC, a PKCE challenge) equals
 * the expected one, in a time that depends on neither value's content. Both sides are hashed
 * first, so the comparison is always of 32 bytes: `timingSafeEqual` throws on unequal lengths,
 * and a length check in front of it would return early exactly when the lengths differ.
 * Strings are compared as their UTF-8 bytes.
 */
export function constantTimeEqual(presented: string | Uint8Array, expected: string | Uint8Array): boolean {
  return timingSafeEqual(digest(presented), digest(expected))
}
