import type { LanguageModel } from 'ai'
import { eq, inArray } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { issues } from '@/db/schema'
import type { SessionDigest } from '@/lib/analysis/types'
import { matchDigest, parsePrompt } from '@/lib/signals/deterministic-match'
import { activeSignals, recordMatch, signalsFiltering } from '@/lib/signals/record-matches'
import { matchSignalWithModel } from './match-signal'
import { reviewIssue } from './review-issue'

/** Lets the model confirm or reject new issues and improve their text; returns how many it reviewed. */
export async function reviewNewIssues(db: Db, model: LanguageModel, issueIds: string[]): Promise<number> {
  if (issueIds.length === 0) return 0
  const rows = await db.select().from(issues).where(inArray(issues.id, issueIds))
  let reviewed = 0
  for (const issue of rows) {
    const review = await reviewIssue(model, issue)
    if (!review) continue
    await db
      .update(issues)
      .set({
        aiVerified: review.verified,
        title: review.title,
        description: review.description,
        stepsToReplicate: review.stepsToReplicate,
      })
      .where(eq(issues.id, issue.id))
    reviewed++
  }
  return reviewed
}

/**
 * Signal matching with a model: each active signal is judged by the model over the session
 * digest; when the model cannot answer, the deterministic matcher decides instead. A signal
 * filtered by a saved search is judged only on sessions the search finds, so no model call is
 * spent on the others.
 */
export async function matchSignalsWithModel(
  db: Db,
  model: LanguageModel,
  input: { organizationId: string; sessionId: string; digest: SessionDigest },
): Promise<string[]> {
  const matched: string[] = []
  const candidates = await signalsFiltering(db, {
    organizationId: input.organizationId,
    sessionId: input.sessionId,
    signals: await activeSignals(db, input.organizationId),
  })
  for (const signal of candidates) {
    const decision = await matchSignalWithModel(model, signal.prompt, input.digest)
    const evidence = decision
      ? { matcher: 'model', reason: decision.reason }
      : { matcher: 'deterministic', ...matchDigest(parsePrompt(signal.prompt), input.digest).evidence }
    const isMatch = decision
      ? decision.matched
      : matchDigest(parsePrompt(signal.prompt), input.digest).matched
    if (!isMatch) continue
    if (await recordMatch(db, { ...input, signalId: signal.id, evidence })) matched.push(signal.id)
  }
  return matched
}
