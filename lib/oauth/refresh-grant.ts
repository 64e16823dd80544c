import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { memberships, oauthRefreshTokens, oauthTokenChains } from '@/db/schema'
import type { Config } from '@/lib/config'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { InvalidGrantError, InvalidScopeError, InvalidTargetError } from './errors'
import type { OAuthClient } from './find-client'
import { issueTokens, type TokenConfig, type TokenResponse } from './issue-tokens'
import { lockGrant } from './lock-grant'
import { resolveResource } from './metadata'
import { required, single } from './params'
import { revokeChains } from './revoke-chain'
import { formatScope, isSubset, parseScope } from './scopes'

type RefreshConfig = {
  baseUrl: string
  oauth: TokenConfig & Pick<Config['oauth'], 'refreshReuseGraceSeconds'>
}

const INVALID_TOKEN = 'The refresh token is invalid'

/** The presented token, read after the chain lock so that a concurrent rotation is seen. */
async function readToken(tx: DbOrTx, id: string, graceSeconds: number) {
  const [row] = await tx
    .select({
      id: oauthRefreshTokens.id,
      scope: oauthRefreshTokens.scope,
      rotatedAt: oauthRefreshTokens.rotatedAt,
      revokedAt: oauthRefreshTokens.revokedAt,
      live: sql<boolean>`${oauthRefreshTokens.expiresAt} > now()`,
      // The immediately previous token, rotated within the grace window (docs/design/oauth-mcp.md decision 10). The
      // wall clock, not now(): now() is when this transaction began, which may precede a
      // rotation that committed while it waited for the lock.
      inGrace: sql<boolean>`${oauthRefreshTokens.rotatedAt} is not null
        and ${oauthRefreshTokens.rotatedAt} > clock_timestamp() - (${graceSeconds}::int * interval '1 second')
        and ${oauthRefreshTokens.rotatedAt} = (select max(r.rotated_at) from oauth_refresh_tokens r
          where r.chain_id = ${oauthRefreshTokens.chainId})`,
    })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.id, id))
  return { ...row!, inGrace: graceSeconds > 0 && row!.inGrace }
}

/** Read after lockGrant, so that a concurrent removal has either committed or waits for us. */
async function stillMember(tx: DbOrTx, chain: typeof oauthTokenChains.$inferSelect): Promise<boolean> {
  // Someone removed from the organization keeps nothing through a refresh token.
  const [member] = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.userId, chain.userId), eq(memberships.organizationId, chain.organizationId)))
  return member !== undefined
}

/**
 * The refresh_token grant (RFC 6749 §6, RFC 9700 §4.14.2): refreshes of one chain are
 * serialized by a row lock on the chain, taken after the grant's locks (lockGrant) so that a
 * concurrent consent revocation or member removal either refuses the refresh or revokes
 * what it issues; the presented token is rotated (compare-and-swap on
 * `rotated_at`) and a new pair issued. A rotated token presented again revokes the whole
 * chain, and that revocation is committed even though the request fails; within
 * OAUTH_REFRESH_REUSE_GRACE_SECONDS the immediately previous token gets a fresh pair instead.
 */
export async function refreshTokenGrant(
  db: Db,
  client: OAuthClient,
  params: URLSearchParams,
  config: RefreshConfig,
): Promise<TokenResponse> {
  const token = required(params, 'refresh_token')
  const requested = single(params, 'scope')
  const resources = params.getAll('resource')
  if (!token.startsWith(TOKEN_PREFIXES.oauthRefresh) || token.length > 200)
    throw new InvalidGrantError(INVALID_TOKEN)
  const [found] = await db
    .select({
      id: oauthRefreshTokens.id,
      chainId: oauthRefreshTokens.chainId,
      // Never change on a chain: safe to read before the locks, which need them.
      organizationId: oauthTokenChains.organizationId,
      consentId: oauthTokenChains.consentId,
    })
    .from(oauthRefreshTokens)
    .innerJoin(oauthTokenChains, eq(oauthTokenChains.id, oauthRefreshTokens.chainId))
    .where(eq(oauthRefreshTokens.tokenHash, hashToken(token)))
  if (!found) throw new InvalidGrantError(INVALID_TOKEN)

  const outcome = await db.transaction(async (tx) => {
    // Before the chain lock: the one lock order (organization → consent → chain) revocations use.
    const consentInForce = await lockGrant(tx, found)
    const [chain] = await tx
      .select()
      .from(oauthTokenChains)
      .where(eq(oauthTokenChains.id, found.chainId))
      .for('update')
    if (!chain || chain.clientId !== client.clientId) throw new InvalidGrantError(INVALID_TOKEN)
    if (chain.revokedAt) throw new InvalidGrantError('The refresh token was revoked')
    const presented = await readToken(tx, found.id, config.oauth.refreshReuseGraceSeconds)
    if (presented.revokedAt) throw new InvalidGrantError('The refresh token was revoked')
    const reused = presented.rotatedAt !== null
    if (reused && !presented.inGrace) {
      await revokeChains(tx, [chain.id])
      return 'reuse' as const
    }
    if (!presented.live) throw new InvalidGrantError('The refresh token expired')
    if (!consentInForce || !(await stillMember(tx, chain)))
      throw new InvalidGrantError('The grant was revoked')

    const granted = parseScope(presented.scope)
    const asked = requested === undefined ? granted : parseScope(requested)
    if (asked.length === 0 || !isSubset(asked, granted))
      throw new InvalidScopeError('The requested scope exceeds the scope granted')
    if (resources.length > 0 && resolveResource(resources, config) !== chain.resource)
      throw new InvalidTargetError('The resource differs from the original grant')

    if (!reused) {
      const [rotated] = await tx
        .update(oauthRefreshTokens)
        .set({ rotatedAt: sql`now()` })
        .where(and(eq(oauthRefreshTokens.id, presented.id), isNull(oauthRefreshTokens.rotatedAt)))
        .returning({ id: oauthRefreshTokens.id })
      // The chain lock makes this unreachable; the compare-and-swap keeps it safe without one.
      if (!rotated) throw new InvalidGrantError(INVALID_TOKEN)
    }
    return issueTokens(
      tx,
      chain,
      { accessScope: formatScope(asked), refreshScope: presented.scope, withRefresh: true },
      config.oauth,
    )
  })
  if (outcome === 'reuse') {
    // The chain's revocation has committed (the transaction returned): forget cached tokens.
    forgetCredentials()
    throw new InvalidGrantError('The refresh token was already used')
  }
  return outcome
}
