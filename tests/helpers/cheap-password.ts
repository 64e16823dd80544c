import { randomBytes, scryptSync } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { users } from '@/db/schema'

/**
 * A stored password hash in the service's own format (`scrypt$N$r$p$salt$hash`, see
 * lib/users/password.ts) with N=2^10 instead of 2^15: verifyPassword reads the parameters from
 * the hash, so sign-ins run the real check at a 32nd of the cost (~6 ms instead of ~180 ms of
 * CPU). For suites that sign the same users in dozens of times to test what surrounds the check
 * (limits, sessions); the cost parameters themselves are tested in tests/unit.
 */
export function cheapPasswordHash(password: string): string {
  const N = 2 ** 10
  const r = 8
  const p = 1
  const salt = randomBytes(16)
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N, r, p })
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Gives the user of `email` a cheap hash of `password` (see cheapPasswordHash). */
export async function setCheapPassword(db: Db, email: string, password: string): Promise<void> {
  await db
    .update(users)
    .set({ passwordHash: cheapPasswordHash(password) })
    .where(eq(users.email, email))
}
