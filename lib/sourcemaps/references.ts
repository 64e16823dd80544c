import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import type { BlobStore } from '@/lib/storage'

/**
 * Uploads, deletes and the retention sweep of one organization take this lock inside their
 * transaction, so a blob is deleted only while no other transaction can be adding a row that
 * points at it (blobs are shared by content between rows).
 */
export async function lockOrganizationMaps(tx: Tx, organizationId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sourcemaps:${organizationId}`}))`)
}

/** Deletes those of `keys` that no row of the organization points at any more; answers how many. */
export async function deleteUnreferencedBlobs(
  tx: Tx,
  blobs: BlobStore,
  organizationId: string,
  keys: Iterable<string>,
): Promise<number> {
  const candidates = [...new Set(keys)]
  if (candidates.length === 0) return 0
  const kept = await tx
    .selectDistinct({ blobKey: sourcemapFiles.blobKey })
    .from(sourcemapFiles)
    .where(
      and(eq(sourcemapFiles.organizationId, organizationId), inArray(sourcemapFiles.blobKey, candidates)),
    )
  const stillUsed = new Set(kept.map((k) => k.blobKey))
  const unused = candidates.filter((k) => !stillUsed.has(k))
  if (unused.length > 0) await blobs.delete(unused)
  return unused.length
}
