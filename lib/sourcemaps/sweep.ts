import { asc, lt, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import { idsByOrganization } from '@/lib/retention/by-organization'
import type { BlobStore } from '@/lib/storage'
import { deleteMapRows } from './releases'

export interface SourcemapSweepResult {
  files: number
  blobs: number
  /** True when the run stopped at its budget with more to delete (the next run goes on). */
  more: boolean
}

/**
 * Deletes every map neither uploaded nor used by a session's symbolication in the last
 * `retentionDays` (SOURCEMAP_RETENTION_DAYS), least recently used first, a chunk at a time and one organization's transaction at a time, stopping at `maxFiles`.
 * Runs with the replay retention sweep (lib/retention/sweep.ts).
 */
export async function sweepSourcemaps(
  db: Db,
  blobs: BlobStore,
  options: { retentionDays: number; now?: number; chunk?: number; maxFiles?: number },
): Promise<SourcemapSweepResult> {
  const now = new Date(options.now ?? Date.now()).toISOString()
  const chunk = options.chunk ?? 500
  const maxFiles = options.maxFiles ?? 10_000
  const result: SourcemapSweepResult = { files: 0, blobs: 0, more: false }
  while (true) {
    const budget = Math.min(chunk, maxFiles - result.files)
    const expired = await db
      .select({ id: sourcemapFiles.id, organizationId: sourcemapFiles.organizationId })
      .from(sourcemapFiles)
      .where(
        lt(sourcemapFiles.lastUsedAt, sql`${now}::timestamptz - ${options.retentionDays} * interval '1 day'`),
      )
      .orderBy(asc(sourcemapFiles.lastUsedAt), asc(sourcemapFiles.id))
      .limit(budget > 0 ? budget : 1)
    if (expired.length === 0) break
    if (budget <= 0) {
      result.more = true
      break
    }
    const byOrganization = idsByOrganization(expired, (row) => row.id)
    let deletedNow = 0
    for (const [organizationId, ids] of byOrganization) {
      const deleted = await deleteMapRows(db, blobs, organizationId, ids)
      deletedNow += deleted.files
      result.blobs += deleted.blobs
    }
    result.files += deletedNow
    // Rows that vanished meanwhile (a release deleted by hand): nothing left to gain here.
    if (deletedNow === 0) break
  }
  return result
}
