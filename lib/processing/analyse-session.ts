import { eq, max } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replayBatches } from '@/db/schema'
import type { AnalysisResult, AnalyzerOptions } from '@/lib/analysis/types'
import type { AnalysisStopped } from '@/lib/analysis-worker/pool'
import { formatSeconds, type SessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { CLOCK_SKEW_MS } from '@/lib/ingest/clock-skew'
import { readSessionBatches, sessionBatches } from '@/lib/sessions/read-events'
import type { BlobStore } from '@/lib/storage/types'

/**
 * When the server received the session's latest batch: no event can have happened later than
 * that by more than the clock skew (docs/hostile-input.md#times-come-from-the-server).
 */
async function lastReceivedAt(db: DbOrTx, sessionId: string): Promise<number | null> {
  const [row] = await db
    .select({ at: max(replayBatches.createdAt) })
    .from(replayBatches)
    .where(eq(replayBatches.sessionId, sessionId))
  return row?.at ? new Date(row.at).getTime() : null
}

/**
 * Analyses every stored batch of a session in a worker thread: this thread only reads the
 * batches, in order, and hands their bytes over. Event times are read no later than the
 * server's receipt of the last batch plus the clock skew.
 */
export async function analyseStoredSession(
  db: DbOrTx,
  blobs: BlobStore,
  sessionId: string,
  options: AnalyzerOptions,
  analysis: SessionAnalysis,
): Promise<{ result: AnalysisResult; throughSequence: number; batchCount: number }> {
  const batches = await sessionBatches(db, sessionId)
  const received = await lastReceivedAt(db, sessionId)
  const bounded = received === null ? options : { ...options, latestAt: received + CLOCK_SKEW_MS }
  const result = await analysis.pool.analyse(readSessionBatches(blobs, batches), bounded, analysis.budget)
  // A visit of several tabs is read in time order, not sequence order (visitOrder).
  const throughSequence = batches.reduce((highest, batch) => Math.max(highest, batch.sequence), -1)
  // Two tabs can take one sequence: a batch of another tab with a sequence already covered
  // arrives late too, and only the count tells (process-session's late check).
  return { result, throughSequence, batchCount: batches.length }
}

/** What members read on the session page when its analysis was stopped. */
export function stoppedReason(stopped: AnalysisStopped, runId: string): string {
  const again = 'It is not retried; the session is analysed again if more of it is recorded.'
  const { budget } = stopped
  switch (stopped.stopCause) {
    case 'time':
      return `Analysis stopped: the recording took more than ${formatSeconds(budget.timeoutMs)} s to analyse (limit ANALYSIS_TIMEOUT_SECONDS). ${again}`
    case 'memory':
      return `Analysis stopped: the recording needed more than ${budget.memoryMb} MB of memory to analyse (limit ANALYSIS_MEMORY_MB). ${again}`
    case 'crash':
      return `Analysis stopped: the analyser quit unexpectedly on this recording (run ${runId}). ${again}`
  }
}
