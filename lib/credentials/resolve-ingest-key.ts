import { and, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { UnauthorizedError } from '@/lib/errors'
import { cachedCredential } from './credential-cache'
import { hashToken, TOKEN_PREFIXES } from './tokens'
import { touchCredential } from './touch'

export const MISSING_API_KEY = 'Missing API key'
export const INVALID_API_KEY = 'Invalid or revoked API key'

export interface IngestPrincipal {
  credentialId: string
  organizationId: string
}

/**
 * Resolves a public ingest key (`svc_pk_`). The lookup is by the SHA-256 of the whole key
 * through a unique index, so no secret is ever compared byte by byte; a Data API key, a
 * revoked key and an unknown key all get the same answer.
 *
 * A key that resolved is kept in the shared credential cache for CREDENTIAL_CACHE_TTL_MS
 * (5 s), so a busy site's key costs no lookup per batch. That is the bound on revocation: a
 * key revoked on another server instance may be accepted for at most 5 s; on the instance
 * that revokes it (revokeKey clears the cache), it fails at its next request. Keys that fail
 * are never cached, so the ingest lookup budgets still count every database lookup of them.
 */
export async function resolveIngestKey(db: DbOrTx, key: string | null | undefined): Promise<IngestPrincipal> {
  const presented = key?.trim()
  if (!presented) throw new UnauthorizedError(MISSING_API_KEY)
  if (!presented.startsWith(TOKEN_PREFIXES.ingest) || presented.length > 200)
    throw new UnauthorizedError(INVALID_API_KEY)
  const tokenHash = hashToken(presented)
  const principal = await cachedCredential(`ingest:${tokenHash}`, async () => {
    const found = await lookUp(db, tokenHash)
    return found ? { value: found } : null
  })
  if (!principal) throw new UnauthorizedError(INVALID_API_KEY)
  touchCredential(db, principal.credentialId)
  return principal
}

async function lookUp(db: DbOrTx, tokenHash: string): Promise<IngestPrincipal | null> {
  const [row] = await db
    .select({ id: credentials.id, organizationId: credentials.organizationId })
    .from(credentials)
    .where(
      and(
        eq(credentials.tokenHash, tokenHash),
        eq(credentials.kind, 'ingest'),
        isNull(credentials.revokedAt),
      ),
    )
  return row ? { credentialId: row.id, organizationId: row.organizationId } : null
}
