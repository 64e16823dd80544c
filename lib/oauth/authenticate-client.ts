import type { DbOrTx } from '@/db/client'
import { hashToken } from '@/lib/credentials/tokens'
import { constantTimeEqual } from '@/lib/crypto/constant-time'
import { InvalidClientError, InvalidRequestError } from './errors'
import { findActiveClient, type OAuthClient } from './find-client'

/** What a token or revocation request presented to identify its client. */
export interface PresentedClient {
  /** Form `client_id` and `client_secret` (client_secret_post, or a public client's id). */
  clientId?: string
  clientSecret?: string
  /** An HTTP Basic header (RFC 6749 §2.3.1), already decoded; also accepted for secrets. */
  basic?: { clientId: string; clientSecret: string }
}

/** The presented credentials once their shape is checked, ready to compare with a client row. */
export interface ClientCredentials {
  clientId: string | undefined
  /** SHA-256 of the presented secret, if any. */
  secretHash: string | undefined
  usedBasic: boolean
}

/** The columns of a client row that authenticating it needs. */
export type ClientSecretView = Pick<OAuthClient, 'tokenEndpointAuthMethod' | 'clientSecretHash'>

/** The checks that need no database: one method only, and one client id. */
export function clientCredentials(presented: PresentedClient): ClientCredentials {
  const { basic } = presented
  if (basic && presented.clientSecret !== undefined)
    throw new InvalidRequestError('Use only one client authentication method')
  if (basic && presented.clientId !== undefined && presented.clientId !== basic.clientId)
    throw new InvalidRequestError('client_id does not match the Authorization header')
  const secret = (basic ? basic.clientSecret : presented.clientSecret) || undefined
  return {
    clientId: basic?.clientId ?? presented.clientId,
    // Hashed before the lookup so that unknown and known clients cost the same work.
    secretHash: secret === undefined ? undefined : hashToken(secret),
    usedBasic: basic !== undefined,
  }
}

/**
 * The presented credentials against the client row found for them (null: unknown or
 * revoked). Public clients identify themselves by `client_id` (PKCE is their proof),
 * confidential ones prove their secret. Every failure is the same `invalid_client`.
 */
export function verifyClient<T extends ClientSecretView>(
  client: T | null,
  credentials: ClientCredentials,
): T {
  const refuse = () => new InvalidClientError(undefined, credentials.usedBasic)
  if (!client) throw refuse()
  if (client.tokenEndpointAuthMethod === 'none') {
    // A public client has no secret; one that sends a secret is not who it claims to be.
    if (credentials.secretHash !== undefined) throw refuse()
    return client
  }
  if (
    !credentials.secretHash ||
    !client.clientSecretHash ||
    !constantTimeEqual(credentials.secretHash, client.clientSecretHash)
  )
    throw refuse()
  return client
}

/**
 * Client authentication at the token and revocation endpoints (docs/design/oauth-mcp.md decision 8):
 * public clients identify themselves by `client_id`, confidential ones prove their secret in
 * the form or in HTTP Basic. The refresh grant does the same two steps with the client row
 * read in its first statement (lock-refresh-grant.ts).
 */
export async function authenticateClient(db: DbOrTx, presented: PresentedClient): Promise<OAuthClient> {
  const credentials = clientCredentials(presented)
  return verifyClient(await findActiveClient(db, credentials.clientId), credentials)
}
