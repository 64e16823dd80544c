import { createHash } from 'node:crypto'
import { getRateLimiter } from '@/lib/ratelimit'
import { TooManyRequestsError } from './errors'

/**
 * Registration is open to anyone (RFC 7591 without an initial access token), so each
 * address may register a bounded number of clients. 20 an hour covers a developer
 * restarting MCP clients all afternoon; the spec leaves the number open.
 */
export const REGISTRATION_RATE_LIMIT = { name: 'oauth-register-ip', limit: 20, windowSeconds: 60 * 60 }

/**
 * And the whole installation a bounded number: many addresses (a botnet, or clients that all
 * look alike behind a misconfigured proxy) cannot fill the clients table faster than 1,000 an
 * hour. Legitimate registrations are one per MCP client set-up, far below that.
 */
export const REGISTRATION_GLOBAL_RATE_LIMIT = {
  name: 'oauth-register-all',
  limit: 1000,
  windowSeconds: 60 * 60,
}

/** `address` is the caller's client address (lib/http/client-address.ts). */
export async function checkRegistrationRate(address: string): Promise<void> {
  const limiter = getRateLimiter()
  const ip = createHash('sha256').update(address).digest('base64url')
  const own = await limiter.limit(REGISTRATION_RATE_LIMIT, ip)
  if (!own.success)
    throw new TooManyRequestsError('Too many client registrations from this address', own.retryAfterSeconds)
  const all = await limiter.limit(REGISTRATION_GLOBAL_RATE_LIMIT, 'all')
  if (!all.success)
    throw new TooManyRequestsError('Too many client registrations, try again later', all.retryAfterSeconds)
}
