import { and, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { memberships, oauthAccessTokens, oauthConsents, oauthTokenChains } from '@/db/schema'
import { builtOnce } from '@/lib/db/built-once'
import { findActiveCredential } from './active-credential'
import { cachedCredential } from './credential-cache'
import { hashToken, TOKEN_PREFIXES } from './tokens'
import { touchCredential } from './touch'

export type PrincipalKind = 'api_key' | 'mcp_key' | 'oauth'

/** Who is calling the Data API or MCP, as every domain function sees it. */
export interface Principal {
  kind: PrincipalKind
  organizationId: string
  scopes: string[]
  /** The credential row (static keys) or access token row (OAuth). */
  credentialId: string
  /** OAuth only: the client; OAuth callers are rate-limited per client in each organization. */
  clientId: string | null
  /** OAuth only: the resource the token is bound to (RFC 8707). */
  resource: string | null
  /**
   * Static keys per key, OAuth tokens per (client, organization): the spec's "per token or
   * OAuth client", split by tenant because one public client (open registration) serves many
   * organizations, and one must not spend another's budget.
   */
  rateLimitKey: string
}

const MAX_TOKEN_LENGTH = 200

/**
 * A static key's principal comes from the short-lived credential cache (credential-cache.ts):
 * revokeKey clears it on this instance at once, and another instance may accept a revoked key
 * for at most 5 s. Keys do not expire, so nothing else can end one.
 */
async function resolveStaticKey(db: DbOrTx, token: string, kind: 'api' | 'mcp'): Promise<Principal | null> {
  const tokenHash = hashToken(token)
  const principal = await cachedCredential<Principal>(`bearer:${tokenHash}`, async () => {
    const row = await findActiveCredential(db, tokenHash, kind)
    if (!row) return null
    return {
      kind: kind === 'api' ? 'api_key' : 'mcp_key',
      organizationId: row.organizationId,
      scopes: row.scopes,
      credentialId: row.id,
      clientId: null,
      resource: null,
      rateLimitKey: `key:${row.id}`,
    }
  })
  // Coalesced to one write a minute per key, cached or not, so "last used" stays true.
  if (principal) touchCredential(db, principal.credentialId)
  return principal
}

/**
 * OAuth access tokens are looked up on every request, not cached: a token, its chain, consent
 * or membership can be ended by a write that no code path of this process sees (expiry moved,
 * rows revoked by another tool), and the tests hold such a token refused on its very next
 * request. Every revocation path still calls forgetCredentials(), so caching these is a
 * one-line change once a bound is acceptable for them.
 */
async function resolveAccessToken(db: DbOrTx, token: string): Promise<Principal | null> {
  // Built once per database handle (lib/db/built-once.ts): it runs on every OAuth request.
  const [row] = await builtOnce(db, 'bearer.accessToken', () =>
    db
      .select({
        id: oauthAccessTokens.id,
        organizationId: oauthAccessTokens.organizationId,
        scope: oauthAccessTokens.scope,
        clientId: oauthAccessTokens.clientId,
        resource: oauthAccessTokens.resource,
      })
      .from(oauthAccessTokens)
      .innerJoin(oauthTokenChains, eq(oauthTokenChains.id, oauthAccessTokens.chainId))
      // The grant itself is re-checked on every request, in this one query (primary-key joins):
      // a token committed concurrently with a consent revocation or a member's removal, which
      // the revocation's sweep of token rows could not see, is still refused at once.
      .leftJoin(oauthConsents, eq(oauthConsents.id, oauthTokenChains.consentId))
      .innerJoin(
        memberships,
        and(
          eq(memberships.organizationId, oauthTokenChains.organizationId),
          eq(memberships.userId, oauthTokenChains.userId),
        ),
      )
      .where(
        and(
          eq(oauthAccessTokens.tokenHash, sql.placeholder('tokenHash')),
          isNull(oauthAccessTokens.revokedAt),
          isNull(oauthTokenChains.revokedAt),
          or(isNull(oauthTokenChains.consentId), isNull(oauthConsents.revokedAt)),
          // The database's clock decides expiry, the same clock that set it.
          gt(oauthAccessTokens.expiresAt, sql`now()`),
        ),
      )
      .prepare('bearer_access_token'),
  ).execute({ tokenHash: hashToken(token) })
  if (!row) return null
  return {
    kind: 'oauth',
    organizationId: row.organizationId,
    scopes: row.scope.split(' ').filter(Boolean),
    credentialId: row.id,
    clientId: row.clientId,
    resource: row.resource,
    rateLimitKey: `client:${row.clientId}:org:${row.organizationId}`,
  }
}

/**
 * One resolver for every bearer credential: `svc_api_` Data API keys, `svc_oat_` OAuth access
 * tokens and legacy `svc_mcp_` keys, looked up by the SHA-256 of the whole token through a
 * unique index (no secret is compared byte by byte). Null for anything missing, malformed,
 * unknown, revoked or expired: callers answer all of them alike.
 */
export async function resolveBearer(db: DbOrTx, authorization: string | null): Promise<Principal | null> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')
  const token = match?.[1]
  if (!token || token.length > MAX_TOKEN_LENGTH) return null
  if (token.startsWith(TOKEN_PREFIXES.api)) return resolveStaticKey(db, token, 'api')
  if (token.startsWith(TOKEN_PREFIXES.mcp)) return resolveStaticKey(db, token, 'mcp')
  if (token.startsWith(TOKEN_PREFIXES.oauthAccess)) return resolveAccessToken(db, token)
  return null
}
