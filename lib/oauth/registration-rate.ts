import { createHash } from 'node:crypto'
import { clientAddress } from '@/lib/auth/sign-in-rate'
import { getRateLimiter } from '@/lib/ratelimit'
import { TooManyRequestsError } from './errors'

/**
 * Registration is open to anyone (RFC 7591 without an initial access token), so each
 * address may register a bounded number of clients. 20 an hour covers a developer
 * restarting MCP clients all afternoon; the spec leaves the number open.
 */
export const REGISTRATION_RATE_LIMIT = { name: 'oauth-register-ip', limit: 20, windowSeconds: 60 * 60 }

export async function checkRegistrationRate(headers: { get(name: string): string | null }): Promise<void> {
  const ip = createHash('sha256').update(clientAddress(headers)).digest('base64url')
  const result = await getRateLimiter().limit(REGISTRATION_RATE_LIMIT, ip)
  if (!result.success)
    throw new TooManyRequestsError(
      'Too many client registrations from this address',
      result.retryAfterSeconds,
    )
}
