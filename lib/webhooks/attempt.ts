import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { webhookDeliveries, webhookEndpoints } from '@/db/schema'
import { logger, withLogContext } from '@/lib/log'
import type { Deliverer, DeliveryOutcome } from './deliver'
import type { AttemptRecord } from './record-attempts'
import { decryptSecret } from './secrets'

/** How long a claimed delivery stays invisible to other workers: above the 10 s deadline. */
export const CLAIM_LEASE_SECONDS = 60

/**
 * A claimed delivery not yet started this long after its claim is left alone (unsent) until
 * the lease runs out and a later claim takes it: started any later, its attempt (10 s) and
 * its bookkeeping could outlast the lease, and another worker could send it a second time.
 */
export const START_WITHIN_MS = (CLAIM_LEASE_SECONDS - 20) * 1000

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

export interface DeliveryWithEndpoint {
  delivery: typeof webhookDeliveries.$inferSelect
  endpoint: typeof webhookEndpoints.$inferSelect
}

/**
 * Reads every claimed delivery with its endpoint in one query, oldest first. A row that
 * changed since the claim (another worker recorded it, a revocation cancelled it) is left
 * out; a revoked endpoint's deliveries come back apart, to be cancelled without sending.
 */
export async function loadClaimed(
  db: Db,
  claimed: readonly ClaimedDelivery[],
): Promise<{ due: DeliveryWithEndpoint[]; revoked: string[] }> {
  if (claimed.length === 0) return { due: [], revoked: [] }
  const expected = new Map(claimed.map((c) => [c.id, c.attempts]))
  const rows = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.id, [...expected.keys()]))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
  const due: DeliveryWithEndpoint[] = []
  const revoked: string[] = []
  for (const row of rows) {
    if (row.delivery.status !== 'pending' || row.delivery.attempts !== expected.get(row.delivery.id)) continue
    if (row.endpoint.revokedAt) revoked.push(row.delivery.id)
    else due.push(row)
  }
  return { due, revoked }
}

/** A revoked endpoint receives nothing more: its claimed deliveries end cancelled, unsent. */
export async function cancelDeliveries(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .update(webhookDeliveries)
    .set({ status: 'cancelled' })
    .where(and(inArray(webhookDeliveries.id, [...ids]), eq(webhookDeliveries.status, 'pending')))
}

/** Sends one loaded delivery's frozen body with its endpoint's secret. */
export function sendDelivery(
  deliver: Deliverer,
  { delivery, endpoint }: DeliveryWithEndpoint,
  secret: string,
): Promise<DeliveryOutcome> {
  return deliver({
    url: endpoint.url,
    secret,
    body: delivery.body,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    test: delivery.isTest,
  })
}

/** What an attempt's outcome means for its delivery: done, failed for good, or retried after a delay. */
export function attemptRecord(
  { delivery, endpoint }: DeliveryWithEndpoint,
  outcome: DeliveryOutcome,
  delays: readonly number[],
): AttemptRecord & { result: 'succeeded' | 'retrying' | 'failed' } {
  const delay = delays[delivery.attempts]
  const result = outcome.ok ? 'succeeded' : retryable(outcome) && delay !== undefined ? 'retrying' : 'failed'
  return {
    deliveryId: delivery.id,
    endpointId: endpoint.id,
    expectedAttempts: delivery.attempts,
    outcome,
    status: result === 'retrying' ? 'pending' : result,
    retryDelaySeconds: result === 'retrying' ? (delay ?? 0) : null,
    result,
  }
}

/**
 * The secret of each endpoint, decrypted once per batch rather than once per delivery. One
 * that cannot be decrypted is left out (and logged): its deliveries stay claimed until the
 * lease runs out, as when an attempt's bookkeeping fails.
 */
export function secretsOf(rows: readonly DeliveryWithEndpoint[]): Map<string, string> {
  const secrets = new Map<string, string>()
  const failed = new Set<string>()
  for (const { endpoint } of rows) {
    if (secrets.has(endpoint.id) || failed.has(endpoint.id)) continue
    try {
      secrets.set(endpoint.id, decryptSecret(endpoint.secretCiphertext))
    } catch (error) {
      failed.add(endpoint.id)
      logger.error({ err: error, endpointId: endpoint.id }, 'webhook secret could not be decrypted')
    }
  }
  return secrets
}

/**
 * A delivery loaded this long ago re-checks its endpoint before sending: sends wait in a
 * queue, and a revocation meanwhile must still stop them (spec "Delivery rules" 8).
 */
export const REVOCATION_RECHECK_MS = 1000

/** Whether the endpoint is still active; false once revoked (or deleted). */
export async function endpointActive(db: Db, endpointId: string): Promise<boolean> {
  const [row] = await db
    .select({ revokedAt: webhookEndpoints.revokedAt })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, endpointId))
  return row !== undefined && row.revokedAt === null
}

/** The log line of one recorded attempt; never the URL: receivers put tokens in it. */
export function logAttempt(row: DeliveryWithEndpoint, record: ReturnType<typeof attemptRecord>): void {
  const { outcome, result } = record
  withLogContext(
    {
      requestId: row.delivery.requestId ?? undefined,
      organizationId: row.delivery.organizationId,
      deliveryId: row.delivery.id,
    },
    () =>
      logger[result === 'succeeded' ? 'info' : 'warn'](
        {
          endpointId: row.endpoint.id,
          eventId: row.delivery.eventId,
          eventType: row.delivery.eventType,
          attempt: row.delivery.attempts + 1,
          httpStatus: outcome.status,
          errorLabel: outcome.label,
          durationMs: outcome.durationMs,
          result,
        },
        result === 'succeeded' ? 'webhook delivered' : 'webhook attempt failed',
      ),
  )
}
