import { actorOfPrincipal } from '@/lib/actor'
import { NotFoundError } from '@/lib/errors'
import { exportDownloadResponse, openExportDownload } from '@/lib/privacy/export-download'
import { exportRowOf } from '@/lib/privacy/export-lookup'
import { requestExport } from '@/lib/privacy/export-request'
import { EXPORT_EXPIRED, isExpired, toExportView } from '@/lib/privacy/export-view'
import { parsePersonBody } from '@/lib/privacy/person-body'
import { getBlobStore } from '@/lib/storage'
import type { ApiRequest } from './request'

type ExportParams = { exportId: string }

/** POST /api/v1/exports: 202, the export queued. */
export async function requestExportRequest({ db, principal, body }: ApiRequest<unknown>) {
  const person = parsePersonBody(body)
  return { export: await requestExport(db, actorOfPrincipal(principal), person) }
}

/**
 * GET /api/v1/exports/{exportId}: the status as JSON, or with `?download=1` the completed
 * file as NDJSON. Expired exports are not found, with a message saying why.
 */
export async function getExportRequest({ db, principal, params, query }: ApiRequest<ExportParams>) {
  if (query.get('download') === '1') {
    const download = await openExportDownload(
      db,
      getBlobStore(),
      actorOfPrincipal(principal),
      params.exportId,
    )
    return exportDownloadResponse(download)
  }
  const row = await exportRowOf(db, principal.organizationId, params.exportId)
  if (isExpired(row)) throw new NotFoundError(EXPORT_EXPIRED)
  return { export: toExportView(row) }
}
