import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { getRateLimiter } from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'

/** The error code the login page turns into "too many attempts". */
export const SIGN_IN_RATE_LIMITED = 'RateLimited'

/**
 * One account from anywhere: failed attempts only, and never a refusal (a refusal here would
 * let anyone lock the owner out). After FREE_FAILURES failures in the window, every further
 * attempt at the account waits before its password is checked: 250 ms, doubling per failure,
 * at most MAX_DELAY_MS. A sequential guesser is slowed to one guess per 5 s per account; the
 * owner, however many failures strangers pile up, waits at most 5 s and then signs in.
 * The counter only ever counts (its limit is never reached; lib/ratelimit/policies.ts).
 */
export const FREE_FAILURES = 10
const BASE_DELAY_MS = 250
export const MAX_DELAY_MS = 5_000

/**
 * The rate-limiter port can only count, not read, so each process remembers the failure count
 * the limiter answered at an account's latest failure (shared across processes with Upstash,
 * so any instance that saw a recent failure knows the installation-wide count). Bounded, and
 * forgotten with the window.
 */
const lastKnownFailures = new LRUCache<string, number>({
  max: 10_000,
  ttl: RATE_LIMITS.signInAccountFailures.windowSeconds * 1000,
})

let sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Tests observe the delays instead of waiting them out. */
export function setSignInSleepForTests(replacement: ((ms: number) => Promise<void>) | undefined): void {
  sleep = replacement ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
}

/** Identifiers are hashed: bounded in size whatever the input, and no e-mail in Redis. */
function key(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('base64url')
}

function accountKey(email: string): string {
  return key(email.trim().toLowerCase())
}

export function signInDelayMs(failures: number): number {
  if (failures < FREE_FAILURES) return 0
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(failures - FREE_FAILURES, 8))
}

/** The per-address limits; counts this attempt. */
export async function checkSignInRate(email: string, ip: string): Promise<{ allowed: boolean }> {
  const limiter = getRateLimiter()
  const account = email.trim().toLowerCase()
  const results = await Promise.all([
    limiter.limit(RATE_LIMITS.signInPerAccountAndAddress, key(account, ip)),
    limiter.limit(RATE_LIMITS.signInPerAddress, key(ip)),
  ])
  return { allowed: results.every((r) => r.success) }
}

/** Waits the account's current delay (0 until FREE_FAILURES failures); call before checking the password. */
export async function delayForAccount(email: string): Promise<void> {
  const delay = signInDelayMs(lastKnownFailures.get(accountKey(email)) ?? 0)
  if (delay > 0) await sleep(delay)
}

/** Counts one failed attempt (wrong password or unknown account) against the account. */
export async function recordFailedSignIn(email: string): Promise<void> {
  const account = accountKey(email)
  const result = await getRateLimiter().limit(RATE_LIMITS.signInAccountFailures, account)
  lastKnownFailures.set(account, result.limit - result.remaining)
}

export async function checkSignUpRate(ip: string): Promise<{ allowed: boolean }> {
  const result = await getRateLimiter().limit(RATE_LIMITS.signUpPerAddress, key(ip))
  return { allowed: result.success }
}
