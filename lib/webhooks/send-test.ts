import { randomUUID } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '@/db/schema'
import { isUuid, NotFoundError, RateLimitedError } from '@/lib/errors'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import type { RateLimiter } from '@/lib/ratelimit/types'
import { recordOnEndpoint } from './attempt'
import type { Deliverer, DeliveryOutcome } from './deliver'
import { requirePaidPlan } from './endpoints'
import { envelopeBody, type WebhookEvent } from './events'
import { decryptSecret } from './secrets'
import { syntheticData } from './synthetic-data'

/**
 * Send test: one synthetic event with `Service-Webhook-Test: 1`, one attempt, no retries.
 * It is logged like any delivery so the delivery log shows what the receiver answered.
 */
export async function sendTestEvent(
  db: Db,
  deliver: Deliverer,
  limiter: RateLimiter,
  input: { organizationId: string; endpointId: string; event: WebhookEvent },
): Promise<DeliveryOutcome & { eventId: string }> {
  await requirePaidPlan(db, input.organizationId)
  if (!isUuid(input.endpointId)) throw new NotFoundError('Webhook endpoint not found')
  const [endpoint] = await db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, input.endpointId),
        eq(webhookEndpoints.organizationId, input.organizationId),
        isNull(webhookEndpoints.revokedAt),
      ),
    )
  if (!endpoint) throw new NotFoundError('Webhook endpoint not found')
  for (const [rule, key] of [
    [RATE_LIMITS.webhookTestPerOrganization, input.organizationId],
    [RATE_LIMITS.webhookTestPerEndpoint, endpoint.id],
  ] as const) {
    const verdict = await limiter.limit(rule, key)
    if (!verdict.success)
      throw new RateLimitedError(
        `Too many test events; try again in ${verdict.retryAfterSeconds} s.`,
        verdict.retryAfterSeconds,
      )
  }
  const eventId = randomUUID()
  const body = envelopeBody({
    event: input.event,
    id: eventId,
    occurredAt: new Date(),
    data: syntheticData(input.event, input.organizationId),
  })
  const outcome = await deliver({
    url: endpoint.url,
    secret: decryptSecret(endpoint.secretCiphertext),
    body,
    eventId,
    eventType: input.event,
    test: true,
  })
  await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({
        endpointId: endpoint.id,
        organizationId: input.organizationId,
        eventId,
        eventType: input.event,
        body,
        isTest: true,
        status: outcome.ok ? 'succeeded' : 'failed',
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptAt: outcome.startedAt,
        lastStatus: outcome.status,
        lastError: outcome.label,
      })
      .returning({ id: webhookDeliveries.id })
    await tx.insert(webhookDeliveryAttempts).values({
      deliveryId: row!.id,
      attempt: 1,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      httpStatus: outcome.status,
      errorLabel: outcome.label,
    })
  })
  await recordOnEndpoint(db, endpoint.id, outcome)
  return { ...outcome, eventId }
}
