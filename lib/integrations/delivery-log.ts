import { desc, eq, inArray } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { integrationDeliveries, integrationDeliveryAttempts } from '@/db/schema'
import { getIntegration } from './list-integrations'

export const LOG_PAGE_SIZE = 25

/**
 * The delivery log of one integration, newest first, a page at a time: each delivery (a Slack
 * message, a ticket creation) with its attempts (status, duration, error label). Never what the
 * provider answered beyond its status: only what we sent and measured.
 */
export async function integrationDeliveryLog(
  db: DbOrTx,
  input: { organizationId: string; integrationId: string; page?: number; limit?: number },
) {
  const integration = await getIntegration(db, input.organizationId, input.integrationId)
  const limit = Math.min(Math.max(1, input.limit ?? LOG_PAGE_SIZE), 100)
  const page = Math.max(1, Math.floor(input.page ?? 1))
  const rows = await db
    .select({
      id: integrationDeliveries.id,
      purpose: integrationDeliveries.purpose,
      issueId: integrationDeliveries.issueId,
      status: integrationDeliveries.status,
      attempts: integrationDeliveries.attempts,
      nextAttemptAt: integrationDeliveries.nextAttemptAt,
      lastError: integrationDeliveries.lastError,
      createdAt: integrationDeliveries.createdAt,
    })
    .from(integrationDeliveries)
    .where(eq(integrationDeliveries.integrationId, integration.id))
    .orderBy(desc(integrationDeliveries.createdAt), desc(integrationDeliveries.id))
    .limit(limit + 1)
    .offset((page - 1) * limit)
  const deliveries = rows.slice(0, limit)
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(integrationDeliveryAttempts)
          .where(
            inArray(
              integrationDeliveryAttempts.deliveryId,
              deliveries.map((d) => d.id),
            ),
          )
          .orderBy(integrationDeliveryAttempts.attempt)
  return {
    integration,
    page,
    hasMore: rows.length > limit,
    deliveries: deliveries.map((d) => ({ ...d, log: attempts.filter((a) => a.deliveryId === d.id) })),
  }
}
