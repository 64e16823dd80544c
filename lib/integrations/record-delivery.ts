import { eq, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { integrationDeliveries, integrationDeliveryAttempts, integrations } from '@/db/schema'
import type { ProviderAttempt } from './provider-call'

interface ClaimedDelivery {
  deliveryId: string
  integrationId: string
}

async function saveAttempts(db: DbOrTx, deliveryId: string, attempts: readonly ProviderAttempt[]) {
  if (attempts.length > 0)
    await db.insert(integrationDeliveryAttempts).values(attempts.map((a) => ({ deliveryId, ...a })))
}

/**
 * The delivery's outcome, and the integration's last status, so Settings → Integrations shows a
 * rejected key (`bad_status:401`) before the next try. Takes a transaction: a success is closed
 * in the same one that links the ticket.
 */
export async function closeTicketDelivery(
  db: DbOrTx,
  claimed: ClaimedDelivery,
  attempts: readonly ProviderAttempt[],
  errorLabel: string | null,
): Promise<void> {
  const last = attempts.at(-1)
  await db
    .update(integrationDeliveries)
    .set({
      status: errorLabel ? 'failed' : 'succeeded',
      attempts: attempts.length,
      lastAttemptAt: last?.startedAt ?? sql`now()`,
      lastStatus: last?.httpStatus ?? null,
      lastError: errorLabel,
    })
    .where(eq(integrationDeliveries.id, claimed.deliveryId))
  await db
    .update(integrations)
    .set({ lastDeliveryAt: sql`now()`, lastStatus: last?.httpStatus ?? null, lastError: errorLabel })
    .where(eq(integrations.id, claimed.integrationId))
}

/** Closes a ticket delivery that created nothing: its attempts and its outcome, together. */
export async function recordTicketDelivery(
  db: Db,
  claimed: ClaimedDelivery,
  attempts: readonly ProviderAttempt[],
  errorLabel: string | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    await saveAttempts(tx, claimed.deliveryId, attempts)
    await closeTicketDelivery(tx, claimed, attempts, errorLabel)
  })
}

/**
 * Records a ticket the provider created, before it is linked: the attempts, and the ticket's
 * address in the delivery's body next to the text sent. The delivery stays pending (its claim
 * keeps holding the issue), and whatever happens to the link, the address is not lost.
 */
export async function recordCreatedTicket(
  db: Db,
  claimed: ClaimedDelivery,
  attempts: readonly ProviderAttempt[],
  body: Record<string, unknown>,
): Promise<void> {
  await db.transaction(async (tx) => {
    await saveAttempts(tx, claimed.deliveryId, attempts)
    await tx
      .update(integrationDeliveries)
      .set({ body: JSON.stringify(body) })
      .where(eq(integrationDeliveries.id, claimed.deliveryId))
  })
}
