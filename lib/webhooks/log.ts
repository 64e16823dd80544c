import { and, desc, eq, inArray } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

/**
 * The delivery log of one endpoint, newest first: each delivery with its attempts (status,
 * duration, error label). Never a receiver's response body: only what we sent and measured.
 */
export async function deliveryLog(
  db: DbOrTx,
  input: { organizationId: string; endpointId: string; limit?: number },
) {
  if (!isUuid(input.endpointId)) throw new NotFoundError('Webhook endpoint not found')
  const [endpoint] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, input.endpointId),
        eq(webhookEndpoints.organizationId, input.organizationId),
      ),
    )
  if (!endpoint) throw new NotFoundError('Webhook endpoint not found')
  const deliveries = await db
    .select({
      id: webhookDeliveries.id,
      eventId: webhookDeliveries.eventId,
      eventType: webhookDeliveries.eventType,
      isTest: webhookDeliveries.isTest,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      createdAt: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpoint.id))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(Math.min(input.limit ?? 25, 100))
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(webhookDeliveryAttempts)
          .where(
            inArray(
              webhookDeliveryAttempts.deliveryId,
              deliveries.map((d) => d.id),
            ),
          )
          .orderBy(webhookDeliveryAttempts.attempt)
  return deliveries.map((d) => ({ ...d, log: attempts.filter((a) => a.deliveryId === d.id) }))
}
