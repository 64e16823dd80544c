import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '@/db/schema'
import { logger, withLogContext } from '@/lib/log'
import type { Deliverer, DeliveryOutcome } from './deliver'
import { decryptSecret } from './secrets'

/** How long a claimed delivery stays invisible to other workers: above the 10 s deadline. */
export const CLAIM_LEASE_SECONDS = 60

export interface ClaimedDelivery {
  id: string
  attempts: number
}

/**
 * Claims due pending deliveries by pushing their next attempt past a lease; a worker that
 * dies mid-attempt leaves them to be picked up again once the lease runs out.
 */
export async function claimDueDeliveries(
  db: Db,
  options: { limit: number; ids?: string[]; leaseSeconds?: number },
): Promise<ClaimedDelivery[]> {
  if (options.ids && options.ids.length === 0) return []
  const due = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        lte(webhookDeliveries.nextAttemptAt, sql`now()`),
        options.ids ? inArray(webhookDeliveries.id, options.ids) : undefined,
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(options.limit)
    .for('update', { skipLocked: true })
  return db
    .update(webhookDeliveries)
    .set({
      nextAttemptAt: sql`now() + make_interval(secs => ${options.leaseSeconds ?? CLAIM_LEASE_SECONDS})`,
    })
    .where(inArray(webhookDeliveries.id, due))
    .returning({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
}

/** Retry on anything but a refused URL: receivers fix their certificates and outages. */
function retryable(outcome: DeliveryOutcome): boolean {
  return !outcome.ok && outcome.label !== 'url_unsafe'
}

/** The endpoint's "last delivery" columns, never moved back by an attempt that finished late. */
export async function recordOnEndpoint(db: Db, endpointId: string, outcome: DeliveryOutcome): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ lastDeliveryAt: outcome.startedAt, lastStatus: outcome.status, lastError: outcome.label })
    .where(
      and(
        eq(webhookEndpoints.id, endpointId),
        or(isNull(webhookEndpoints.lastDeliveryAt), lte(webhookEndpoints.lastDeliveryAt, outcome.startedAt)),
      ),
    )
}

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'cancelled' | 'skipped'

/**
 * One attempt of one claimed delivery: re-reads the endpoint (revoked: cancel, send nothing),
 * sends the frozen body, records the attempt, and schedules the next one from `delays`.
 */
export async function attemptDelivery(
  db: Db,
  deliver: Deliverer,
  claimed: ClaimedDelivery,
  delays: readonly number[],
): Promise<AttemptResult> {
  const [row] = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, claimed.id))
  if (row?.delivery.status !== 'pending' || row.delivery.attempts !== claimed.attempts) return 'skipped'
  const { delivery, endpoint } = row
  if (endpoint.revokedAt) {
    await db
      .update(webhookDeliveries)
      .set({ status: 'cancelled' })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending')))
    return 'cancelled'
  }
  return withLogContext(
    {
      requestId: delivery.requestId ?? undefined,
      organizationId: delivery.organizationId,
      deliveryId: delivery.id,
    },
    () => sendAndRecord(db, deliver, row, delays),
  )
}

type DeliveryWithEndpoint = {
  delivery: typeof webhookDeliveries.$inferSelect
  endpoint: typeof webhookEndpoints.$inferSelect
}

async function sendAndRecord(
  db: Db,
  deliver: Deliverer,
  { delivery, endpoint }: DeliveryWithEndpoint,
  delays: readonly number[],
): Promise<AttemptResult> {
  const outcome = await deliver({
    url: endpoint.url,
    secret: decryptSecret(endpoint.secretCiphertext),
    body: delivery.body,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    test: delivery.isTest,
  })
  const attempt = delivery.attempts + 1
  const delay = delays[delivery.attempts]
  const result: AttemptResult = outcome.ok
    ? 'succeeded'
    : retryable(outcome) && delay !== undefined
      ? 'retrying'
      : 'failed'
  await db.transaction(async (tx) => {
    await tx
      .insert(webhookDeliveryAttempts)
      .values({
        deliveryId: delivery.id,
        attempt,
        startedAt: outcome.startedAt,
        durationMs: outcome.durationMs,
        httpStatus: outcome.status,
        errorLabel: outcome.label,
      })
      .onConflictDoNothing()
    // Guarded by the attempt count and status: a revocation meanwhile keeps `cancelled`.
    await tx
      .update(webhookDeliveries)
      .set({
        attempts: attempt,
        status: result === 'retrying' ? 'pending' : result,
        lastAttemptAt: outcome.startedAt,
        lastStatus: outcome.status,
        lastError: outcome.label,
        nextAttemptAt:
          result === 'retrying'
            ? sql`now() + make_interval(secs => ${delay ?? 0})`
            : webhookDeliveries.nextAttemptAt,
      })
      .where(
        and(
          eq(webhookDeliveries.id, delivery.id),
          eq(webhookDeliveries.status, 'pending'),
          eq(webhookDeliveries.attempts, delivery.attempts),
        ),
      )
  })
  await recordOnEndpoint(db, endpoint.id, outcome)
  // Never the URL: receivers put tokens in it.
  logger[result === 'succeeded' ? 'info' : 'warn'](
    {
      endpointId: endpoint.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      attempt,
      httpStatus: outcome.status,
      errorLabel: outcome.label,
      durationMs: outcome.durationMs,
      result,
    },
    result === 'succeeded' ? 'webhook delivered' : 'webhook attempt failed',
  )
  return result
}
