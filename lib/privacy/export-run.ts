import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { dataExports } from '@/db/schema'
import { newDataKey, wrapDataKey } from '@/lib/sealing/data-keys'
import type { BlobStore } from '@/lib/storage/types'
import { type ExportCounts, writePersonExport } from './export-document'
import { ExportFileWriter, exportFolder } from './export-file'
import { exportRowOf } from './export-lookup'
import { EXPORT_MAX_BYTES, EXPORT_PART_BYTES, isExpired } from './export-view'
import { openPerson } from './person'
import { privacySafeError } from './safe-failure'

export type ExportOutcome =
  | { status: 'completed'; counts: ExportCounts; byteSize: number; parts: number }
  | { status: 'skipped'; reason: string }

/**
 * The export job (EVENTS.exportRequested): writes the person's NDJSON file into blob storage,
 * sealed with a data key of its own whose wrapped form is kept on the row, then marks the
 * export completed. A retry starts the file again from nothing.
 */
export async function runExport(
  deps: { db: Db; blobs: BlobStore },
  input: { organizationId: string; exportId: string },
  options: { maxBytes?: number; partBytes?: number; now?: Date } = {},
): Promise<ExportOutcome> {
  const { db, blobs } = deps
  const row = await exportRowOf(db, input.organizationId, input.exportId)
  if (row.status === 'completed') return { status: 'skipped', reason: 'already completed' }
  if (isExpired(row, options.now) || !row.personSealed)
    return { status: 'skipped', reason: 'expired before it ran' }
  const person = openPerson(row.personKind, row.personSealed)
  const thisExport = and(eq(dataExports.id, row.id), eq(dataExports.organizationId, row.organizationId))
  await db
    .update(dataExports)
    .set({ status: 'running', startedAt: new Date(), error: null })
    .where(thisExport)
  try {
    // Parts an earlier, failed attempt left behind would otherwise trail a shorter file.
    const folder = exportFolder(row.organizationId, row.id)
    await blobs.delete(await blobs.list(folder))
    const dataKey = newDataKey()
    const file = new ExportFileWriter(
      blobs,
      row.organizationId,
      row.id,
      dataKey,
      options.partBytes ?? EXPORT_PART_BYTES,
    )
    const counts = await writePersonExport(deps, {
      organizationId: row.organizationId,
      exportId: row.id,
      person,
      file,
      maxBytes: options.maxBytes ?? EXPORT_MAX_BYTES,
      now: options.now,
    })
    await db
      .update(dataExports)
      .set({
        status: 'completed',
        blobKey: folder,
        ...wrapDataKey(dataKey),
        byteSize: file.bytes,
        counts: { ...counts, parts: file.parts },
        completedAt: new Date(),
      })
      .where(thisExport)
    return { status: 'completed', counts, byteSize: file.bytes, parts: file.parts }
  } catch (error) {
    // The row says only that it failed (the job retries).
    await db
      .update(dataExports)
      .set({ status: 'failed', error: 'The export could not be written; it is retried' })
      .where(thisExport)
    // The job's record and log keep the cause, without the person a failed query would name.
    throw privacySafeError(error)
  }
}
