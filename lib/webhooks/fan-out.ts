import { and, arrayContains, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, outbox, webhookEndpoints } from '@/db/schema'
import { currentRequestId } from '@/lib/log'
import { envelopeBody, parseWebhookData, type WebhookEvent, webhookEventOf } from './events'

export interface OutboxEventRef {
  /** The outbox event id: the envelope `id` and `Service-Webhook-Id` of every delivery. */
  eventId: string
  name: string
  /**
   * Used only when the outbox row is gone (pruned); the row is the source of truth. Either
   * payload is checked against the event catalogue before it is sent.
   */
  fallback?: { organizationId?: string; payload: unknown; occurredAt: Date }
}

/** Active endpoints subscribed to the event, of a paid organization (a free one keeps them configured but receives nothing). */
const receives = (event: WebhookEvent) =>
  and(
    eq(webhookEndpoints.organizationId, organizations.id),
    isNull(webhookEndpoints.revokedAt),
    arrayContains(webhookEndpoints.events, [event]),
  )

interface Source {
  organizationId: string | null
  payload: unknown
  occurredAt: Date
  endpointIds: string[]
}

/** The outbox row and its receiving endpoints in one query (one row per endpoint, or one with none). */
async function fromOutbox(db: DbOrTx, eventId: string, event: WebhookEvent): Promise<Source | null> {
  const rows = await db
    .select({
      organizationId: outbox.organizationId,
      payload: outbox.payload,
      occurredAt: outbox.occurredAt,
      endpointId: webhookEndpoints.id,
    })
    .from(outbox)
    .leftJoin(organizations, and(eq(organizations.id, outbox.organizationId), eq(organizations.plan, 'paid')))
    .leftJoin(webhookEndpoints, receives(event))
    .where(eq(outbox.eventId, eventId))
  const [first] = rows
  if (!first) return null
  return {
    organizationId: first.organizationId,
    payload: first.payload,
    occurredAt: first.occurredAt,
    endpointIds: rows.flatMap((r) => (r.endpointId ? [r.endpointId] : [])),
  }
}

async function endpointsOf(db: DbOrTx, organizationId: string, event: WebhookEvent): Promise<string[]> {
  const rows = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .innerJoin(organizations, receives(event))
    .where(and(eq(organizations.id, organizationId), eq(organizations.plan, 'paid')))
  return rows.map((r) => r.id)
}

const idsOf = (result: unknown): string[] =>
  (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])).map((r) =>
    String((r as { id: unknown }).id),
  )

/**
 * Writes one delivery row per active, subscribed endpoint of a paid organization, with the
 * envelope serialised once. The unique (endpoint, event id) index makes a re-run (a retried
 * job, a re-dispatched outbox row) a no-op. Returns the ids of the event's pending deliveries.
 * Two round trips in the common case: the outbox row with its endpoints, then one statement
 * that inserts the rows and returns the new ones with those a previous run left pending.
 */
export async function fanOutEvent(db: DbOrTx, ref: OutboxEventRef): Promise<string[]> {
  const event = webhookEventOf(ref.name)
  if (!event) return []
  let source = await fromOutbox(db, ref.eventId, event)
  if (!source && ref.fallback?.organizationId)
    source = {
      organizationId: ref.fallback.organizationId,
      payload: ref.fallback.payload,
      occurredAt: ref.fallback.occurredAt,
      endpointIds: await endpointsOf(db, ref.fallback.organizationId, event),
    }
  const organizationId = source?.organizationId
  if (!source || !organizationId || source.endpointIds.length === 0) return []
  // A payload that does not match its event throws here: no receiver is sent what the spec does not promise.
  const data = parseWebhookData(event, source.payload)
  const body = envelopeBody({ event, id: ref.eventId, occurredAt: source.occurredAt, data })
  // The fan-out runs under the event's request, so its deliveries' attempts log it too.
  const requestId = currentRequestId() ?? null
  const endpoints = sql.join(
    source.endpointIds.map((id) => sql`(${id}::uuid)`),
    sql`, `,
  )
  // The second select reads the table as it was before this statement's insert: together
  // they are the new rows and the ones still pending from an earlier run.
  const result = await db.execute(sql`
    with inserted as (
      insert into webhook_deliveries (endpoint_id, organization_id, event_id, event_type, body, request_id)
      select e.id, ${organizationId}::uuid, ${ref.eventId}::uuid, ${event}, ${body}, ${requestId}
      from (values ${endpoints}) as e (id)
      on conflict do nothing
      returning id
    )
    select id from inserted
    union
    select id from webhook_deliveries where event_id = ${ref.eventId}::uuid and status = 'pending'
  `)
  return idsOf(result)
}
