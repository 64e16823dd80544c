import { and, eq, lt, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'

/**
 * Records that sessions of a release were symbolicated with its maps, so that retention
 * (sweep.ts) keeps a release in use however long ago it was uploaded. At most one write per
 * map and day: the rows touched today are left as they are.
 */
export async function markReleaseMapsUsed(
  db: DbOrTx,
  organizationId: string,
  release: string,
): Promise<void> {
  await db
    .update(sourcemapFiles)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(sourcemapFiles.organizationId, organizationId),
        eq(sourcemapFiles.release, release),
        lt(sourcemapFiles.lastUsedAt, sql`now() - interval '1 day'`),
      ),
    )
}
