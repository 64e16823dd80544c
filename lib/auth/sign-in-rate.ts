import { getRateLimiter } from '@/lib/ratelimit'

/** The error code the login page turns into "too many attempts". */
export const SIGN_IN_RATE_LIMITED = 'RateLimited'

// Per account: slows guessing one password; per address: slows spraying many accounts.
const PER_EMAIL = { name: 'signin-email', limit: 10, windowSeconds: 15 * 60 }
const PER_IP = { name: 'signin-ip', limit: 50, windowSeconds: 15 * 60 }

export async function checkSignInRate(email: string, ip: string): Promise<{ allowed: boolean }> {
  const limiter = getRateLimiter()
  const [byEmail, byIp] = await Promise.all([
    limiter.limit(PER_EMAIL, email.trim().toLowerCase() || '(empty)'),
    limiter.limit(PER_IP, ip),
  ])
  return { allowed: byEmail.success && byIp.success }
}
