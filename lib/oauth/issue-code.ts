import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthAuthorizationCodes } from '@/db/schema'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import type { AuthorizationRequest } from './authorize-request'

export interface CodeGrant {
  userId: string
  organizationId: string
  consentId: string
  /** What the user granted: the requested scopes, or fewer. */
  scope: string
}

/**
 * A single-use `svc_oac_` code bound to everything the token request must repeat or prove
 * (client, exact redirect URI, PKCE challenge, resource). Stored as SHA-256; its expiry is
 * set on the database clock, the same clock that checks it at redemption.
 */
export async function issueAuthorizationCode(
  db: DbOrTx,
  request: AuthorizationRequest,
  grant: CodeGrant,
  ttlSeconds: number,
): Promise<string> {
  const code = generateToken(TOKEN_PREFIXES.oauthCode)
  await db.insert(oauthAuthorizationCodes).values({
    codeHash: hashToken(code),
    clientId: request.client.clientId,
    userId: grant.userId,
    organizationId: grant.organizationId,
    consentId: grant.consentId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scope: grant.scope,
    resource: request.resource,
    expiresAt: sql`now() + (${ttlSeconds}::int * interval '1 second')`,
  })
  return code
}
