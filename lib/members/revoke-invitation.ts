import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { invitations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

const NOT_PENDING =
  'This invitation is no longer pending: it was accepted or revoked already. Reload the page.'

/** Makes a pending invitation's link stop working. Only within the caller's organization. */
export async function revokeInvitation(
  db: DbOrTx,
  input: { organizationId: string; id: string },
): Promise<{ id: string; email: string }> {
  if (!isUuid(input.id) || !isUuid(input.organizationId)) throw new NotFoundError(NOT_PENDING)
  const [row] = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(invitations.id, input.id),
        eq(invitations.organizationId, input.organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ id: invitations.id, email: invitations.email })
  if (!row) throw new NotFoundError(NOT_PENDING)
  return row
}
