import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthConsents, organizations } from '@/db/schema'

/**
 * Serialises issuing tokens with revoking what they are issued under. Every writer takes its
 * locks in one order, organization → consent → chain, so they queue rather than deadlock:
 *
 * - Removing a member locks the organization row FOR UPDATE before deleting the membership;
 *   the KEY SHARE taken here (the lock the access token's foreign key would take anyway, only
 *   earlier) waits for that removal to commit, so the membership read afterwards sees it gone;
 *   or it makes the removal wait until the new token is committed, where its sweep finds it.
 * - Revoking a consent updates the consent row; FOR UPDATE here either waits for that and
 *   reads the revocation, or makes the revocation wait until the new chain is committed.
 *
 * The refresh grant takes the same locks in the same order in one statement
 * (lock-refresh-grant.ts), the consent there FOR SHARE so that refreshes of one consent do
 * not queue on each other.
 *
 * Returns whether the consent is still in force (true when the grant predates consents).
 */
export async function lockGrant(
  tx: DbOrTx,
  grant: { organizationId: string; consentId: string | null },
): Promise<boolean> {
  await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, grant.organizationId))
    .for('key share')
  if (!grant.consentId) return true
  const [consent] = await tx
    .select({ revokedAt: oauthConsents.revokedAt })
    .from(oauthConsents)
    .where(eq(oauthConsents.id, grant.consentId))
    .for('update')
  return consent !== undefined && consent.revokedAt === null
}
