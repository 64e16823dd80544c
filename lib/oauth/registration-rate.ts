import { createHash } from 'node:crypto'
import { getRateLimiter } from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { TooManyRequestsError } from './errors'

/**
 * Registration is open to anyone (RFC 7591), so it is bounded per address and in all
 * (lib/ratelimit/policies.ts). `address` is the caller's client address (lib/ratelimit/client-address.ts). */
export async function checkRegistrationRate(address: string): Promise<void> {
  const limiter = getRateLimiter()
  const ip = createHash('sha256').update(address).digest('base64url')
  const own = await limiter.limit(RATE_LIMITS.oauthRegisterPerAddress, ip)
  if (!own.success)
    throw new TooManyRequestsError('Too many client registrations from this address', own.retryAfterSeconds)
  const all = await limiter.limit(RATE_LIMITS.oauthRegisterAll, 'all')
  if (!all.success)
    throw new TooManyRequestsError('Too many client registrations, try again later', all.retryAfterSeconds)
}
