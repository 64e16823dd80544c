import type { Db } from '@/db/client'
import type { Config } from '@/lib/config'
import { authenticateClient, type PresentedClient } from './authenticate-client'
import { InvalidRequestError, UnsupportedGrantTypeError, unauthorizedForGrant } from './errors'
import { exchangeAuthorizationCode } from './exchange-code'
import type { TokenResponse } from './issue-tokens'
import { single } from './params'
import { refreshTokenGrant } from './refresh-grant'

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token'])

export type TokenEndpointConfig = Pick<Config, 'baseUrl'> & {
  oauth: Pick<Config['oauth'], 'accessTokenTtlSeconds' | 'refreshTokenTtlDays' | 'refreshReuseGraceSeconds'>
}

/**
 * POST /api/oauth/token: the grant type is one we serve (`unsupported_grant_type`), the
 * client authenticates (`invalid_client`), it registered that grant (`unauthorized_client`),
 * then the grant's own steps. Implicit, password and client_credentials do not exist here.
 * The refresh grant authenticates the client itself, in the statement that locks the grant,
 * so that a refresh costs four database round trips (refresh-grant.ts).
 */
export async function tokenRequest(
  db: Db,
  form: URLSearchParams,
  presented: PresentedClient,
  config: TokenEndpointConfig,
): Promise<TokenResponse> {
  const grantType = single(form, 'grant_type')
  if (grantType === undefined) throw new InvalidRequestError('The grant_type parameter is required')
  if (!GRANT_TYPES.has(grantType))
    // Not echoed: error_description allows printable ASCII only (RFC 6749 §5.2).
    throw new UnsupportedGrantTypeError('Unsupported grant_type: use authorization_code or refresh_token')
  if (grantType === 'refresh_token') return refreshTokenGrant(db, presented, form, config)
  const client = await authenticateClient(db, presented)
  if (!client.grantTypes.includes(grantType)) throw unauthorizedForGrant(grantType)
  return exchangeAuthorizationCode(db, client, form, config)
}
