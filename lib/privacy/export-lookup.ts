import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { dataExports } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { EXPORT_NOT_FOUND, type ExportView, toExportView } from './export-view'

export type ExportRow = typeof dataExports.$inferSelect

/** One export of the organization; another organization's, or a malformed id, does not exist. */
export async function exportRowOf(db: DbOrTx, organizationId: string, exportId: string): Promise<ExportRow> {
  if (!isUuid(exportId)) throw new NotFoundError(EXPORT_NOT_FOUND)
  const [row] = await db
    .select()
    .from(dataExports)
    .where(and(eq(dataExports.id, exportId), eq(dataExports.organizationId, organizationId)))
  if (!row) throw new NotFoundError(EXPORT_NOT_FOUND)
  return row
}

export async function getExport(db: DbOrTx, organizationId: string, exportId: string): Promise<ExportView> {
  return toExportView(await exportRowOf(db, organizationId, exportId))
}

/** The latest exports of the organization, for the dashboard's list. */
export async function recentExports(db: DbOrTx, organizationId: string, limit = 20): Promise<ExportView[]> {
  const rows = await db
    .select()
    .from(dataExports)
    .where(eq(dataExports.organizationId, organizationId))
    .orderBy(desc(dataExports.createdAt), desc(dataExports.id))
    .limit(limit)
  return rows.map(toExportView)
}
