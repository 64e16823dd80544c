import { createHash } from 'node:crypto'
import { constantTimeEqual } from '@/lib/crypto/constant-time'

/** RFC 7636 §4.2, tightened by the spec: 43 to 128 base64url characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

export function isValidCodeChallenge(value: string | null | undefined): value is string {
  return typeof value === 'string' && CODE_CHALLENGE.test(value)
}

function isValidCodeVerifier(value: string | null | undefined): value is string {
  return typeof value === 'string' && CODE_VERIFIER.test(value)
}

/** BASE64URL(SHA256(ASCII(verifier))), the only method we accept (S256). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

/** RFC 7636 §4.6, compared in constant time (the challenge is not secret, the habit is cheap). */
export function verifyCodeVerifier(verifier: string | null | undefined, challenge: string): boolean {
  if (!isValidCodeVerifier(verifier)) return false
  return constantTimeEqual(s256(verifier), challenge)
}
