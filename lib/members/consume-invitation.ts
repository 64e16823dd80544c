import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { invitations, type Role } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { ConflictError } from '@/lib/errors'
import { INVALID_INVITATION } from './invitation-link'

/**
 * Marks an invitation accepted in one conditional update: of two concurrent acceptances
 * exactly one gets the row back, and an expired, revoked or used link gets nothing.
 */
export async function consumeInvitation(
  tx: Tx,
  token: string,
  email: string,
): Promise<{ organizationId: string; role: Role; email: string }> {
  const [row] = await tx
    .update(invitations)
    .set({ acceptedAt: sql`now()` })
    .where(
      and(
        eq(invitations.tokenHash, hashToken(token)),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, sql`now()`),
        eq(sql`lower(${invitations.email})`, email.trim().toLowerCase()),
      ),
    )
    .returning({
      organizationId: invitations.organizationId,
      role: invitations.role,
      email: invitations.email,
    })
  if (!row) throw new ConflictError(INVALID_INVITATION)
  return row
}
