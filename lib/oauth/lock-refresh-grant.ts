import { type SQL, sql } from 'drizzle-orm'
import type { PipelinedTransaction } from '@/db/pipelined-transaction'
import type { ClientSecretView } from './authenticate-client'
import type { OAuthClient } from './find-client'

/** The client row as the refresh grant needs it (no array column: postgres.js here does not parse arrays). */
export type RefreshClient = ClientSecretView & Pick<OAuthClient, 'clientId'> & { refreshAllowed: boolean }

/** The presented refresh token, its chain and its consent, as read under their locks. */
export interface LockedGrant {
  tokenId: string
  tokenScope: string
  /** The token was rotated before (presenting it again is reuse, unless in grace). */
  reused: boolean
  tokenRevoked: boolean
  /** Not expired, on the database clock. */
  live: boolean
  chainId: string
  chainClientId: string
  userId: string
  organizationId: string
  consentId: string | null
  resource: string
  chainRevoked: boolean
  /** The consent is not revoked (true for a chain that predates consents). */
  consentInForce: boolean
}

const str = (value: unknown) => value as string

/**
 * The grant's rows for one statement, locked in the one order every writer uses
 * (organization → consent → chain, docs/design/oauth-mcp.md; see lock-grant.ts for why each
 * lock): Postgres takes the row locks of a SELECT in the order its locking clauses name the
 * tables. The token row is locked too, after its chain: a refresh that waited for a
 * concurrent one re-reads locked rows at their newest version (READ COMMITTED), so it sees
 * the rotation that the other committed and treats the token as reused.
 *
 * The consent is locked FOR SHARE, not FOR UPDATE: refreshes of the chains of one consent
 * run side by side, and a revocation (an UPDATE of the consent row) still waits for them or
 * is waited for. Only chains issued under a consent take this path; a chain that predates
 * consents (consent_id null) is read by `withoutConsent`.
 */
const grantUnderConsent = (tokenHash: string) => sql`
  select t.id as token_id, t.scope as token_scope, t.rotated_at is not null as reused,
    t.revoked_at is not null as token_revoked, t.expires_at > now() as live,
    ch.id as chain_id, ch.client_id as chain_client_id, ch.user_id, ch.organization_id,
    ch.consent_id, ch.resource, ch.revoked_at is not null as chain_revoked,
    k.revoked_at is null as consent_in_force
  from oauth_refresh_tokens t
  join oauth_token_chains ch on ch.id = t.chain_id
  join organizations o on o.id = ch.organization_id
  join oauth_consents k on k.id = ch.consent_id
  where t.token_hash = ${tokenHash}
  for key share of o for share of k for update of ch, t`

const grantWithoutConsent = (tokenHash: string) => sql`
  select t.id as token_id, t.scope as token_scope, t.rotated_at is not null as reused,
    t.revoked_at is not null as token_revoked, t.expires_at > now() as live,
    ch.id as chain_id, ch.client_id as chain_client_id, ch.user_id, ch.organization_id,
    ch.consent_id, ch.resource, ch.revoked_at is not null as chain_revoked,
    true as consent_in_force
  from oauth_refresh_tokens t
  join oauth_token_chains ch on ch.id = t.chain_id
  join organizations o on o.id = ch.organization_id
  where t.token_hash = ${tokenHash} and ch.consent_id is null
  for key share of o for update of ch, t`

/** The client (left-joined: an unknown one still answers the grant's row) and the grant. */
async function readLocked(
  tx: PipelinedTransaction,
  clientId: string,
  grant: SQL,
): Promise<{ client: RefreshClient | null; grant: LockedGrant | null }> {
  const [row] = await tx.query(sql`
    select c.client_id, c.token_endpoint_auth_method, c.client_secret_hash,
      coalesce('refresh_token' = any(c.grant_types), false) as refresh_allowed, g.*
    from (select 1) as one
    left join oauth_clients c on c.client_id = ${clientId} and c.revoked_at is null
    left join lateral (${grant}) g on true`)
  if (!row) return { client: null, grant: null }
  const client: RefreshClient | null =
    row.client_id == null
      ? null
      : {
          clientId: str(row.client_id),
          tokenEndpointAuthMethod: row.token_endpoint_auth_method as RefreshClient['tokenEndpointAuthMethod'],
          clientSecretHash: (row.client_secret_hash as string | null) ?? null,
          refreshAllowed: row.refresh_allowed === true,
        }
  const grantRow: LockedGrant | null =
    row.token_id == null
      ? null
      : {
          tokenId: str(row.token_id),
          tokenScope: str(row.token_scope),
          reused: row.reused === true,
          tokenRevoked: row.token_revoked === true,
          live: row.live === true,
          chainId: str(row.chain_id),
          chainClientId: str(row.chain_client_id),
          userId: str(row.user_id),
          organizationId: str(row.organization_id),
          consentId: (row.consent_id as string | null) ?? null,
          resource: str(row.resource),
          chainRevoked: row.chain_revoked === true,
          consentInForce: row.consent_in_force === true,
        }
  return { client, grant: grantRow }
}

/**
 * One statement, the refresh transaction's first (BEGIN travels with it): the active client named by the request and
 * the presented refresh token with its chain, locked. `tokenHash` undefined (no token, or one
 * that cannot be ours) reads the client only. A second statement runs only when the token is
 * unknown or its chain predates consents.
 */
export async function lockRefreshGrant(
  tx: PipelinedTransaction,
  clientId: string,
  tokenHash: string | undefined,
): Promise<{ client: RefreshClient | null; grant: LockedGrant | null }> {
  // A hash no token has: the lateral join then finds nothing.
  const read = await readLocked(tx, clientId, grantUnderConsent(tokenHash ?? ''))
  if (read.grant || !read.client || tokenHash === undefined) return read
  return {
    client: read.client,
    grant: (await readLocked(tx, clientId, grantWithoutConsent(tokenHash))).grant,
  }
}
