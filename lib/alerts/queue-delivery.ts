import { and, eq, isNull } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import {
  alertMessages,
  integrationDeliveries,
  organizations,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/schema'
import { currentRequestId } from '@/lib/log'
import type { AlertContent } from './payloads'

export interface Destination {
  organizationId: string
  integrationId: string | null
  endpointId: string | null
}

export interface QueuedDeliveries {
  slack: string[]
  webhook: string[]
}

/**
 * Writes the delivery of one alert message in the caller's transaction: a Slack delivery with
 * the exact Block Kit JSON, or a webhook delivery whose envelope `id` is the message id (so a
 * receiver can de-duplicate retries). A webhook endpoint receives alerts only while active and
 * while its organization is on the paid plan, as with every other webhook event.
 */
export async function queueDelivery(
  tx: Tx,
  destination: Destination,
  message: { id: string; issueId: string | null; createdAt: Date },
  content: AlertContent,
  into: QueuedDeliveries,
): Promise<void> {
  const requestId = currentRequestId() ?? null
  if (destination.integrationId) {
    const [row] = await tx
      .insert(integrationDeliveries)
      .values({
        integrationId: destination.integrationId,
        organizationId: destination.organizationId,
        purpose: 'alert',
        alertMessageId: message.id,
        issueId: message.issueId,
        body: content.slackBody,
        requestId,
      })
      .onConflictDoNothing()
      .returning({ id: integrationDeliveries.id })
    if (!row) return
    await tx
      .update(alertMessages)
      .set({ integrationDeliveryId: row.id })
      .where(eq(alertMessages.id, message.id))
    into.slack.push(row.id)
    return
  }
  if (!destination.endpointId) return
  const [endpoint] = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .innerJoin(organizations, eq(organizations.id, webhookEndpoints.organizationId))
    .where(
      and(
        eq(webhookEndpoints.id, destination.endpointId),
        isNull(webhookEndpoints.revokedAt),
        eq(organizations.plan, 'paid'),
      ),
    )
  if (!endpoint) return
  const body = JSON.stringify({
    event: content.event,
    id: message.id,
    occurredAt: message.createdAt.toISOString(),
    data: content.data,
  })
  const [row] = await tx
    .insert(webhookDeliveries)
    .values({
      endpointId: endpoint.id,
      organizationId: destination.organizationId,
      eventId: message.id,
      eventType: content.event,
      body,
      requestId,
    })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id })
  if (!row) return
  await tx.update(alertMessages).set({ webhookDeliveryId: row.id }).where(eq(alertMessages.id, message.id))
  into.webhook.push(row.id)
}
