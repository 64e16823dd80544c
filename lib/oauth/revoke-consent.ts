import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { oauthConsents, oauthTokenChains } from '@/db/schema'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { isUuid, NotFoundError } from '@/lib/errors'
import { revokeChains } from './revoke-chain'

/**
 * Withdraws one of the user's consents and everything issued under it: every token chain
 * (access and refresh tokens) goes now, and codes not yet redeemed are refused at the token
 * endpoint. Another user's consent, an unknown id or a revoked one is "not found".
 * The consent row is updated first: an exchange or refresh holding it (lockGrant) finishes
 * before the chains are read here, so the chain it commits is revoked too.
 */
export async function revokeConsent(db: Db, userId: string, consentId: string): Promise<void> {
  if (!isUuid(consentId)) throw new NotFoundError('Connected app not found')
  await db.transaction(async (tx) => {
    const [consent] = await tx
      .update(oauthConsents)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(oauthConsents.id, consentId),
          eq(oauthConsents.userId, userId),
          isNull(oauthConsents.revokedAt),
        ),
      )
      .returning({ id: oauthConsents.id })
    if (!consent) throw new NotFoundError('Connected app not found')
    const chains = await tx
      .select({ id: oauthTokenChains.id })
      .from(oauthTokenChains)
      .where(eq(oauthTokenChains.consentId, consent.id))
    await revokeChains(
      tx,
      chains.map((c) => c.id),
    )
  })
  // After the commit: a lookup that ran meanwhile read the rows before it and is not cached.
  forgetCredentials()
}
