import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { oauthAccessTokens, oauthRefreshTokens, oauthTokenChains } from '@/db/schema'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { authenticateClient, type PresentedClient } from './authenticate-client'
import { InvalidRequestError } from './errors'
import { single } from './params'
import { revokeChains } from './revoke-chain'

/**
 * RFC 7009 token revocation. After client authentication, every token outcome is success:
 * unknown, expired, already revoked, or another client's (left alone, and not told apart,
 * so the endpoint reveals nothing about tokens the caller does not own). The prefix says
 * what a token is, so `token_type_hint` is accepted and not needed (§2.1 calls it advisory).
 * A refresh token takes its whole chain with it; an access token goes alone.
 */
export async function revokeTokenRequest(db: Db, form: URLSearchParams, presented: PresentedClient) {
  const token = single(form, 'token')
  single(form, 'token_type_hint')
  if (token === undefined) throw new InvalidRequestError('The token parameter is required')
  const client = await authenticateClient(db, presented)
  if (token.length > 200) return

  if (token.startsWith(TOKEN_PREFIXES.oauthRefresh)) {
    const [row] = await db
      .select({ chainId: oauthRefreshTokens.chainId })
      .from(oauthRefreshTokens)
      .innerJoin(oauthTokenChains, eq(oauthTokenChains.id, oauthRefreshTokens.chainId))
      .where(
        and(
          eq(oauthRefreshTokens.tokenHash, hashToken(token)),
          eq(oauthTokenChains.clientId, client.clientId),
        ),
      )
    if (row) {
      await revokeChains(db, [row.chainId])
      // Outside any transaction: committed, so the credential cache may forget now.
      forgetCredentials()
    }
    return
  }
  if (token.startsWith(TOKEN_PREFIXES.oauthAccess)) {
    const revoked = await db
      .update(oauthAccessTokens)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(oauthAccessTokens.tokenHash, hashToken(token)),
          eq(oauthAccessTokens.clientId, client.clientId),
          isNull(oauthAccessTokens.revokedAt),
        ),
      )
      .returning({ id: oauthAccessTokens.id })
    // Only a revocation that changed a row forgets: anyone with a client id may call this
    // endpoint with made-up tokens, and must not be able to empty the cache at will.
    if (revoked.length > 0) forgetCredentials()
  }
}
