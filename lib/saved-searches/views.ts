import { z } from 'zod'
import type { savedSearches } from '@/db/schema'

/** A saved search as the Data API, MCP and the dashboard show it. */
export const SavedSearch = z.object({
  id: z.uuid(),
  name: z.string(),
  query: z.string(),
  /** The member who saved it; null when a Data API key or an MCP client did, or the member left. */
  createdBy: z.uuid().nullable(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
})
export type SavedSearch = z.infer<typeof SavedSearch>

export type SavedSearchRow = typeof savedSearches.$inferSelect

export function toSavedSearch(row: SavedSearchRow): SavedSearch {
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}
