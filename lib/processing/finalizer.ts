import { and, eq, lt, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replaySessions } from '@/db/schema'
import type { JobsEngine } from '@/lib/jobs/types'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { MAX_PROCESSING_ATTEMPTS, STALE_PROCESSING_MINUTES } from './claim'

export { MAX_PROCESSING_ATTEMPTS }

const SWEEP_LIMIT = 500

/**
 * The scheduled finalizer: asks for processing of every session idle for `idleSeconds`
 * (server clock), of failed sessions with attempts left, and of sessions a dead run left
 * `processing`, each request handed to the engine after its commit (the outbox sweep, a job
 * of its own, re-sends what a crash left). Returns how many sessions it asked for.
 */
export async function sweepSessions(
  db: Db,
  jobs: JobsEngine,
  options: { idleSeconds: number },
): Promise<number> {
  const due = await db
    .select({
      id: replaySessions.id,
      organizationId: replaySessions.organizationId,
      batchCount: replaySessions.batchCount,
      attempts: replaySessions.processingAttempts,
    })
    .from(replaySessions)
    .where(
      or(
        and(
          eq(replaySessions.status, 'receiving'),
          lt(replaySessions.lastReceivedAt, sql`now() - make_interval(secs => ${options.idleSeconds})`),
        ),
        and(
          eq(replaySessions.status, 'failed'),
          lt(replaySessions.processingAttempts, MAX_PROCESSING_ATTEMPTS),
        ),
        and(
          eq(replaySessions.status, 'processing'),
          lt(
            replaySessions.processingStartedAt,
            sql`now() - make_interval(mins => ${STALE_PROCESSING_MINUTES})`,
          ),
        ),
      ),
    )
    .limit(SWEEP_LIMIT)
  for (const session of due) {
    await commitWithEvents(
      db,
      async (tx) => {
        await enqueueEvent(tx, {
          organizationId: session.organizationId,
          name: EVENTS.sessionFinalize,
          payload: { organizationId: session.organizationId, sessionId: session.id },
          // The same idle state asks once, however often the sweep runs before it is handled.
          dedupeKey: `session.finalize:${session.id}:sweep:${session.batchCount}:${session.attempts}`,
        })
        await tx
          .update(replaySessions)
          .set({ processingRequestedAt: sql`now()` })
          .where(eq(replaySessions.id, session.id))
      },
      jobs,
    )
  }
  return due.length
}
