import { and, arrayContains, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, outbox, webhookDeliveries, webhookEndpoints } from '@/db/schema'
import { currentRequestId } from '@/lib/log'
import { envelopeBody, OUTBOX_TO_WEBHOOK } from './events'

export interface OutboxEventRef {
  /** The outbox event id: the envelope `id` and `Service-Webhook-Id` of every delivery. */
  eventId: string
  name: string
  /** Used only when the outbox row is gone (pruned); the row is the source of truth. */
  fallback?: { organizationId?: string; payload: Record<string, unknown>; occurredAt: Date }
}

/**
 * Writes one delivery row per active, subscribed endpoint of a paid organization, with the
 * envelope serialised once. The unique (endpoint, event id) index makes a re-run (a retried
 * job, a re-dispatched outbox row) a no-op. Returns the ids of the event's pending deliveries.
 */
export async function fanOutEvent(db: DbOrTx, ref: OutboxEventRef): Promise<string[]> {
  const event = OUTBOX_TO_WEBHOOK[ref.name]
  if (!event) return []
  const [row] = await db
    .select({ organizationId: outbox.organizationId, payload: outbox.payload, occurredAt: outbox.occurredAt })
    .from(outbox)
    .where(eq(outbox.eventId, ref.eventId))
  const source = row ?? ref.fallback
  const organizationId = source?.organizationId
  if (!source || !organizationId) return []
  const endpoints = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .innerJoin(organizations, eq(organizations.id, webhookEndpoints.organizationId))
    .where(
      and(
        eq(webhookEndpoints.organizationId, organizationId),
        isNull(webhookEndpoints.revokedAt),
        arrayContains(webhookEndpoints.events, [event]),
        // Downgraded to free: endpoints stay configured but receive nothing.
        eq(organizations.plan, 'paid'),
      ),
    )
  if (endpoints.length === 0) return []
  const body = envelopeBody({ event, id: ref.eventId, occurredAt: source.occurredAt, data: source.payload })
  await db
    .insert(webhookDeliveries)
    .values(
      endpoints.map((e) => ({
        endpointId: e.id,
        organizationId,
        eventId: ref.eventId,
        eventType: event,
        body,
        // The fan-out runs under the event's request, so its deliveries' attempts log it too.
        requestId: currentRequestId() ?? null,
      })),
    )
    .onConflictDoNothing()
  const pending = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, ref.eventId), eq(webhookDeliveries.status, 'pending')))
  return pending.map((p) => p.id)
}
