import type { Db } from '@/db/client'
import { memberships, type Role } from '@/db/schema'
import { ForbiddenError, NotFoundError } from '@/lib/errors'
import { consumeInvitation } from './consume-invitation'
import { findInvitation } from './find-invitation'
import { INVALID_INVITATION } from './invitation-link'

export interface AcceptedInvitation {
  organizationId: string
  role: Role
  /** True when the account was already a member (the invitation is used up all the same). */
  alreadyMember: boolean
}

/**
 * A signed-in account accepts an invitation: single use, and only the invited address may
 * accept (compared case-insensitively). The membership and the acceptance commit together.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  user: { id: string; email: string },
): Promise<AcceptedInvitation> {
  const invitation = await findInvitation(db, token)
  if (invitation?.status !== 'pending') throw new NotFoundError(INVALID_INVITATION)
  if (invitation.email !== user.email.trim().toLowerCase())
    throw new ForbiddenError(
      `This invitation is for ${invitation.email}, but you are signed in as ${user.email}. Sign out, then sign in or create an account as ${invitation.email}.`,
    )
  return db.transaction(async (tx) => {
    const accepted = await consumeInvitation(tx, token, user.email)
    const inserted = await tx
      .insert(memberships)
      .values({ organizationId: accepted.organizationId, userId: user.id, role: accepted.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId })
    return {
      organizationId: accepted.organizationId,
      role: accepted.role,
      alreadyMember: inserted.length === 0,
    }
  })
}
