import { createHash } from 'node:crypto'
import { getRateLimiter } from '@/lib/ratelimit'

/** The error code the login page turns into "too many attempts". */
export const SIGN_IN_RATE_LIMITED = 'RateLimited'

// One account from one address: slows guessing a password. One address: slows spraying
// many accounts. One account from anywhere: a looser cap against distributed guessing that
// a stranger cannot use to lock a user out as cheaply as with the first rule alone.
const PER_ACCOUNT_AND_ADDRESS = { name: 'signin-account-ip', limit: 10, windowSeconds: 15 * 60 }
const PER_ADDRESS = { name: 'signin-ip', limit: 50, windowSeconds: 15 * 60 }
const PER_ACCOUNT = { name: 'signin-account', limit: 100, windowSeconds: 15 * 60 }
const SIGN_UP_PER_ADDRESS = { name: 'signup-ip', limit: 10, windowSeconds: 60 * 60 }

/** Identifiers are hashed: bounded in size whatever the input, and no e-mail in Redis. */
function key(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('base64url')
}

export async function checkSignInRate(email: string, ip: string): Promise<{ allowed: boolean }> {
  const limiter = getRateLimiter()
  const account = email.trim().toLowerCase()
  const results = await Promise.all([
    limiter.limit(PER_ACCOUNT_AND_ADDRESS, key(account, ip)),
    limiter.limit(PER_ADDRESS, key(ip)),
    limiter.limit(PER_ACCOUNT, key(account)),
  ])
  return { allowed: results.every((r) => r.success) }
}

export async function checkSignUpRate(ip: string): Promise<{ allowed: boolean }> {
  const result = await getRateLimiter().limit(SIGN_UP_PER_ADDRESS, key(ip))
  return { allowed: result.success }
}

/**
 * The client address for rate limiting. `x-real-ip` and the first `x-forwarded-for` entry
 * are set by the hosting proxy (Vercel, nginx); without a proxy a client can forge them, so
 * self-hosted installations should put one in front (README, "Deploying").
 */
export function clientAddress(headers: { get(name: string): string | null }): string {
  const real = headers.get('x-real-ip')?.trim()
  const forwarded = headers.get('x-forwarded-for')?.split(',')[0]?.trim()
  return (real || forwarded || 'unknown').slice(0, 64)
}
