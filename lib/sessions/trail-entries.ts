/**
 * Reading a session's stored trail (store-trail.ts writes it): a window of entries, by time or
 * after a position, for the Data API, MCP tools and the dashboard alike.
 */
import { and, asc, eq, gt, gte, lte, type SQL } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sessionTimelineEntries } from '@/db/schema'
import type { TrailEntry } from '@/lib/analysis/trail'

export interface TrailRange {
  /** Entries at or after this epoch millisecond. */
  fromAt?: number
  /** Entries at or before this epoch millisecond. */
  toAt?: number
  /** Entries after this position (the last one a previous page returned). */
  afterPosition?: number
  limit: number
}

/**
 * Entries of one session of the organization, in position order (which is time order).
 * Another organization's session, or one without a stored trail, gives none: callers tell
 * "not analysed by this version" apart by replaySessions.trailTruncated being null.
 */
export async function readTrail(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
  range: TrailRange,
): Promise<{ position: number; entry: TrailEntry }[]> {
  const t = sessionTimelineEntries
  const where: SQL[] = [eq(t.sessionId, sessionId), eq(t.organizationId, organizationId)]
  if (range.fromAt !== undefined) where.push(gte(t.at, range.fromAt))
  if (range.toAt !== undefined) where.push(lte(t.at, range.toAt))
  if (range.afterPosition !== undefined) where.push(gt(t.position, range.afterPosition))
  return db
    .select({ position: t.position, entry: t.entry })
    .from(t)
    .where(and(...where))
    .orderBy(asc(t.position))
    .limit(range.limit)
}
