import { createHmac } from 'node:crypto'
import { constantTimeEqual } from '@/lib/crypto/constant-time'
import { deriveKey } from '@/lib/crypto/keys'
import type { AuthorizationRequest } from './authorize-request'

/** Long enough to read the page and decide; a new authorize request makes a new form. */
const MAX_AGE_SECONDS = 60 * 60

function mac(userId: string, request: AuthorizationRequest, issuedAt: number, secret?: string): string {
  const message = JSON.stringify([
    'oauth-consent',
    userId,
    issuedAt,
    request.client.clientId,
    request.redirectUri,
    request.codeChallenge,
    request.scope,
    request.resource,
    request.state ?? null,
  ])
  return createHmac('sha256', deriveKey('csrf-v1', secret)).update(message).digest('base64url')
}

/**
 * The consent form's CSRF token: an HMAC over the signed-in user and every parameter of the
 * pending request, so a token is good for one user approving one request and nothing else.
 * (The user id, not the session cookie: next-auth re-encrypts that cookie on every refresh,
 * which would break a form left open while the dashboard polls in another tab.)
 */
export function createCsrfToken(
  userId: string,
  request: AuthorizationRequest,
  now = Date.now(),
  secret?: string,
): string {
  const issuedAt = Math.floor(now / 1000)
  return `${issuedAt}.${mac(userId, request, issuedAt, secret)}`
}

export function verifyCsrfToken(
  token: string | null | undefined,
  userId: string,
  request: AuthorizationRequest,
  now = Date.now(),
  secret?: string,
): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '')
  if (!match) return false
  const issuedAt = Number(match[1])
  const age = Math.floor(now / 1000) - issuedAt
  if (age < 0 || age > MAX_AGE_SECONDS) return false
  return constantTimeEqual(match[2]!, mac(userId, request, issuedAt, secret))
}
