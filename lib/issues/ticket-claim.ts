import { and, eq, gt, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { integrationDeliveries } from '@/db/schema'

/**
 * How long a ticket creation in progress holds its issue: longer than the slowest call (two
 * timeouts and a Retry-After), so a second request never races it; a creation whose process died
 * frees the issue after it.
 */
export const CLAIM_SECONDS = 120

export const CLAIM_PENDING = 'A ticket is being created for this issue right now.'

/**
 * Whether a `ticket` delivery for the issue is in flight. Read under the issue's row lock, as the
 * claim is written under it, so a creation and a manual link never both proceed.
 */
export async function ticketClaimPending(db: DbOrTx, issueId: string): Promise<boolean> {
  const [running] = await db
    .select({ id: integrationDeliveries.id })
    .from(integrationDeliveries)
    .where(
      and(
        eq(integrationDeliveries.issueId, issueId),
        eq(integrationDeliveries.purpose, 'ticket'),
        eq(integrationDeliveries.status, 'pending'),
        gt(integrationDeliveries.createdAt, sql`now() - make_interval(secs => ${CLAIM_SECONDS})`),
      ),
    )
    .limit(1)
  return running !== undefined
}
