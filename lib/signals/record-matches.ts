import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { signalMatches, signals } from '@/db/schema'
import type { SessionDigest } from '@/lib/analysis/types'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { sessionsMatchingSaved } from '@/lib/saved-searches/query'
import { matchDigest, parsePrompt } from './deterministic-match'

type SignalRow = { id: string; prompt: string; savedSearchId: string | null }

/** Active signals of an organization, for matching a session. */
export function activeSignals(db: DbOrTx, organizationId: string): Promise<SignalRow[]> {
  return db
    .select({ id: signals.id, prompt: signals.prompt, savedSearchId: signals.savedSearchId })
    .from(signals)
    .where(and(eq(signals.organizationId, organizationId), eq(signals.status, 'active')))
}

/**
 * Stores one match per (signal, session) and counts it once: re-processing a session or
 * re-running a backfill never counts a match twice.
 */
export async function recordMatch(
  db: DbOrTx,
  input: { organizationId: string; signalId: string; sessionId: string; evidence: Record<string, unknown> },
): Promise<boolean> {
  // One commit for the match, its count and its outbox event (a savepoint inside a caller's
  // transaction): committed one by one, a crash after the match row left its event unwritten
  // for good, since a retry finds the match and records nothing (found by faults.process).
  return commitWithEvents(db, async (tx) => {
    const [inserted] = await tx
      .insert(signalMatches)
      .values(input)
      .onConflictDoNothing()
      .returning({ id: signalMatches.id, createdAt: signalMatches.createdAt })
    if (!inserted) return false
    await tx
      .update(signals)
      .set({
        matchCount: sql`${signals.matchCount} + 1`,
        lastMatchAt: sql`greatest(${signals.lastMatchAt}, ${inserted.createdAt.toISOString()}::timestamptz)`,
      })
      .where(eq(signals.id, input.signalId))
    await enqueueEvent(tx, {
      organizationId: input.organizationId,
      name: EVENTS.signalMatched,
      payload: { signalId: input.signalId, sessionId: input.sessionId, orgId: input.organizationId },
      dedupeKey: `signal.matched:${input.signalId}:${input.sessionId}`,
    })
    return true
  })
}

/**
 * The signals that may match the session: those without a saved search, and those whose saved
 * search finds it (docs/saved-searches.md). Each saved search is asked once, whatever the
 * number of signals sharing it.
 */
export async function signalsFiltering(
  db: DbOrTx,
  input: { organizationId: string; sessionId: string; signals: SignalRow[] },
): Promise<SignalRow[]> {
  const finds = new Map<string, boolean>()
  const kept: SignalRow[] = []
  for (const signal of input.signals) {
    const savedSearchId = signal.savedSearchId
    if (savedSearchId) {
      let found = finds.get(savedSearchId)
      if (found === undefined) {
        const ids = await sessionsMatchingSaved(db, {
          organizationId: input.organizationId,
          savedSearchId,
          sessionIds: [input.sessionId],
        })
        found = ids.has(input.sessionId)
        finds.set(savedSearchId, found)
      }
      if (!found) continue
    }
    kept.push(signal)
  }
  return kept
}

/** Deterministic matching of one session against the given signals; returns newly matched ids. */
export async function matchSessionDeterministically(
  db: DbOrTx,
  input: { organizationId: string; sessionId: string; digest: SessionDigest; signals: SignalRow[] },
): Promise<string[]> {
  const matched: string[] = []
  for (const signal of await signalsFiltering(db, input)) {
    const result = matchDigest(parsePrompt(signal.prompt), input.digest)
    if (!result.matched) continue
    const counted = await recordMatch(db, {
      organizationId: input.organizationId,
      signalId: signal.id,
      sessionId: input.sessionId,
      evidence: { matcher: 'deterministic', ...result.evidence },
    })
    if (counted) matched.push(signal.id)
  }
  return matched
}
