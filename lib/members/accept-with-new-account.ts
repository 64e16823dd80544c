import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { memberships, type Role, users } from '@/db/schema'
import { ConflictError, isUniqueViolation, NotFoundError } from '@/lib/errors'
import { hashPassword } from '@/lib/users/password'
import { Password, PersonName } from '@/lib/users/schemas'
import { parseInput } from '@/lib/validation'
import { consumeInvitation } from './consume-invitation'
import { findInvitation } from './find-invitation'
import { INVALID_INVITATION } from './invitation-link'

export interface AccountFromInvitation {
  userId: string
  /** The invited address, which is the new account's e-mail (the person cannot choose another). */
  email: string
  organizationId: string
  role: Role
}

const accountExists = (email: string) =>
  `An account with ${email} already exists. Sign in with it, then open this invitation link again to accept.`

/**
 * Creates the invited person's account and membership and uses up the invitation, all in one
 * transaction: a failure anywhere leaves the invitation pending and no account behind.
 */
export async function acceptInvitationWithNewAccount(
  db: Db,
  token: string,
  input: { name?: string; password: string },
): Promise<AccountFromInvitation> {
  const name = parseInput(PersonName, input.name)
  const password = parseInput(Password, input.password)
  const invitation = await findInvitation(db, token)
  if (invitation?.status !== 'pending') throw new NotFoundError(INVALID_INVITATION)
  const email = invitation.email
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email))
  if (existing) throw new ConflictError(accountExists(email))
  const passwordHash = await hashPassword(password)
  try {
    return await db.transaction(async (tx) => {
      const accepted = await consumeInvitation(tx, token, email)
      const [user] = await tx
        .insert(users)
        .values({ email, name: name || null, passwordHash })
        .returning({ id: users.id })
      await tx
        .insert(memberships)
        .values({ organizationId: accepted.organizationId, userId: user!.id, role: accepted.role })
      return { userId: user!.id, email, organizationId: accepted.organizationId, role: accepted.role }
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(accountExists(email))
    throw error
  }
}
