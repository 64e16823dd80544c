/**
 * A session's stored trail (session_timeline_entries) is replaced as a whole by every analysis
 * pass: a later pass saw at least as much of the session, and a retried step writes the same
 * rows again instead of adding to them.
 */
import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sessionTimelineEntries } from '@/db/schema'
import type { SessionTrail } from '@/lib/analysis/trail'

// 500 rows of 6 columns is 3,000 parameters, far under Postgres' 65,535 per statement.
const ROWS_PER_INSERT = 500

/** Deletes the session's entries and inserts `trail`'s; run it in the pass's transaction. */
export async function replaceTrail(
  tx: DbOrTx,
  input: { organizationId: string; sessionId: string; trail: SessionTrail },
): Promise<void> {
  const { organizationId, sessionId, trail } = input
  await tx.delete(sessionTimelineEntries).where(eq(sessionTimelineEntries.sessionId, sessionId))
  for (let start = 0; start < trail.entries.length; start += ROWS_PER_INSERT) {
    const rows = trail.entries.slice(start, start + ROWS_PER_INSERT).map((entry, i) => ({
      sessionId,
      organizationId,
      position: start + i,
      // rrweb times are integers, but ingest accepts any number and the column is a bigint.
      at: Math.trunc(entry.at),
      kind: entry.kind,
      entry,
    }))
    await tx.insert(sessionTimelineEntries).values(rows)
  }
}
