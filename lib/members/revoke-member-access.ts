import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthConsents, oauthTokenChains } from '@/db/schema'
import { revokeChains } from '@/lib/oauth/revoke-chain'

/**
 * Someone who leaves an organization keeps no access to it through the apps they connected:
 * their consents for it and every token chain issued under them go now, not when the access
 * tokens expire. Their access to other organizations is untouched. Called after the caller
 * locked the organization row, which a concurrent exchange or refresh also holds (lockGrant),
 * so whatever they issue is committed before the chains are read here, or not at all.
 * The caller calls forgetCredentials() after its transaction commits (removeMember does).
 */
export async function revokeMemberAccess(
  tx: DbOrTx,
  input: { organizationId: string; userId: string },
): Promise<void> {
  const ofMember = (table: typeof oauthConsents | typeof oauthTokenChains) =>
    and(
      eq(table.organizationId, input.organizationId),
      eq(table.userId, input.userId),
      isNull(table.revokedAt),
    )
  await tx.update(oauthConsents).set({ revokedAt: sql`now()` }).where(ofMember(oauthConsents))
  const chains = await tx
    .select({ id: oauthTokenChains.id })
    .from(oauthTokenChains)
    .where(ofMember(oauthTokenChains))
  await revokeChains(
    tx,
    chains.map((c) => c.id),
  )
}
