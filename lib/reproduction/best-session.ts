/**
 * Which of an issue's sessions a reproduction is built from: one with a stored trail in which
 * the failing moment is found, then the one with the fewest user actions before it (the
 * shortest test), then the most recent. Only the sessions of the issue's most recent
 * occurrences are compared, so an issue seen in thousands of sessions costs the same as one seen
 * in a few.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, replaySessions, sessionTimelineEntries } from '@/db/schema'
import type { TrailKind } from '@/lib/analysis/trail'

const CANDIDATES = 20
/** How far from the issue's first occurrence its entry may be recorded. */
const NEAR_MS = 10_000
const ACTION_KINDS: TrailKind[] = ['navigation', 'click', 'input']

const FAILURE_KINDS: Record<string, TrailKind[]> = {
  js_error: ['error'],
  console_error: ['console', 'error'],
  network_error: ['request'],
  dead_click: ['dead_click'],
  rage_click: ['rage_click'],
}

export interface CandidateSession {
  sessionId: string
  entryUrl: string
  startedAt: Date
  identifiedUser: boolean
  /** null: processed before trails existed. */
  trailTruncated: boolean | null
  firstOccurrenceAt: Date
  evidence: Record<string, unknown> | null
  /** The failure's kind of entry is in the trail near the first occurrence. */
  found: boolean
  /** User actions recorded before the first occurrence. */
  actionsBefore: number
}

const kindList = (kinds: TrailKind[]) =>
  sql.join(
    kinds.map((kind) => sql`${kind}`),
    sql`, `,
  )

export async function bestSession(
  db: DbOrTx,
  organizationId: string,
  issue: { id: string; kind: string },
): Promise<CandidateSession | null> {
  // The issue's own rows only, newest occurrence first, before anything is joined: the page
  // and the tool ask on every view, so the cost must not grow with the issue's session count.
  const candidates = db
    .select({
      sessionId: issueSessions.sessionId,
      firstOccurrenceAt: issueSessions.firstOccurrenceAt,
      evidence: issueSessions.evidence,
    })
    .from(issueSessions)
    .where(and(eq(issueSessions.issueId, issue.id), eq(issueSessions.organizationId, organizationId)))
    .orderBy(desc(issueSessions.firstOccurrenceAt), desc(issueSessions.sessionId))
    .limit(CANDIDATES)
    .as('candidates')
  const recent = db
    .select({
      sessionId: candidates.sessionId,
      firstOccurrenceAt: candidates.firstOccurrenceAt,
      evidence: candidates.evidence,
      entryUrl: replaySessions.entryUrl,
      startedAt: replaySessions.startedAt,
      userId: replaySessions.userId,
      trailTruncated: replaySessions.trailTruncated,
    })
    .from(candidates)
    .innerJoin(replaySessions, eq(replaySessions.id, candidates.sessionId))
    .where(eq(replaySessions.organizationId, organizationId))
    .as('recent')

  const e = sessionTimelineEntries
  const moment = sql`(extract(epoch from ${recent.firstOccurrenceAt}) * 1000)::bigint`
  const found = sql<boolean>`exists (select 1 from ${e} where ${e.sessionId} = ${recent.sessionId}
    and ${e.kind} in (${kindList(FAILURE_KINDS[issue.kind] ?? ['error'])})
    and ${e.at} between ${moment} - ${NEAR_MS} and ${moment} + ${NEAR_MS})`
  const actionsBefore = sql<number>`(select count(*)::int from ${e} where ${e.sessionId} = ${recent.sessionId}
    and ${e.kind} in (${kindList(ACTION_KINDS)}) and ${e.at} <= ${moment})`

  const [row] = await db
    .select({
      sessionId: recent.sessionId,
      entryUrl: recent.entryUrl,
      startedAt: recent.startedAt,
      userId: recent.userId,
      trailTruncated: recent.trailTruncated,
      firstOccurrenceAt: recent.firstOccurrenceAt,
      evidence: recent.evidence,
      found,
      actionsBefore,
    })
    .from(recent)
    .orderBy(
      sql`(${recent.trailTruncated} is not null) desc`,
      sql`${found} desc`,
      sql`${actionsBefore} asc`,
      desc(recent.startedAt),
      desc(recent.sessionId),
    )
    .limit(1)
  if (!row) return null
  return {
    sessionId: row.sessionId,
    entryUrl: row.entryUrl,
    startedAt: row.startedAt,
    identifiedUser: row.userId !== null,
    trailTruncated: row.trailTruncated,
    firstOccurrenceAt: row.firstOccurrenceAt,
    evidence: row.evidence,
    found: Boolean(row.found),
    actionsBefore: Number(row.actionsBefore),
  }
}
