import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthAccessTokens, oauthConsents, oauthRefreshTokens } from '@/db/schema'
import type { Config } from '@/lib/config'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { lastUseStale } from '@/lib/db/last-used'

/** RFC 6749 §5.1, as the spec lists it. */
export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token?: string
  scope: string
}

export type TokenConfig = Pick<Config['oauth'], 'accessTokenTtlSeconds' | 'refreshTokenTtlDays'>

export interface ChainRef {
  id: string
  clientId: string
  organizationId: string
  consentId: string | null
  resource: string
}

const fromNow = (seconds: number) => sql`now() + (${seconds}::int * interval '1 second')`

/**
 * One access token (with the scope of this request) and, for clients allowed the
 * refresh_token grant, one refresh token (keeping the chain's full grant, so a narrowed
 * request does not shrink later ones). Only SHA-256 hashes are stored; expiry is set on the
 * database clock. Used by the code exchange, which holds the consent row (lockGrant) and so
 * also records its use there (Connected apps), at most once a minute; the client row is
 * touched after the commit (touchGrantUse), never inside a grant's transaction.
 */
export async function issueTokens(
  tx: DbOrTx,
  chain: ChainRef,
  grant: { accessScope: string; refreshScope: string; withRefresh: boolean },
  config: TokenConfig,
): Promise<TokenResponse> {
  const accessToken = generateToken(TOKEN_PREFIXES.oauthAccess)
  await tx.insert(oauthAccessTokens).values({
    tokenHash: hashToken(accessToken),
    chainId: chain.id,
    clientId: chain.clientId,
    organizationId: chain.organizationId,
    scope: grant.accessScope,
    resource: chain.resource,
    expiresAt: fromNow(config.accessTokenTtlSeconds),
  })
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: config.accessTokenTtlSeconds,
    scope: grant.accessScope,
  }
  if (grant.withRefresh) {
    const refreshToken = generateToken(TOKEN_PREFIXES.oauthRefresh)
    await tx.insert(oauthRefreshTokens).values({
      tokenHash: hashToken(refreshToken),
      chainId: chain.id,
      scope: grant.refreshScope,
      expiresAt: fromNow(config.refreshTokenTtlDays * 86_400),
    })
    response.refresh_token = refreshToken
  }
  if (chain.consentId)
    await tx
      .update(oauthConsents)
      .set({ lastUsedAt: sql`now()` })
      .where(and(eq(oauthConsents.id, chain.consentId), lastUseStale(oauthConsents.lastUsedAt)))
  return response
}
