import { and, eq, inArray, lt, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'

// A session left `processing` this long by a run that died is taken over by the next trigger.
export const STALE_PROCESSING_MINUTES = 30
// A session whose passes keep failing is left `failed` (with its reason) after this many.
export const MAX_PROCESSING_ATTEMPTS = 5

export interface ClaimedSession {
  organizationId: string
  startedAt: number
  /** Who holds the session; later steps check it (memoized with the claim step). */
  claimToken: string
  /**
   * `replay_sessions.release`, the build the session ran: with one, error frames are
   * symbolicated (docs/source-maps.md) and issues record it. Absent from claims memoized
   * before releases existed: read it with `?? null`.
   */
  release?: string | null
  /**
   * Whether the recorder reported bundler debug IDs: they find maps without a release, so such
   * a session is symbolicated even when it names none. Absent from older memoized claims.
   */
  hasDebugIds?: boolean
}

/**
 * Moves a session to `processing` for one job run. Exactly one of two racing triggers (the
 * finalizer and `flush: final`) wins; the winner's own retries may resume its claim.
 */
export async function claimSession(
  db: DbOrTx,
  sessionId: string,
  runId: string,
): Promise<ClaimedSession | null> {
  const [row] = await db
    .update(replaySessions)
    .set({
      status: 'processing',
      processingClaim: runId,
      processingStartedAt: sql`now()`,
      processingAttempts: sql`${replaySessions.processingAttempts} + 1`,
      failureReason: null,
    })
    .where(
      and(
        eq(replaySessions.id, sessionId),
        or(
          inArray(replaySessions.status, ['receiving', 'failed']),
          and(eq(replaySessions.status, 'processing'), eq(replaySessions.processingClaim, runId)),
          and(
            eq(replaySessions.status, 'processing'),
            lt(
              replaySessions.processingStartedAt,
              sql`now() - make_interval(mins => ${STALE_PROCESSING_MINUTES})`,
            ),
          ),
        ),
      ),
    )
    .returning({
      organizationId: replaySessions.organizationId,
      startedAt: replaySessions.startedAt,
      release: replaySessions.release,
      hasDebugIds: sql<boolean>`${replaySessions.debugIds} is not null`,
    })
  return row
    ? {
        organizationId: row.organizationId,
        startedAt: row.startedAt.getTime(),
        claimToken: runId,
        release: row.release,
        hasDebugIds: row.hasDebugIds,
      }
    : null
}

/**
 * Records why a pass failed. The claim stays with the run, so the engine's retry of that run
 * resumes it; a later trigger (the finalizer) may also take a failed session over.
 */
export async function markSessionFailed(
  db: DbOrTx,
  sessionId: string,
  runId: string,
  reason: string,
): Promise<void> {
  await db
    .update(replaySessions)
    .set({ status: 'failed', failureReason: reason.slice(0, 1000) })
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.processingClaim, runId)))
}

/**
 * Records that the analysis of the session's content was stopped (over its time or memory
 * budget): the same content would be stopped again, so the run lets go of its claim and the
 * finalizer does not ask again (attempts used up). More batches re-open the session as usual.
 */
export async function markSessionStopped(
  db: DbOrTx,
  sessionId: string,
  runId: string,
  reason: string,
): Promise<boolean> {
  const rows = await db
    .update(replaySessions)
    .set({
      status: 'failed',
      failureReason: reason.slice(0, 1000),
      processingClaim: null,
      processingAttempts: sql`greatest(${replaySessions.processingAttempts}, ${MAX_PROCESSING_ATTEMPTS})`,
    })
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.processingClaim, runId)))
    .returning({ id: replaySessions.id })
  return rows.length > 0
}
