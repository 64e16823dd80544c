import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { integrationDeliveries, integrationDeliveryAttempts, integrations } from '@/db/schema'
import { getConfig } from '@/lib/config'
import { decryptIntegrationSecret } from '@/lib/integrations/secrets'
import { type SlackSendOutcome, sendSlackMessage } from '@/lib/integrations/slack'
import { slackWebhookUrlProblem } from '@/lib/integrations/slack-url'
import { logger, withLogContext } from '@/lib/log'
import { CLAIM_LEASE_SECONDS, START_WITHIN_MS } from '@/lib/webhooks/attempt'

/**
 * The Slack side of alert deliveries, with the webhooks' rules: claim due rows under a lease
 * (a worker that dies leaves them to the next claim), one attempt each, the outcome written
 * with the claimed attempt count as a guard (two sweeps never both record), retries after
 * `config.webhooks.retryDelaysSeconds`. Only `alert` deliveries are retried here: tickets are
 * created once while the user waits. A claimed row not started within START_WITHIN_MS of its
 * claim is left unsent for a later claim (as the webhooks' sweep does): started later, its
 * attempt and bookkeeping could outlast the lease while another sweep re-claims and sends it.
 */

export interface SlackSweepOptions {
  delays: readonly number[]
  /** Only these deliveries (the first attempt right after an alert is decided). */
  ids?: string[]
  batch?: number
  concurrency?: number
  /** Test seam: the per-attempt deadline. */
  timeoutMs?: number
  /** Test seam: how long after its claim a row may still start (START_WITHIN_MS). */
  startWithinMs?: number
}

type Delivery = typeof integrationDeliveries.$inferSelect
type Outcome = Omit<SlackSendOutcome, 'retryAfterSeconds'> & { retryAfterSeconds: number | null }

async function claim(db: Db, limit: number, ids: string[] | undefined) {
  const due = db
    .select({ id: integrationDeliveries.id })
    .from(integrationDeliveries)
    .where(
      and(
        eq(integrationDeliveries.status, 'pending'),
        eq(integrationDeliveries.purpose, 'alert'),
        lte(integrationDeliveries.nextAttemptAt, sql`now()`),
        ids ? inArray(integrationDeliveries.id, ids) : undefined,
      ),
    )
    .orderBy(asc(integrationDeliveries.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true })
  return db
    .update(integrationDeliveries)
    .set({ nextAttemptAt: sql`now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})` })
    .where(inArray(integrationDeliveries.id, due))
    .returning()
}

/** What an outcome means: done, failed for good (4xx but 429, a refused URL, no retries left), or retried. */
export function nextStep(
  outcome: Outcome,
  attemptsBefore: number,
  delays: readonly number[],
): { status: 'succeeded' | 'failed' | 'pending'; retrySeconds: number | null } {
  if (outcome.ok) return { status: 'succeeded', retrySeconds: null }
  const delay = delays[attemptsBefore]
  const permanent =
    outcome.label === 'url_unsafe' ||
    (outcome.status !== null && outcome.status >= 400 && outcome.status < 500 && outcome.status !== 429)
  if (permanent || delay === undefined) return { status: 'failed', retrySeconds: null }
  // Slack's Retry-After is the earliest it will take the message: never sooner than it says.
  return { status: 'pending', retrySeconds: Math.max(delay, outcome.retryAfterSeconds ?? 0) }
}

/** The attempt's log row, the delivery's new state (guarded by the claimed count) and the integration's last delivery. */
async function record(db: Db, delivery: Delivery, outcome: Outcome, delays: readonly number[]) {
  const step = nextStep(outcome, delivery.attempts, delays)
  await db.transaction(async (tx) => {
    await tx
      .insert(integrationDeliveryAttempts)
      .values({
        deliveryId: delivery.id,
        attempt: delivery.attempts + 1,
        startedAt: outcome.startedAt,
        durationMs: outcome.durationMs,
        httpStatus: outcome.status,
        errorLabel: outcome.label,
      })
      .onConflictDoNothing()
    await tx
      .update(integrationDeliveries)
      .set({
        attempts: delivery.attempts + 1,
        status: step.status,
        lastAttemptAt: outcome.startedAt,
        lastStatus: outcome.status,
        lastError: outcome.label,
        ...(step.retrySeconds !== null
          ? { nextAttemptAt: sql`now() + make_interval(secs => ${step.retrySeconds})` }
          : {}),
      })
      .where(
        and(
          eq(integrationDeliveries.id, delivery.id),
          eq(integrationDeliveries.status, 'pending'),
          eq(integrationDeliveries.attempts, delivery.attempts),
        ),
      )
    await tx
      .update(integrations)
      .set({ lastDeliveryAt: outcome.startedAt, lastStatus: outcome.status, lastError: outcome.label })
      .where(
        and(
          eq(integrations.id, delivery.integrationId),
          or(isNull(integrations.lastDeliveryAt), lte(integrations.lastDeliveryAt, outcome.startedAt)),
        ),
      )
  })
  return step
}

/** One claimed delivery: re-checks the integration and its URL now (a stored URL is not trusted), then sends. */
async function attempt(db: Db, delivery: Delivery, options: SlackSweepOptions): Promise<boolean> {
  const [integration] = await db
    .select()
    .from(integrations)
    .where(eq(integrations.id, delivery.integrationId))
  if (!integration || integration.revokedAt || integration.kind !== 'slack') {
    await db
      .update(integrationDeliveries)
      .set({ status: 'cancelled' })
      .where(and(eq(integrationDeliveries.id, delivery.id), eq(integrationDeliveries.status, 'pending')))
    return false
  }
  const url = decryptIntegrationSecret(integration.secretCiphertext)
  const outcome: Outcome = slackWebhookUrlProblem(url, getConfig().integrations.slackWebhookHosts)
    ? {
        ok: false,
        status: null,
        label: 'url_unsafe',
        retryAfterSeconds: null,
        startedAt: new Date(),
        durationMs: 0,
      }
    : await sendSlackMessage(url, delivery.body, { timeoutMs: options.timeoutMs })
  const step = await record(db, delivery, outcome, options.delays)
  // Never the URL: it is the secret.
  withLogContext(
    {
      requestId: delivery.requestId ?? undefined,
      organizationId: delivery.organizationId,
      deliveryId: delivery.id,
    },
    () =>
      logger[outcome.ok ? 'info' : 'warn'](
        {
          integrationId: integration.id,
          alertMessageId: delivery.alertMessageId,
          attempt: delivery.attempts + 1,
          httpStatus: outcome.status,
          errorLabel: outcome.label,
          durationMs: outcome.durationMs,
          result: step.status === 'pending' ? 'retrying' : step.status,
        },
        outcome.ok ? 'slack alert delivered' : 'slack alert attempt failed',
      ),
  )
  return true
}

/** Attempts every due Slack alert delivery (or only `ids`); returns how many attempts were made. */
export async function deliverDueSlack(db: Db, options: SlackSweepOptions): Promise<number> {
  if (options.ids && options.ids.length === 0) return 0
  const batch = options.batch ?? 50
  const concurrency = options.concurrency ?? 8
  const startWithin = options.startWithinMs ?? START_WITHIN_MS
  let attempted = 0
  for (let round = 0; round < 20; round++) {
    const claimed = await claim(db, batch, options.ids)
    if (claimed.length === 0) break
    const claimedAt = performance.now()
    const queue = [...claimed]
    let late = false
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        // Too late to finish inside the lease: left pending, the next claim after the lease takes it.
        if (performance.now() - claimedAt > startWithin) {
          late = true
          continue
        }
        try {
          if (await attempt(db, next, options)) attempted++
        } catch (error) {
          // Bookkeeping failed: the lease runs out and a later sweep sends it again.
          logger.error({ err: error, deliveryId: next.id }, 'slack alert attempt failed')
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker))
    // Rows left unstarted stay leased: claiming again now would find only others, and a slow
    // Slack would leave those late too.
    if (options.ids || late) break
  }
  return attempted
}
