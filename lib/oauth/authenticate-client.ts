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

/**
 * Client authentication at the token and revocation endpoints (docs/design/oauth-mcp.md decision 8):
 * public clients identify themselves by `client_id` (PKCE is their proof), confidential ones
 * prove their secret in the form or in HTTP Basic. Every failure is the same
 * `invalid_client`, whether the client is unknown, revoked or the secret wrong.
 */
export async function authenticateClient(db: DbOrTx, presented: PresentedClient): Promise<OAuthClient> {
  const { basic } = presented
  const usedBasic = basic !== undefined
  if (basic && presented.clientSecret !== undefined)
    throw new InvalidRequestError('Use only one client authentication method')
  if (basic && presented.clientId !== undefined && presented.clientId !== basic.clientId)
    throw new InvalidRequestError('client_id does not match the Authorization header')
  const clientId = basic?.clientId ?? presented.clientId
  const secret = (basic ? basic.clientSecret : presented.clientSecret) || undefined
  // Hashed before the lookup so that unknown and known clients cost the same work.
  const presentedHash = secret === undefined ? undefined : hashToken(secret)

  const client = await findActiveClient(db, clientId)
  if (!client) throw new InvalidClientError(undefined, usedBasic)
  if (client.tokenEndpointAuthMethod === 'none') {
    // A public client has no secret; one that sends a secret is not who it claims to be.
    if (presentedHash !== undefined) throw new InvalidClientError(undefined, usedBasic)
    return client
  }
  if (
    !presentedHash ||
    !client.clientSecretHash ||
    !constantTimeEqual(presentedHash, client.clientSecretHash)
  )
    throw new InvalidClientError(undefined, usedBasic)
  return client
}
