import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { builtOnce } from '@/lib/db/built-once'

export type StaticKeyKind = 'ingest' | 'api' | 'mcp'

export interface ActiveCredential {
  id: string
  organizationId: string
  scopes: string[]
}

/**
 * The unrevoked static key of this kind whose token hashes to `tokenHash`, through the unique
 * index on the hash. One statement, built once per database handle, for the bearer resolvers
 * (ingest has its own, with the organization's network policy joined: ingest-credential.ts):
 * it runs on every cache miss of hot routes.
 */
export async function findActiveCredential(
  db: DbOrTx,
  tokenHash: string,
  kind: StaticKeyKind,
): Promise<ActiveCredential | null> {
  const [row] = await builtOnce(db, 'credentials.activeByHash', () =>
    db
      .select({ id: credentials.id, organizationId: credentials.organizationId, scopes: credentials.scopes })
      .from(credentials)
      .where(
        and(
          eq(credentials.tokenHash, sql.placeholder('tokenHash')),
          eq(credentials.kind, sql.placeholder('kind')),
          isNull(credentials.revokedAt),
        ),
      )
      .prepare('credentials_active_by_hash'),
  ).execute({ tokenHash, kind })
  return row ?? null
}
