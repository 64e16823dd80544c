import { and, eq, isNotNull, lte, or } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { dataExports } from '@/db/schema'
import type { BlobStore } from '@/lib/storage/types'
import { exportFolder } from './export-file'

const CHUNK = 100

/**
 * Deletes what expired exports held (docs/privacy.md#exports): the file's parts, its wrapped
 * data key (so a copy of a part elsewhere cannot be opened either) and the sealed person.
 * The row stays with its status, counts and times, so a late fetch says "expired".
 */
export async function sweepExpiredExports(
  db: DbOrTx,
  blobs: BlobStore,
  now = new Date(),
): Promise<{ exports: number; blobs: number }> {
  let exports = 0
  let deletedBlobs = 0
  while (true) {
    const rows = await db
      .select({ id: dataExports.id, organizationId: dataExports.organizationId })
      .from(dataExports)
      .where(
        and(
          lte(dataExports.expiresAt, now),
          or(
            isNotNull(dataExports.personSealed),
            isNotNull(dataExports.wrappedKey),
            isNotNull(dataExports.blobKey),
          ),
        ),
      )
      .limit(CHUNK)
    for (const row of rows) {
      // Listed rather than counted from the row: a failed attempt may have left parts too.
      const keys = await blobs.list(exportFolder(row.organizationId, row.id))
      await blobs.delete(keys)
      deletedBlobs += keys.length
      await db
        .update(dataExports)
        .set({ personSealed: null, wrappedKey: null, kekId: null, blobKey: null })
        .where(and(eq(dataExports.id, row.id), eq(dataExports.organizationId, row.organizationId)))
      exports++
    }
    if (rows.length < CHUNK) return { exports, blobs: deletedBlobs }
  }
}
