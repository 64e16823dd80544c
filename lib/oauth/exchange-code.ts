import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { oauthAuthorizationCodes, oauthTokenChains } from '@/db/schema'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { InvalidGrantError, InvalidTargetError } from './errors'
import type { OAuthClient } from './find-client'
import { issueTokens, type TokenConfig, type TokenResponse } from './issue-tokens'
import { lockGrant } from './lock-grant'
import { resolveResource } from './metadata'
import { required } from './params'
import { verifyCodeVerifier } from './pkce'
import { revokeChainsOfCode } from './revoke-chain'
import { touchGrantUse } from './touch-grant-use'

const INVALID_CODE = 'The authorization code is invalid'

async function findCode(db: Db, code: string) {
  if (!code.startsWith(TOKEN_PREFIXES.oauthCode) || code.length > 200) return undefined
  const [row] = await db
    .select()
    .from(oauthAuthorizationCodes)
    .where(eq(oauthAuthorizationCodes.codeHash, hashToken(code)))
  return row
}

/**
 * The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 8707), step by step:
 * the code exists and belongs to this client, the redirect URI is the same string, the
 * verifier matches, the resource (if named) is the code's; then one atomic "mark used where
 * unused and unexpired" on the database clock, and the chain and tokens in the same
 * transaction. A code that is already used revokes what it issued (spec state table); under
 * concurrency the loser's update waits for the winner's commit and then finds the code used.
 * The consent row is locked first (lockGrant), so a revocation racing the exchange either
 * refuses it or sees, and revokes, the chain it commits.
 */
export async function exchangeAuthorizationCode(
  db: Db,
  client: OAuthClient,
  params: URLSearchParams,
  config: { baseUrl: string; oauth: TokenConfig },
): Promise<TokenResponse> {
  const code = required(params, 'code')
  const redirectUri = required(params, 'redirect_uri')
  const verifier = required(params, 'code_verifier')
  const row = await findCode(db, code)
  if (!row || row.clientId !== client.clientId) throw new InvalidGrantError(INVALID_CODE)
  if (row.redirectUri !== redirectUri)
    throw new InvalidGrantError('redirect_uri does not match the authorization request')
  if (!verifyCodeVerifier(verifier, row.codeChallenge))
    throw new InvalidGrantError('PKCE verification failed: code_verifier does not match code_challenge')
  const resources = params.getAll('resource')
  if (resources.length > 0 && resolveResource(resources, config) !== row.resource)
    throw new InvalidTargetError('The resource differs from the authorization request')

  const issued = await db.transaction(async (tx) => {
    const inForce = await lockGrant(tx, row)
    const [marked] = await tx
      .update(oauthAuthorizationCodes)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(oauthAuthorizationCodes.id, row.id),
          isNull(oauthAuthorizationCodes.usedAt),
          gt(oauthAuthorizationCodes.expiresAt, sql`now()`),
        ),
      )
      .returning({ id: oauthAuthorizationCodes.id })
    if (!marked) return null
    // Rolls back the mark as well: nothing is issued under a withdrawn consent.
    if (!inForce) throw new InvalidGrantError('The consent was revoked')
    const [chain] = await tx
      .insert(oauthTokenChains)
      .values({
        clientId: client.clientId,
        userId: row.userId,
        organizationId: row.organizationId,
        consentId: row.consentId,
        authorizationCodeId: row.id,
        scope: row.scope,
        resource: row.resource,
      })
      .returning()
    return issueTokens(
      tx,
      chain!,
      {
        accessScope: row.scope,
        refreshScope: row.scope,
        withRefresh: client.grantTypes.includes('refresh_token'),
      },
      config.oauth,
    )
  })
  if (issued) {
    void touchGrantUse(db, { clientId: client.clientId, consentId: null })
    return issued
  }

  const [state] = await db
    .select({ usedAt: oauthAuthorizationCodes.usedAt })
    .from(oauthAuthorizationCodes)
    .where(eq(oauthAuthorizationCodes.id, row.id))
  if (state?.usedAt) {
    await revokeChainsOfCode(db, row.id)
    forgetCredentials()
    throw new InvalidGrantError('The authorization code was already used')
  }
  throw new InvalidGrantError('The authorization code expired')
}
