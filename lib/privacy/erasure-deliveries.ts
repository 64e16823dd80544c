import { and, eq, inArray, isNotNull, isNull, ne, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { integrationDeliveries, jobRuns, outbox, webhookDeliveries } from '@/db/schema'
import { ALERT_SOURCE_EVENTS } from '@/lib/alerts/events'
import { OUTBOX_TO_WEBHOOK } from '@/lib/webhooks/events'

/** What a redacted delivery's stored body becomes: valid JSON that names nobody. */
export const REDACTED_BODY = JSON.stringify({ redacted: 'erasure' })

export interface DeliveryCounts {
  deliveriesCancelled: number
  deliveriesRedacted: number
  eventsDropped: number
}

// Outbox events whose payload goes out to receivers; session.finalize and the privacy events
// carry ids only and are left to find nothing.
const SENT_EVENTS = [...new Set([...Object.keys(OUTBOX_TO_WEBHOOK), ...ALERT_SOURCE_EVENTS])]

function mentions(column: SQL, needles: string[], caseless: boolean): SQL {
  const terms = needles.map((needle) =>
    caseless
      ? sql`position(lower(${needle}) in lower(${column})) > 0`
      : sql`position(${needle} in ${column}) > 0`,
  )
  return sql`(${sql.join(terms, sql` or `)})`
}

/**
 * Stops webhook and Slack messages about erased data from going out again
 * (docs/privacy.md#erasure): deliveries whose stored body names an erased session, a deleted
 * issue or the person are cancelled if still pending and their body replaced; outbox events
 * not yet sent that name them are dropped, and dispatched ones keep no payload to fan out.
 * `caseless` for an e-mail address, which the sessions filter matches in any case.
 */
export async function silenceDeliveries(
  tx: DbOrTx,
  organizationId: string,
  needles: string[],
  options: { caseless?: boolean } = {},
): Promise<DeliveryCounts> {
  const counts: DeliveryCounts = { deliveriesCancelled: 0, deliveriesRedacted: 0, eventsDropped: 0 }
  const present = needles.filter((needle) => needle.length > 0)
  if (present.length === 0) return counts
  const caseless = options.caseless === true
  for (const table of [webhookDeliveries, integrationDeliveries]) {
    const rows = await tx
      .update(table)
      .set({
        status: sql`case when ${table.status} = 'pending' then 'cancelled' else ${table.status} end`,
        nextAttemptAt: sql`case when ${table.status} = 'pending' then null else ${table.nextAttemptAt} end`,
        body: REDACTED_BODY,
      })
      .where(
        and(
          eq(table.organizationId, organizationId),
          ne(table.body, REDACTED_BODY),
          mentions(sql`${table.body}`, present, caseless),
        ),
      )
      .returning({ status: table.status })
    counts.deliveriesRedacted += rows.length
    counts.deliveriesCancelled += rows.filter((row) => row.status === 'cancelled').length
  }
  const sent = and(
    eq(outbox.organizationId, organizationId),
    inArray(outbox.name, SENT_EVENTS),
    mentions(sql`${outbox.payload}::text`, present, caseless),
  )
  const dropped = await tx
    .delete(outbox)
    .where(and(sent, isNull(outbox.dispatchedAt)))
    .returning({ id: outbox.id })
  counts.eventsDropped += dropped.length
  await tx
    .update(outbox)
    .set({ payload: { orgId: organizationId, redacted: 'erasure' } })
    .where(and(sent, isNotNull(outbox.dispatchedAt)))
  return counts
}

/**
 * Job runs of the in-process engine keep a session's analysis (findings, evidence, trail) as
 * memoized step results: the runs of erased sessions go, whatever their state (a run still
 * going finds its session gone and stops).
 */
export async function forgetJobRuns(tx: DbOrTx, sessionIds: string[]): Promise<number> {
  if (sessionIds.length === 0) return 0
  const deleted = await tx
    .delete(jobRuns)
    .where(inArray(sql`${jobRuns.payload}->>'sessionId'`, sessionIds))
    .returning({ id: jobRuns.id })
  return deleted.length
}
