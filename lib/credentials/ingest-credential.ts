import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials, type NetworkDetailPolicy, organizations } from '@/db/schema'
import { builtOnce } from '@/lib/db/built-once'

export interface IngestCredential {
  id: string
  organizationId: string
  /** The organization's handling of captured network details (docs/network-details.md). */
  networkDetails: NetworkDetailPolicy
  networkRedactKeys: string[]
  /** The organization's mask settings (docs/privacy.md#re-masking), applied at ingest too. */
  maskSelectors: string[]
  maskPatterns: string[]
}

/**
 * The unrevoked ingest key whose token hashes to `tokenHash`, with its organization's network
 * detail policy joined in: ingest needs both for every batch, and they come in the one lookup
 * (cached with the key for 5 s), so the policy costs no round trip of its own.
 */
export async function findIngestCredential(db: DbOrTx, tokenHash: string): Promise<IngestCredential | null> {
  const [row] = await builtOnce(db, 'credentials.ingestByHash', () =>
    db
      .select({
        id: credentials.id,
        organizationId: credentials.organizationId,
        networkDetails: organizations.networkDetails,
        networkRedactKeys: organizations.networkRedactKeys,
        maskSelectors: organizations.maskSelectors,
        maskPatterns: organizations.maskPatterns,
      })
      .from(credentials)
      .innerJoin(organizations, eq(organizations.id, credentials.organizationId))
      .where(
        and(
          eq(credentials.tokenHash, sql.placeholder('tokenHash')),
          eq(credentials.kind, 'ingest'),
          isNull(credentials.revokedAt),
        ),
      )
      .prepare('credentials_ingest_by_hash'),
  ).execute({ tokenHash })
  return row ?? null
}
