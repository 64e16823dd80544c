import { and, asc, eq, isNull, lt, ne, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { organizations, replaySessions } from '@/db/schema'
import type { BlobStore } from '@/lib/storage'
import { idsByOrganization } from './by-organization'
import { deleteSessions } from './delete-sessions'
import { PINNED_SESSION_MAX_DAYS } from './pinned'

export interface RetentionResult {
  organizations: number
  sessions: number
  blobs: number
  /** True when the run stopped at its budget with more to delete (the next run goes on). */
  more: boolean
}

/**
 * Deletes every session older than its organization's retention (`retention_days`, counted
 * from the session's start), oldest first across all organizations — so that on a backlog no
 * organization waits behind another — a chunk at a time (no long transaction), stopping at
 * `maxSessions`. A pinned session is kept until PINNED_SESSION_MAX_DAYS after its start (or its
 * organization's retention, if longer), then goes like any other.
 */
export async function sweepRetention(
  db: Db,
  blobs: BlobStore,
  options: { now?: number; chunk?: number; maxSessions?: number } = {},
): Promise<RetentionResult> {
  const now = new Date(options.now ?? Date.now()).toISOString()
  const chunk = options.chunk ?? 100
  const maxSessions = options.maxSessions ?? 5_000
  const touched = new Set<string>()
  const result: RetentionResult = { organizations: 0, sessions: 0, blobs: 0, more: false }
  while (true) {
    const budget = Math.min(chunk, maxSessions - result.sessions)
    const expired = await db
      .select({ id: replaySessions.id, organizationId: replaySessions.organizationId })
      .from(replaySessions)
      .innerJoin(organizations, eq(organizations.id, replaySessions.organizationId))
      .where(
        and(
          lt(
            replaySessions.startedAt,
            sql`${now}::timestamptz - ${organizations.retentionDays} * interval '1 day'`,
          ),
          // A session still being analysed is left to finish; the next run deletes it.
          ne(replaySessions.status, 'processing'),
          or(
            isNull(replaySessions.pinnedAt),
            lt(
              replaySessions.startedAt,
              sql`${now}::timestamptz - ${PINNED_SESSION_MAX_DAYS} * interval '1 day'`,
            ),
          ),
        ),
      )
      .orderBy(asc(replaySessions.startedAt), asc(replaySessions.id))
      .limit(budget > 0 ? budget : 1)
    if (expired.length === 0) break
    if (budget <= 0) {
      result.more = true
      break
    }
    const byOrganization = idsByOrganization(expired, (row) => row.id)
    let deletedNow = 0
    for (const [organizationId, sessionIds] of byOrganization) {
      const deleted = await deleteSessions(db, blobs, { organizationId, sessionIds })
      if (deleted.sessions > 0) touched.add(organizationId)
      deletedNow += deleted.sessions
      result.blobs += deleted.blobs
    }
    result.sessions += deletedNow
    // Rows that vanished meanwhile (another sweep, a manual delete): nothing left to gain here.
    if (deletedNow === 0) break
  }
  result.organizations = touched.size
  return result
}
