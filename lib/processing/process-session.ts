import type { LanguageModel } from 'ai'
import { and, count, eq, max, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replayBatches, replaySessions } from '@/db/schema'
import { matchSignalsWithModel, reviewNewIssues } from '@/lib/ai/apply'
import { writeSessionSummary } from '@/lib/ai/summarise-session'
import type { AnalysisResult, AnalyzerOptions } from '@/lib/analysis/types'
import { AnalysisStopped } from '@/lib/analysis-worker/pool'
import { getSessionAnalysis, type SessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { recordSeenRelease } from '@/lib/issues/fix-release'
import { recordFindings } from '@/lib/issues/record-findings'
import type { JobsEngine, StepTools } from '@/lib/jobs/types'
import { logger } from '@/lib/log'
import { dispatchOutbox } from '@/lib/outbox/dispatch'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { replaceTrail } from '@/lib/sessions/store-trail'
import { userAgentFacts } from '@/lib/sessions/user-agent'
import { activeSignals, matchSessionDeterministically } from '@/lib/signals/record-matches'
import type { BlobStore } from '@/lib/storage/types'
import { analyseStoredSession, stoppedReason } from './analyse-session'
import { claimSession, markSessionFailed, markSessionStopped } from './claim'
import { mappedCount, symbolicateSession } from './symbolicate-session'
import type { SymbolicateFrames } from './symbolicator'

export interface ProcessingDeps {
  db: Db
  blobs: BlobStore
  jobs: JobsEngine
  baseUrl: string
  ingestUrl: string
  /** With a model, new issues are reviewed and signals judged by it; without, all is deterministic. */
  model?: LanguageModel | null
  /** The worker pool and budget; the process-wide pool and the configured budget by default. */
  analysis?: SessionAnalysis
  /**
   * Resolves error frames through the source maps of the session's release
   * (docs/source-maps.md); without it, sessions are analysed once, by their minified frames.
   */
  symbolicate?: SymbolicateFrames
}

export type ProcessOutcome =
  | { status: 'skipped'; reason: string }
  /** The analysis was stopped (over budget): the session is `failed` with this reason, for good. */
  | { status: 'failed'; reason: string }
  | {
      status: 'processed'
      created: string[]
      linked: string[]
      regressed: string[]
      signals: string[]
      requeued: boolean
    }

/**
 * One processing pass over a session, written as idempotent steps: claim it, analyse every
 * stored batch (streamed), then record issues, signal matches and the session's figures in
 * one transaction that also writes the outbox events. A retry resumes after the last
 * completed step; a second trigger finds the session claimed and does nothing.
 */
export async function processSession(
  deps: ProcessingDeps,
  input: {
    sessionId: string
    runId: string
    step: StepTools
    /**
     * Whether the engine will not retry this run: a failed symbolication (storage or database
     * down) then files the session by minified frames instead of failing the run. Runs that
     * will be retried fail instead, so a passing outage does not split issues for good.
     */
    finalAttempt?: boolean
  },
): Promise<ProcessOutcome> {
  const { db, blobs } = deps
  const { sessionId, runId, step } = input

  const claim = await step.run('claim', () => claimSession(db, sessionId, runId))
  if (!claim)
    return { status: 'skipped', reason: 'not waiting for processing (already claimed or processed)' }

  // batchCount is absent from an analysis memoized by a run that began before it was kept.
  type Analysed =
    | { result: AnalysisResult; throughSequence: number; batchCount?: number }
    | { stopped: string }
  const analyse = async (stepId: string, options: AnalyzerOptions): Promise<Analysed> => {
    try {
      // Analysis runs in a worker thread, within a time and memory budget: a hostile or huge
      // recording never holds up the requests this thread serves.
      return await step.run(stepId, async () => {
        try {
          return await analyseStoredSession(
            db,
            blobs,
            sessionId,
            options,
            deps.analysis ?? getSessionAnalysis(),
          )
        } catch (error) {
          // Returned, not thrown: the step's result is memoized, so no retry analyses it again.
          if (!(error instanceof AnalysisStopped)) throw error
          logger.warn({ err: error, sessionId, stopCause: error.stopCause }, 'session analysis stopped')
          return { stopped: stoppedReason(error, runId) }
        }
      })
    } catch (error) {
      // Members read the reason on the session page: no driver or storage message (hosts,
      // paths) there; the cause goes to the log under this run's id.
      logger.warn({ err: error, sessionId }, 'session analysis failed')
      await markSessionFailed(
        db,
        sessionId,
        claim.claimToken,
        `Analysis failed: the recording could not be read or analysed (run ${runId}). It is retried automatically.`,
      )
      throw error
    }
  }

  const ignoreRequestUrls = [deps.ingestUrl]
  let analysed = await analyse('analyze', { ignoreRequestUrls })
  // A second pass, by original frames, only when the release's maps resolved some of the
  // first pass's error frames: sessions without errors, a release or maps cost nothing more.
  const symbolicate = deps.symbolicate
  // Debug IDs find a map under any release of the organization: a session that reported some
  // is symbolicated with no release of its own ('' names none, so only debug IDs match).
  const release = claim.release ?? (claim.hasDebugIds ? '' : null)
  const errorFrames = 'result' in analysed ? analysed.result.errorFrames : undefined
  const errorStacks = 'result' in analysed ? analysed.result.errorStacks : undefined
  let framesMapped = 0
  if (symbolicate && release !== null && errorFrames && errorFrames.length > 0) {
    const symbolication = await step.run('symbolicate', () =>
      symbolicateSession(db, symbolicate, {
        organizationId: claim.organizationId,
        sessionId,
        release,
        frames: errorFrames,
        stacks: errorStacks,
        rethrow: input.finalAttempt === false,
      }),
    )
    framesMapped = mappedCount(symbolication)
    if (symbolication) {
      const second = await analyse('analyze-symbolicated', { ignoreRequestUrls, symbolication })
      // Stopped over its budget the second time (it reads the session again and does frame
      // work): the first pass's findings stand, by minified frames, rather than none at all.
      if ('result' in second) analysed = second
      else
        logger.warn(
          { sessionId, reason: second.stopped },
          'symbolicated analysis stopped; minified frames kept',
        )
    }
  }
  if ('stopped' in analysed) {
    const reason = analysed.stopped
    await step.run('stopped', () => markSessionStopped(db, sessionId, claim.claimToken, reason))
    return { status: 'failed', reason }
  }
  const analysis = analysed

  // A plain transaction, not commitWithEvents: its events wait for the run's last step, so
  // that issue.created goes out after the model's review, not before it.
  const recorded = await step.run('record', () =>
    db.transaction(async (tx) => {
      const [owned] = await tx
        .select({ id: replaySessions.id, automation: replaySessions.automation })
        .from(replaySessions)
        .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.processingClaim, claim.claimToken)))
        .for('update')
      if (!owned) return null
      // Automated traffic (docs/hostile-input.md#automated-traffic) is analysed so it can be
      // viewed, but records no finding: no issue, link, regression or signal match, so no
      // count, priority, alert or webhook follows from it. Read under the row lock: a batch
      // may mark the session until this pass has counted it, never after.
      const automated = owned.automation !== null
      // A release is seen when a counted session runs it (docs/releases.md): a reproduction run
      // against a preview makes no release "the next one".
      if (!automated && claim.release)
        await recordSeenRelease(tx, { organizationId: claim.organizationId, version: claim.release })
      const issues = automated
        ? { created: [], linked: [], regressed: [], oldRelease: [] }
        : await recordFindings(tx, {
            organizationId: claim.organizationId,
            sessionId,
            sessionStart: claim.startedAt,
            release: claim.release ?? null,
            findings: analysis.result.findings,
            baseUrl: deps.baseUrl,
          })
      // Batches that arrived during the pass: the session goes back to waiting, and is asked
      // for again at once when the recorder flushed it as final meanwhile.
      // Batches are only ever added to a session, so more of them than the pass read means some
      // arrived meanwhile — also one of another tab with a sequence the pass already covered.
      const [latest] = await tx
        .select({ sequence: max(replayBatches.sequence), count: count() })
        .from(replayBatches)
        .where(eq(replayBatches.sessionId, sessionId))
      const late =
        (latest?.sequence ?? -1) > analysis.throughSequence ||
        (analysis.batchCount !== undefined && (latest?.count ?? 0) > analysis.batchCount)
      const { summary, digest } = analysis.result
      // An analysis memoized by a run that began before trails were recorded has none: the
      // session then has no trail (null), not an empty one.
      const trail = (analysis.result as Partial<AnalysisResult>).trail
      await replaceTrail(tx, {
        organizationId: claim.organizationId,
        sessionId,
        trail: trail ?? { entries: [], truncated: false },
      })
      const [agent] = await tx
        .select({ userAgent: replaySessions.userAgent })
        .from(replaySessions)
        .where(eq(replaySessions.id, sessionId))
      const [session] = await tx
        .update(replaySessions)
        .set({
          ...userAgentFacts(agent?.userAgent),
          status: late ? 'receiving' : 'processed',
          processedAt: sql`now()`,
          processedThroughSequence: analysis.throughSequence,
          processingClaim: null,
          failureReason: null,
          durationMs: summary.durationMs,
          pageCount: summary.pageCount,
          errorCount: summary.errorCount,
          rageClickCount: summary.rageClickCount,
          digest: digest as unknown as Record<string, unknown>,
          trailTruncated: trail ? trail.truncated : null,
          // A summary of an earlier pass describes less than this one: the ai-summary step
          // writes the new one, and without a model the deterministic one is answered.
          aiSummary: null,
        })
        .where(eq(replaySessions.id, sessionId))
        .returning({
          requestedAgain: sql<boolean>`coalesce(${replaySessions.processingRequestedAt} > ${replaySessions.processingStartedAt}, false)`,
        })
      // After the trail and the session's figures are written: a signal filtered by a saved
      // search asks the search, which reads them (docs/saved-searches.md).
      const signals =
        deps.model || automated
          ? []
          : await matchSessionDeterministically(tx, {
              organizationId: claim.organizationId,
              sessionId,
              digest: analysis.result.digest,
              signals: await activeSignals(tx, claim.organizationId),
            })
      const requeued = late && Boolean(session?.requestedAgain)
      if (requeued)
        await enqueueEvent(tx, {
          organizationId: claim.organizationId,
          name: EVENTS.sessionFinalize,
          payload: { organizationId: claim.organizationId, sessionId },
          // The count too: a late batch of another tab can repeat the highest sequence.
          dedupeKey: `session.finalize:${sessionId}:after:${latest?.sequence}:${latest?.count}`,
        })
      return { ...issues, signals, requeued, automated }
    }),
  )
  if (!recorded) return { status: 'skipped', reason: 'the claim was taken over by another run' }

  // No model is spent on automated traffic: anyone with the public key can send it.
  const model = recorded.automated ? null : deps.model
  if (model) {
    // After the commit: a slow or failing model never holds up issue creation.
    await step.run('ai-review', () => reviewNewIssues(db, model, recorded.created))
    recorded.signals = await step.run('ai-signals', () =>
      matchSignalsWithModel(db, model, {
        organizationId: claim.organizationId,
        sessionId,
        digest: analysis.result.digest,
      }),
    )
    // Anyone with the public ingest key can create sessions, so the model is spent only on
    // sessions where something went wrong; the others keep the deterministic summary.
    if (analysis.result.findings.length > 0)
      await step.run('ai-summary', () =>
        writeSessionSummary(db, model, { organizationId: claim.organizationId, sessionId }),
      )
  }

  await step.run('dispatch', () =>
    dispatchOutbox(db, deps.jobs, {
      olderThanSeconds: -1,
      limit: 1000,
      organizationId: claim.organizationId,
    }),
  )
  logger.info(
    {
      organizationId: claim.organizationId,
      sessionId,
      issuesCreated: recorded.created.length,
      issuesLinked: recorded.linked.length,
      issuesRegressed: recorded.regressed.length,
      issuesOldRelease: recorded.oldRelease.length,
      signalsMatched: recorded.signals.length,
      requeued: recorded.requeued,
      framesMapped,
    },
    'session processed',
  )
  const { automated: _automated, ...outcome } = recorded
  return { status: 'processed', ...outcome }
}
