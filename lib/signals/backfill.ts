import { and, asc, eq, gt, isNotNull, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replaySessions, signals } from '@/db/schema'
import type { SessionDigest } from '@/lib/analysis/types'
import { sessionsMatchingSaved } from '@/lib/saved-searches/query'
import { matchSessionDeterministically } from './record-matches'

const BACKFILL_DAYS = 30
const PAGE = 200

/**
 * Matches one signal against the organization's processed sessions of the last 30 days, in
 * pages (a digest per session, never the replay itself). Idempotent: matches are unique per
 * (signal, session), so a retried or repeated backfill counts nothing twice. A paused signal
 * is not scanned: the backfill stops (or never starts) and stays `pending` until it is
 * resumed, which asks for it again (`setSignalStatus`).
 */
/**
 * Hands a paused signal's scan back to `pending`; true when it was paused (or deleted). One
 * conditional statement: a resume that lands between a read and a write would otherwise see
 * `running`, ask for no new scan, and leave the signal `pending` with nothing scanning it.
 */
async function pausedMeanwhile(db: Db, signalId: string): Promise<boolean> {
  const [handedBack] = await db
    .update(signals)
    .set({ backfillStatus: 'pending' })
    .where(and(eq(signals.id, signalId), ne(signals.status, 'active')))
    .returning({ id: signals.id })
  if (handedBack) return true
  const [still] = await db.select({ id: signals.id }).from(signals).where(eq(signals.id, signalId))
  return !still
}

export async function backfillSignal(
  db: Db,
  input: { organizationId: string; signalId: string },
): Promise<number> {
  const [signal] = await db
    .update(signals)
    .set({ backfillStatus: 'running' })
    .where(
      and(
        eq(signals.id, input.signalId),
        eq(signals.organizationId, input.organizationId),
        eq(signals.status, 'active'),
      ),
    )
    .returning({ id: signals.id, prompt: signals.prompt, savedSearchId: signals.savedSearchId })
  if (!signal) return 0
  try {
    let matched = 0
    let after = '00000000-0000-0000-0000-000000000000'
    for (;;) {
      const page = await db
        .select({ id: replaySessions.id, digest: replaySessions.digest })
        .from(replaySessions)
        .where(
          and(
            eq(replaySessions.organizationId, input.organizationId),
            isNotNull(replaySessions.digest),
            // Automated traffic never matches a signal (docs/hostile-input.md#automated-traffic).
            isNull(replaySessions.automation),
            gt(replaySessions.createdAt, sql`now() - make_interval(days => ${BACKFILL_DAYS})`),
            gt(replaySessions.id, after),
          ),
        )
        .orderBy(asc(replaySessions.id))
        .limit(PAGE)
      // A saved search is asked once per page; the sessions it finds are then matched as if the
      // signal had no filter, which they have passed.
      const found = signal.savedSearchId
        ? await sessionsMatchingSaved(db, {
            organizationId: input.organizationId,
            savedSearchId: signal.savedSearchId,
            sessionIds: page.map((s) => s.id),
          })
        : null
      for (const session of page) {
        if (found && !found.has(session.id)) continue
        const ids = await matchSessionDeterministically(db, {
          organizationId: input.organizationId,
          sessionId: session.id,
          digest: session.digest as unknown as SessionDigest,
          signals: [{ ...signal, savedSearchId: null }],
        })
        matched += ids.length
      }
      if (page.length < PAGE) break
      after = page[page.length - 1]!.id
      if (await pausedMeanwhile(db, signal.id)) return matched
    }
    await db.update(signals).set({ backfillStatus: 'completed' }).where(eq(signals.id, signal.id))
    return matched
  } catch (error) {
    await db.update(signals).set({ backfillStatus: 'failed' }).where(eq(signals.id, signal.id))
    throw error
  }
}
