import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { users } from '@/db/schema'
import { dummyPasswordHash, verifyPassword } from './password'
import { Email } from './schemas'

export interface AuthenticatedUser {
  id: string
  email: string
  name: string | null
}

/**
 * Checks an e-mail and password. Unknown e-mails still cost one scrypt verification so that
 * the answer time does not tell which addresses have accounts.
 */
export async function authenticate(
  db: Db,
  email: string,
  password: string,
): Promise<AuthenticatedUser | null> {
  const parsed = Email.safeParse(email)
  if (!parsed.success || typeof password !== 'string' || password.length > 1000) {
    await verifyPassword('x', await dummyPasswordHash())
    return null
  }
  const [user] = await db
    .select({ id: users.id, email: users.email, name: users.name, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, parsed.data))
  if (!user) {
    await verifyPassword(password, await dummyPasswordHash())
    return null
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null
  return { id: user.id, email: user.email, name: user.name }
}
