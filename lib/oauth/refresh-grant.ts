import type { Db } from '@/db/client'
import { pipelinedTransaction } from '@/db/pipelined-transaction'
import type { Config } from '@/lib/config'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { clientCredentials, type PresentedClient, verifyClient } from './authenticate-client'
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  unauthorizedForGrant,
} from './errors'
import { couldBeClientId } from './find-client'
import type { TokenConfig, TokenResponse } from './issue-tokens'
import { lockRefreshGrant } from './lock-refresh-grant'
import { resolveResource } from './metadata'
import { required, single } from './params'
import { rotateRefreshToken } from './rotate-refresh-token'
import { formatScope, isSubset, parseScope } from './scopes'
import { touchGrantUse } from './touch-grant-use'

type RefreshConfig = {
  baseUrl: string
  oauth: TokenConfig & Pick<Config['oauth'], 'refreshReuseGraceSeconds'>
}

const INVALID_TOKEN = 'The refresh token is invalid'

/** The refresh token's hash, or undefined when it is absent, repeated or cannot be ours. */
function presentedTokenHash(params: URLSearchParams): string | undefined {
  const values = params.getAll('refresh_token')
  const token = values.length === 1 ? values[0] : undefined
  if (token === undefined || !token.startsWith(TOKEN_PREFIXES.oauthRefresh) || token.length > 200)
    return undefined
  return hashToken(token)
}

/** The scope check's answer, or the error it gives (thrown in the RFC's order, below). */
function narrowedScope(requested: string | undefined, granted: string): string[] | InvalidScopeError {
  const grantedScopes = parseScope(granted)
  const asked = requested === undefined ? grantedScopes : parseScope(requested)
  if (asked.length === 0 || !isSubset(asked, grantedScopes))
    return new InvalidScopeError('The requested scope exceeds the scope granted')
  return asked
}

/** Whether the named resource (if any) is the chain's, or the error naming it gives. */
function sameResource(resources: string[], chainResource: string, config: RefreshConfig): true | Error {
  if (resources.length === 0) return true
  try {
    if (resolveResource(resources, config) === chainResource) return true
  } catch (error) {
    if (error instanceof Error) return error
    throw error
  }
  return new InvalidTargetError('The resource differs from the original grant')
}

/**
 * The refresh_token grant (RFC 6749 §6, RFC 9700 §4.14.2) in four statements and two network
 * round trips on Postgres: BEGIN with one statement that reads the client and locks the grant
 * (lockRefreshGrant: organization → consent → chain → token, so a concurrent consent
 * revocation or member removal either refuses the refresh or revokes what it issues, and
 * refreshes of one chain queue), then one that decides and writes (rotateRefreshToken) with
 * COMMIT (pipelined-transaction.ts). The checks run in the order they always did:
 * client authentication (`invalid_client`), its grant types (`unauthorized_client`), the
 * parameters, then the token (invalid → revoked → reused → expired → grant revoked → scope
 * → resource). A rotated token presented again revokes the whole chain, and that revocation
 * is committed even though the request fails; within OAUTH_REFRESH_REUSE_GRACE_SECONDS the
 * immediately previous token gets a fresh pair instead. The client's and consent's
 * `last_used_at` are recorded after the commit, at most once a minute (touchGrantUse).
 */
export async function refreshTokenGrant(
  db: Db,
  presented: PresentedClient,
  params: URLSearchParams,
  config: RefreshConfig,
): Promise<TokenResponse> {
  const credentials = clientCredentials(presented)
  // Ids that cannot be ours are refused without a transaction, as findActiveClient does.
  if (!couldBeClientId(credentials.clientId)) throw new InvalidClientError(undefined, credentials.usedBasic)
  const clientId = credentials.clientId
  const tokenHash = presentedTokenHash(params)

  const outcome = await pipelinedTransaction(db, async (tx) => {
    const locked = await lockRefreshGrant(tx, clientId, tokenHash)
    const client = verifyClient(locked.client, credentials)
    if (!client.refreshAllowed) throw unauthorizedForGrant('refresh_token')
    const token = required(params, 'refresh_token')
    const requested = single(params, 'scope')
    const resources = params.getAll('resource')
    if (!token.startsWith(TOKEN_PREFIXES.oauthRefresh) || token.length > 200)
      throw new InvalidGrantError(INVALID_TOKEN)

    const grant = locked.grant
    if (!grant || grant.chainClientId !== client.clientId) throw new InvalidGrantError(INVALID_TOKEN)
    if (grant.chainRevoked || grant.tokenRevoked) throw new InvalidGrantError('The refresh token was revoked')
    const scope = narrowedScope(requested, grant.tokenScope)
    const resource = sameResource(resources, grant.resource, config)
    const accessToken = generateToken(TOKEN_PREFIXES.oauthAccess)
    const refreshToken = generateToken(TOKEN_PREFIXES.oauthRefresh)
    const rotation = await rotateRefreshToken(
      tx,
      {
        grant,
        allowed: grant.live && grant.consentInForce && Array.isArray(scope) && resource === true,
        graceSeconds: config.oauth.refreshReuseGraceSeconds,
        accessTokenHash: hashToken(accessToken),
        refreshTokenHash: hashToken(refreshToken),
        accessScope: Array.isArray(scope) ? formatScope(scope) : '',
      },
      config.oauth,
    )
    if (rotation.reuse) return 'reuse' as const
    if (!grant.live) throw new InvalidGrantError('The refresh token expired')
    if (!grant.consentInForce || !rotation.member) throw new InvalidGrantError('The grant was revoked')
    if (!Array.isArray(scope)) throw scope
    if (resource !== true) throw resource
    // The chain lock makes this unreachable; the compare-and-swap keeps it safe without one.
    if (!rotation.issued) throw new InvalidGrantError(INVALID_TOKEN)
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: config.oauth.accessTokenTtlSeconds,
      refresh_token: refreshToken,
      scope: formatScope(scope),
    }
    return { response, use: { clientId: client.clientId, consentId: grant.consentId } }
  })
  if (outcome === 'reuse') {
    // The chain's access tokens may be cached by this instance's bearer resolution.
    forgetCredentials()
    throw new InvalidGrantError('The refresh token was already used')
  }
  void touchGrantUse(db, outcome.use)
  return outcome.response
}
