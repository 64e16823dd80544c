import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthAccessTokens, oauthRefreshTokens, oauthTokenChains } from '@/db/schema'

/**
 * Revokes token chains and every access and refresh token in them. Resolving a bearer token
 * already checks its chain; the tokens are marked too so that every row tells the truth.
 * The caller calls forgetCredentials() once its transaction has committed (never inside it).
 */
export async function revokeChains(db: DbOrTx, chainIds: string[]): Promise<void> {
  if (chainIds.length === 0) return
  await db
    .update(oauthTokenChains)
    .set({ revokedAt: sql`now()` })
    .where(and(inArray(oauthTokenChains.id, chainIds), isNull(oauthTokenChains.revokedAt)))
  await db
    .update(oauthAccessTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(inArray(oauthAccessTokens.chainId, chainIds), isNull(oauthAccessTokens.revokedAt)))
  await db
    .update(oauthRefreshTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(inArray(oauthRefreshTokens.chainId, chainIds), isNull(oauthRefreshTokens.revokedAt)))
}

/** A redeemed code presented again: everything issued from it goes (spec state table). */
export async function revokeChainsOfCode(db: DbOrTx, codeId: string): Promise<void> {
  const chains = await db
    .select({ id: oauthTokenChains.id })
    .from(oauthTokenChains)
    .where(eq(oauthTokenChains.authorizationCodeId, codeId))
  await revokeChains(
    db,
    chains.map((c) => c.id),
  )
}
