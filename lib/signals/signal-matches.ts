import { and, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { replaySessions, signalMatches } from '@/db/schema'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { getSignal } from './get-signal'

export const SIGNAL_MATCHES_PAGE = { default: 25, max: 100 }

export interface SignalMatch {
  id: string
  matchedAt: string
  /** Why it matched, in one line a person can read. */
  evidence: string
  matcher: 'model' | 'deterministic' | 'unknown'
  session: {
    id: string
    /** E-mail, name, user id or anonymous id: the best the recorder sent. */
    user: string
    entryUrl: string
    startedAt: string
    durationMs: number | null
    errorCount: number | null
  }
}

const ModelEvidence = z.object({ matcher: z.literal('model'), reason: z.string() })
const DeterministicEvidence = z.object({
  matcher: z.literal('deterministic'),
  conditions: z.array(z.string()).default([]),
  paths: z.array(z.string()).default([]),
  keywords: z.array(z.string()).default([]),
})

const CONDITION_TEXT: Record<string, string> = {
  error: 'a JavaScript error',
  rage: 'a rage click',
  dead: 'a dead click',
  network: 'a failed request',
}

/** The stored evidence of a match as one line; evidence of an unknown shape is named as such. */
export function evidenceSummary(evidence: unknown): { matcher: SignalMatch['matcher']; text: string } {
  const model = ModelEvidence.safeParse(evidence)
  if (model.success) return { matcher: 'model', text: model.data.reason || 'The AI model judged it a match.' }
  const rules = DeterministicEvidence.safeParse(evidence)
  if (!rules.success) return { matcher: 'unknown', text: 'No evidence was recorded for this match.' }
  const parts = [
    ...rules.data.conditions.map((c) => `had ${CONDITION_TEXT[c] ?? c}`),
    ...rules.data.paths.map((p) => `visited ${p}`),
    ...(rules.data.keywords.length
      ? [`mentions ${rules.data.keywords.map((k) => `“${k}”`).join(', ')}`]
      : []),
  ]
  return {
    matcher: 'deterministic',
    text: parts.length ? `Session ${parts.join('; ')}` : 'Matched by keyword rules',
  }
}

/**
 * The sessions one signal matched, newest match first, keyset-paged. The signal must belong
 * to the organization (NotFound otherwise), and so must every match read.
 */
export async function listSignalMatches(
  db: DbOrTx,
  input: { organizationId: string; signalId: string },
  query: { limit: number; cursor?: string },
): Promise<Page<SignalMatch>> {
  const signal = await getSignal(db, input)
  const request = {
    limit: query.limit,
    cursor: query.cursor,
    scope: `signal-matches:${input.organizationId}:${signal.id}`,
  }
  const rows = await db
    .select({
      id: signalMatches.id,
      createdAt: signalMatches.createdAt,
      evidence: signalMatches.evidence,
      sessionId: replaySessions.id,
      userEmail: replaySessions.userEmail,
      userName: replaySessions.userName,
      userId: replaySessions.userId,
      anonymousId: replaySessions.anonymousId,
      entryUrl: replaySessions.entryUrl,
      startedAt: replaySessions.startedAt,
      durationMs: replaySessions.durationMs,
      errorCount: replaySessions.errorCount,
    })
    .from(signalMatches)
    .innerJoin(
      replaySessions,
      and(
        eq(replaySessions.id, signalMatches.sessionId),
        eq(replaySessions.organizationId, input.organizationId),
      ),
    )
    .where(
      and(
        eq(signalMatches.signalId, signal.id),
        eq(signalMatches.organizationId, input.organizationId),
        afterCursor(request, signalMatches.createdAt, signalMatches.id),
      ),
    )
    .orderBy(desc(signalMatches.createdAt), desc(signalMatches.id))
    .limit(query.limit + 1)
  return toPage(rows, request, (row) => {
    const evidence = evidenceSummary(row.evidence)
    return {
      id: row.id,
      matchedAt: row.createdAt.toISOString(),
      evidence: evidence.text,
      matcher: evidence.matcher,
      session: {
        id: row.sessionId,
        user: row.userEmail ?? row.userName ?? row.userId ?? row.anonymousId,
        entryUrl: row.entryUrl,
        startedAt: row.startedAt.toISOString(),
        durationMs: row.durationMs,
        errorCount: row.errorCount,
      },
    }
  })
}
