import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { memberships } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { ConflictError, ForbiddenError, NotFoundError } from '@/lib/errors'
import { unwrapDataKey } from '@/lib/sealing/data-keys'
import type { BlobStore } from '@/lib/storage/types'
import { exportFileStream } from './export-file'
import { exportRowOf } from './export-lookup'
import { EXPORT_EXPIRED, isExpired } from './export-view'

export interface ExportDownload {
  stream: ReadableStream<Uint8Array>
  fileName: string
  byteSize: number
}

/**
 * A completed export's file, decrypted part by part as it is read, and the audit entry that
 * says who fetched it. Expired → not found (the file is gone or about to be); not completed
 * yet → conflict, with the status to poll.
 */
export async function openExportDownload(
  db: DbOrTx,
  blobs: BlobStore,
  actor: Actor,
  exportId: string,
): Promise<ExportDownload> {
  const row = await exportRowOf(db, actor.organizationId, exportId)
  if (isExpired(row)) throw new NotFoundError(EXPORT_EXPIRED)
  if (row.status !== 'completed')
    throw new ConflictError(`Export is not ready (status ${row.status}); fetch it again when completed`)
  if (!row.wrappedKey || !row.kekId) throw new NotFoundError(EXPORT_EXPIRED)
  const dataKey = unwrapDataKey(row.wrappedKey, row.kekId)
  await recordAudit(db, actor, {
    action: 'export.downloaded',
    targetType: 'export',
    targetId: row.id,
    metadata: { byteSize: row.byteSize },
  })
  return {
    stream: exportFileStream(blobs, row.organizationId, row.id, row.counts.parts ?? 0, dataKey),
    fileName: `export-${row.id}.ndjson`,
    byteSize: row.byteSize ?? 0,
  }
}

/** The HTTP answer both the Data API and the dashboard give for a download. */
export function exportDownloadResponse(download: ExportDownload): Response {
  return new Response(download.stream, {
    headers: {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${download.fileName}"`,
      'Content-Length': String(download.byteSize),
      'X-Content-Type-Options': 'nosniff',
    },
  })
}

export const OWNERS_ONLY = 'Only organization owners can export or download a person’s data'

/** A dashboard member acting on exports: owners only, as for the Data API's write:privacy keys. */
export async function exportOwnerActor(db: DbOrTx, organizationId: string, userId: string): Promise<Actor> {
  const [member] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
  if (member?.role !== 'owner') throw new ForbiddenError(OWNERS_ONLY)
  return { organizationId, actorType: 'user', actorId: userId }
}
