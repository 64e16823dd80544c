import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { invitations, type Role, users } from '@/db/schema'
import { isUuid } from '@/lib/errors'

export interface PendingInvitation {
  id: string
  email: string
  role: Role
  invitedBy: string | null
  createdAt: Date
  expiresAt: Date
}

/** Invitations that can still be accepted, newest first. */
export async function listPendingInvitations(
  db: DbOrTx,
  organizationId: string,
): Promise<PendingInvitation[]> {
  if (!isUuid(organizationId)) return []
  return db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      invitedBy: sql<string | null>`coalesce(${users.name}, ${users.email})`,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedByUserId))
    .where(
      and(
        eq(invitations.organizationId, organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, sql`now()`),
      ),
    )
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
}
