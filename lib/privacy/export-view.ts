import { z } from 'zod'
import { type dataExports, PERSON_KINDS, PRIVACY_JOB_STATUSES } from '@/db/schema'

type ExportRow = typeof dataExports.$inferSelect

/** How long an export's file can be fetched before the sweep deletes it (docs/privacy.md#exports). */
export const EXPORT_LIFETIME_DAYS = 7

/** The file stops here, with a last line saying so: a person with years of sessions is still one bounded file. */
export const EXPORT_MAX_BYTES = 512 * 1024 * 1024

/** Plain bytes sealed per stored part: BlobStore writes whole objects, so the file is kept in parts. */
export const EXPORT_PART_BYTES = 8 * 1024 * 1024

export const EXPORT_NOT_FOUND = 'Export not found'
export const EXPORT_EXPIRED = 'Export has expired and its file was deleted; request a new one'

const isoDate = z.iso.datetime({ offset: true })

/** An export as the Data API and the dashboard show it; never the person's identifier. */
export const ExportView = z.object({
  id: z.uuid(),
  status: z.enum(PRIVACY_JOB_STATUSES),
  personKind: z.enum(PERSON_KINDS).meta({ description: 'How the request named the person' }),
  counts: z.record(z.string(), z.number()).meta({
    description: 'sessions, events, timelineEntries, issues (links of an issue to a session), parts',
  }),
  truncated: z.boolean().meta({ description: 'The file reached its size bound and stops early' }),
  byteSize: z.number().int().nullable().meta({ description: 'Size of the NDJSON file once completed' }),
  expiresAt: isoDate,
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  completedAt: isoDate.nullable(),
  error: z.string().nullable(),
  downloadUrl: z.string().nullable().meta({
    description: 'Where the completed file is fetched (with the same credential); null until completed',
  }),
})
export type ExportView = z.infer<typeof ExportView>

export function isExpired(row: Pick<ExportRow, 'expiresAt'>, now = new Date()): boolean {
  return row.expiresAt.getTime() <= now.getTime()
}

export function toExportView(row: ExportRow): ExportView {
  const { truncated = 0, ...counts } = row.counts
  return {
    id: row.id,
    status: row.status,
    personKind: row.personKind,
    counts,
    truncated: truncated > 0,
    byteSize: row.byteSize,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    error: row.error,
    downloadUrl: row.status === 'completed' ? `/api/v1/exports/${row.id}?download=1` : null,
  }
}
