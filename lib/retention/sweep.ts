import { and, asc, eq, lt, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { organizations, replaySessions } from '@/db/schema'
import type { BlobStore } from '@/lib/storage'
import { deleteSessions } from './delete-sessions'

export interface RetentionResult {
  organizations: number
  sessions: number
  blobs: number
  /** True when the run stopped at its budget with more to delete (the next run goes on). */
  more: boolean
}

/**
 * Deletes every session older than its organization's retention (`retention_days`, counted
 * from the session's start), a chunk at a time so that one run holds no long transaction and
 * stops at `maxSessions` on a large backlog.
 */
export async function sweepRetention(
  db: Db,
  blobs: BlobStore,
  options: { now?: number; chunk?: number; maxSessions?: number } = {},
): Promise<RetentionResult> {
  const now = new Date(options.now ?? Date.now())
  const chunk = options.chunk ?? 100
  const maxSessions = options.maxSessions ?? 5_000
  const result: RetentionResult = { organizations: 0, sessions: 0, blobs: 0, more: false }
  const orgs = await db
    .select({ id: organizations.id, days: organizations.retentionDays })
    .from(organizations)
    .orderBy(asc(organizations.id))
  for (const org of orgs) {
    const cutoff = new Date(now.getTime() - org.days * 86_400_000)
    let touched = false
    while (true) {
      if (result.sessions >= maxSessions) {
        result.more = true
        return result
      }
      const expired = await db
        .select({ id: replaySessions.id })
        .from(replaySessions)
        .where(
          and(
            eq(replaySessions.organizationId, org.id),
            lt(replaySessions.startedAt, cutoff),
            // A session still being analysed is left to finish; the next run deletes it.
            sql`${replaySessions.status} <> 'processing'`,
          ),
        )
        .orderBy(asc(replaySessions.startedAt))
        .limit(Math.min(chunk, maxSessions - result.sessions))
      if (expired.length === 0) break
      const deleted = await deleteSessions(db, blobs, {
        organizationId: org.id,
        sessionIds: expired.map((s) => s.id),
      })
      touched = true
      result.sessions += deleted.sessions
      result.blobs += deleted.blobs
      if (deleted.sessions === 0) break
    }
    if (touched) result.organizations++
  }
  return result
}
