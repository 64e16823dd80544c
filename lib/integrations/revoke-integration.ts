import { and, eq, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { integrationDeliveries, integrations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

/**
 * Disconnects an integration: `revoked_at` is set (its tracker slot is free at once) and its
 * pending deliveries are cancelled in the same transaction, so no Slack retry goes out after.
 * A `ticket` delivery still pending is a creation in flight, not a retry: it is left alone, so
 * its claim keeps holding the issue and the ticket it creates is still recorded and linked.
 * The row and its delivery log stay. Disconnecting twice keeps the first time.
 */
export async function revokeIntegration(db: Db, input: { id: string; organizationId: string }) {
  if (!isUuid(input.id)) throw new NotFoundError('Integration not found')
  const scope = and(eq(integrations.id, input.id), eq(integrations.organizationId, input.organizationId))
  return db.transaction(async (tx) => {
    await tx
      .update(integrations)
      .set({ revokedAt: sql`now()` })
      .where(and(scope, isNull(integrations.revokedAt)))
    const [row] = await tx
      .select({ id: integrations.id, revokedAt: integrations.revokedAt })
      .from(integrations)
      .where(scope)
    if (!row?.revokedAt) throw new NotFoundError('Integration not found')
    await tx
      .update(integrationDeliveries)
      .set({ status: 'cancelled' })
      .where(
        and(
          eq(integrationDeliveries.integrationId, row.id),
          eq(integrationDeliveries.status, 'pending'),
          ne(integrationDeliveries.purpose, 'ticket'),
        ),
      )
    return { id: row.id, revokedAt: row.revokedAt }
  })
}
