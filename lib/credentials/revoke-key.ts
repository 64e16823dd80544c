import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { operatorActor } from '@/lib/audit/operator'
import { recordAudit } from '@/lib/audit/record'
import { isUuid, NotFoundError } from '@/lib/errors'
import { forgetCredentials } from './credential-cache'

/**
 * Revokes a key. Revoking twice is not an error: the answer keeps the first revocation time.
 * With `organizationId` (the dashboard), a key of another organization is "not found".
 */
export async function revokeKey(
  db: DbOrTx,
  input: {
    id: string
    organizationId?: string
    /** Who the audit trail names; by default the admin CLI. */
    actor?: Omit<Actor, 'organizationId'>
  },
): Promise<{ id: string; revokedAt: Date }> {
  if (!isUuid(input.id)) throw new NotFoundError(`Key not found: ${input.id}`)
  const scope = input.organizationId
    ? and(eq(credentials.id, input.id), eq(credentials.organizationId, input.organizationId))
    : eq(credentials.id, input.id)
  // The revocation and its `key.revoked` entry commit together; a second revocation records nothing.
  const updated = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(credentials)
      .set({ revokedAt: sql`now()` })
      .where(and(scope, isNull(credentials.revokedAt)))
      .returning({
        id: credentials.id,
        organizationId: credentials.organizationId,
        name: credentials.name,
        revokedAt: credentials.revokedAt,
      })
    if (row)
      await recordAudit(
        tx,
        { ...(input.actor ?? operatorActor(row.organizationId)), organizationId: row.organizationId },
        {
          action: 'key.revoked',
          targetType: 'credential',
          targetId: row.id,
          metadata: { name: row.name },
        },
      )
    return row
  })
  if (updated?.revokedAt) {
    // Callers pass the pool, not a transaction, so the revocation has committed here.
    forgetCredentials()
    return { id: updated.id, revokedAt: updated.revokedAt }
  }
  const [existing] = await db
    .select({ id: credentials.id, revokedAt: credentials.revokedAt })
    .from(credentials)
    .where(scope)
  if (!existing?.revokedAt) throw new NotFoundError(`Key not found: ${input.id}`)
  return { id: existing.id, revokedAt: existing.revokedAt }
}
