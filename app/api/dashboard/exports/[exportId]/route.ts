import { dashboardRoute } from '@/lib/http/dashboard-api'
import { exportDownloadResponse, exportOwnerActor, openExportDownload } from '@/lib/privacy/export-download'
import { getBlobStore } from '@/lib/storage'

/** A completed export's NDJSON file, for the owner signed in to the dashboard (audited per download). */
export const GET = dashboardRoute<{ exportId: string }>(async ({ db, organizationId, userId, params }) => {
  const actor = await exportOwnerActor(db, organizationId, userId)
  return exportDownloadResponse(await openExportDownload(db, getBlobStore(), actor, params.exportId))
})
