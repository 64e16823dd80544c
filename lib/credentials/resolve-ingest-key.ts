import { and, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { UnauthorizedError } from '@/lib/errors'
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
 */
export async function resolveIngestKey(db: DbOrTx, key: string | null | undefined): Promise<IngestPrincipal> {
  const presented = key?.trim()
  if (!presented) throw new UnauthorizedError(MISSING_API_KEY)
  if (!presented.startsWith(TOKEN_PREFIXES.ingest) || presented.length > 200)
    throw new UnauthorizedError(INVALID_API_KEY)
  const [row] = await db
    .select({ id: credentials.id, organizationId: credentials.organizationId })
    .from(credentials)
    .where(
      and(
        eq(credentials.tokenHash, hashToken(presented)),
        eq(credentials.kind, 'ingest'),
        isNull(credentials.revokedAt),
      ),
    )
  if (!row) throw new UnauthorizedError(INVALID_API_KEY)
  touchCredential(db, row.id)
  return { credentialId: row.id, organizationId: row.organizationId }
}
