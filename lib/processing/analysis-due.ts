import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions, type SessionStatus } from '@/db/schema'
import { MAX_PROCESSING_ATTEMPTS } from './claim'

export interface AnalysisSchedule {
  idleSeconds: number
  finalizerIntervalSeconds: number
}

export interface AnalysisState {
  status: SessionStatus
  lastReceivedAt: Date
  processingRequestedAt: Date | null
  processingAttempts: number
}

/** When a session will be analysed, as the session page tells it. */
export type AnalysisDue =
  | { kind: 'done' }
  | { kind: 'now' }
  /** Asked for (a final batch, or the finalizer) and waiting for a worker. */
  | { kind: 'queued' }
  /** Waiting for the idle time; `by` is the latest the finalizer takes to notice it. */
  | { kind: 'idle'; idleSeconds: number; by: Date }
  | { kind: 'retry'; by: Date }
  | { kind: 'given-up' }

/**
 * Derived from the same columns the finalizer reads, so the page's promise is the rule that
 * runs: idle for `idleSeconds` after the last batch (server clock), noticed by the next
 * sweep; a final batch asks at once.
 */
export function analysisDue(state: AnalysisState, schedule: AnalysisSchedule, now = Date.now()): AnalysisDue {
  if (state.status === 'processed') return { kind: 'done' }
  if (state.status === 'processing') return { kind: 'now' }
  const requested = state.processingRequestedAt
  if (state.status === 'failed') {
    if (state.processingAttempts >= MAX_PROCESSING_ATTEMPTS) return { kind: 'given-up' }
    return { kind: 'retry', by: new Date(now + schedule.finalizerIntervalSeconds * 1000) }
  }
  // The final batch and the finalizer set the request time with (or after) the last batch's.
  if (requested && requested.getTime() >= state.lastReceivedAt.getTime()) return { kind: 'queued' }
  const by =
    state.lastReceivedAt.getTime() + (schedule.idleSeconds + schedule.finalizerIntervalSeconds) * 1000
  return { kind: 'idle', idleSeconds: schedule.idleSeconds, by: new Date(by) }
}

/** "a minute", "90 seconds", "30 minutes": the idle time as people say it. */
export function describeSeconds(seconds: number): string {
  if (seconds === 60) return 'a minute'
  if (seconds < 120) return `${seconds} seconds`
  if (seconds % 3600 === 0) return seconds === 3600 ? 'an hour' : `${seconds / 3600} hours`
  return `${Math.round(seconds / 60)} minutes`
}

/** The session's analysis state, or null when it is not the organization's. */
export async function sessionAnalysisState(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<AnalysisState | null> {
  const [row] = await db
    .select({
      status: replaySessions.status,
      lastReceivedAt: replaySessions.lastReceivedAt,
      processingRequestedAt: replaySessions.processingRequestedAt,
      processingAttempts: replaySessions.processingAttempts,
    })
    .from(replaySessions)
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
  return row ?? null
}
