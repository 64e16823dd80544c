import { eq, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { integrationDeliveries, integrationDeliveryAttempts, integrations } from '@/db/schema'
import type { ProviderAttempt } from './provider-call'

/**
 * Closes a ticket delivery: its attempts, its outcome, and the integration's last status, so
 * Settings → Integrations shows a rejected key (`bad_status:401`) before the next try.
 */
export async function recordTicketDelivery(
  db: Db,
  claimed: { deliveryId: string; integrationId: string },
  attempts: readonly ProviderAttempt[],
  errorLabel: string | null,
): Promise<void> {
  const last = attempts.at(-1)
  await db.transaction(async (tx) => {
    if (attempts.length > 0)
      await tx
        .insert(integrationDeliveryAttempts)
        .values(attempts.map((a) => ({ deliveryId: claimed.deliveryId, ...a })))
    await tx
      .update(integrationDeliveries)
      .set({
        status: errorLabel ? 'failed' : 'succeeded',
        attempts: attempts.length,
        lastAttemptAt: last?.startedAt ?? sql`now()`,
        lastStatus: last?.httpStatus ?? null,
        lastError: errorLabel,
      })
      .where(eq(integrationDeliveries.id, claimed.deliveryId))
    await tx
      .update(integrations)
      .set({ lastDeliveryAt: sql`now()`, lastStatus: last?.httpStatus ?? null, lastError: errorLabel })
      .where(eq(integrations.id, claimed.integrationId))
  })
}
