import { createHash } from 'node:crypto'
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { insights, issueActivities, issueSessions, issues, replaySessions, signals } from '@/db/schema'
import { isUuid } from '@/lib/errors'
import { intervalFigures } from '@/lib/insights/figures'
import { findRises } from '@/lib/insights/generate'
import { EVENTS, type EventPayload } from '@/lib/outbox/events'
import { dashboardUrl } from '@/lib/sessions/session-links'
import type { AlertSourceEvent } from './events'

/** What one outbox event can alert about; an insight gives one per rising issue. */
export interface AlertCandidate {
  /** The (rule, event) pair is decided once: the outbox event id, or one derived per (insight, issue). */
  eventId: string
  issueId: string | null
  signalId: string | null
  title: string
  priority: string | null
  kind: string | null
  /**
   * The session the alert shows (the replay link's): a regression's session, else the issue's
   * first; a signal's matched session. What a rule's saved search is asked about.
   */
  sessionId: string | null
  /** The page the issue was seen on (or the session's entry page, for a signal): what `urlContains` reads. */
  pageUrl: string | null
  sessions: number | null
  occurrences: number | null
  evidence: string | null
  issueUrl: string | null
  replayUrl: string | null
  /**
   * A regression: the release of the session it came back in and the release it was fixed in
   * (docs/releases.md#resolve-in-a-release), each null when unknown; absent for other triggers.
   */
  regression?: { release: string | null; resolvedInRelease: string | null }
}

/** One outbox event alert rules listen to, its payload checked against the event catalogue. */
export type AlertSourceEventOf = {
  [N in AlertSourceEvent]: { eventId: string; name: N; organizationId: string; payload: EventPayload<N> }
}[AlertSourceEvent]

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of a namespace and a name, version and variant
 * bits set), so re-running the same insight yields the same event id per rising issue.
 */
export function nameBasedUuid(name: string): string {
  // The URL namespace of RFC 9562, with a URN-like name of ours.
  const namespace = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex')
  const hash = createHash('sha1').update(namespace).update(`urn:alerts:${name}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const firstLine = (text: unknown): string | null => {
  if (typeof text !== 'string') return null
  const line = text.split('\n').find((l) => l.trim() !== '')
  return line ? line.trim().slice(0, 500) : null
}

/** A session's replay opened `at` a moment of it. */
function replayAt(sessionId: string, at: Date, startedAt: Date): string {
  return dashboardUrl(`/sessions/${sessionId}?t=${Math.max(0, at.getTime() - startedAt.getTime())}`)
}

/** Where an issue showed in one session: its first occurrence there, and the session's start. */
async function occurrenceIn(db: DbOrTx, organizationId: string, issueId: string, sessionId: string) {
  const [row] = await db
    .select({
      at: issueSessions.firstOccurrenceAt,
      startedAt: replaySessions.startedAt,
      release: replaySessions.release,
    })
    .from(issueSessions)
    .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
    .where(
      and(
        eq(issueSessions.issueId, issueId),
        eq(issueSessions.sessionId, sessionId),
        eq(issueSessions.organizationId, organizationId),
      ),
    )
  return row ?? null
}

/**
 * An issue as an alert shows it: counts, the first line of evidence, its page, its dashboard and
 * replay links. The replay is the issue's first session at its first occurrence, or, given
 * `sessionId` (a regression: the session it came back in), that session at its moment there.
 */
async function issueCandidate(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  eventId: string,
  sessionId?: string,
): Promise<AlertCandidate | null> {
  const [issue] = await db
    .select()
    .from(issues)
    .where(and(eq(issues.id, issueId), eq(issues.organizationId, organizationId)))
  if (!issue) return null
  const [first] = await db
    .select({
      sessionId: issueSessions.sessionId,
      at: issueSessions.firstOccurrenceAt,
      startedAt: replaySessions.startedAt,
      occurrences: sql<number>`(sum(${issueSessions.occurrences}) over ())::int`,
    })
    .from(issueSessions)
    .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
    .where(eq(issueSessions.issueId, issueId))
    .orderBy(asc(issueSessions.firstOccurrenceAt))
    .limit(1)
  const regressed =
    sessionId && isUuid(sessionId) ? await occurrenceIn(db, organizationId, issueId, sessionId) : null
  const fixedIn =
    regressed && sessionId ? await fixReleaseBefore(db, organizationId, issueId, sessionId) : null
  const evidence = (issue.evidence ?? {}) as Record<string, unknown>
  const pageUrl =
    typeof evidence.pageUrl === 'string'
      ? evidence.pageUrl
      : typeof evidence.pathPattern === 'string'
        ? evidence.pathPattern
        : null
  return {
    eventId,
    issueId,
    signalId: null,
    sessionId: regressed && sessionId ? sessionId : (first?.sessionId ?? null),
    title: issue.title,
    priority: issue.priority,
    kind: issue.kind,
    pageUrl,
    sessions: issue.sessionCount,
    occurrences: first ? Number(first.occurrences) : null,
    evidence: firstLine(evidence.message) ?? firstLine(issue.description),
    issueUrl: dashboardUrl(`/issues/${issueId}`),
    replayUrl:
      regressed && sessionId
        ? replayAt(sessionId, regressed.at, regressed.startedAt)
        : first
          ? replayAt(first.sessionId, first.at, first.startedAt)
          : null,
    ...(regressed ? { regression: { release: regressed.release, resolvedInRelease: fixedIn } } : {}),
  }
}

/** The release an issue was fixed in before it came back in `sessionId`: its regression's record. */
async function fixReleaseBefore(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  sessionId: string,
): Promise<string | null> {
  const [activity] = await db
    .select({ fixedIn: sql<string | null>`${issueActivities.metadata}->>'resolvedInRelease'` })
    .from(issueActivities)
    .where(
      and(
        eq(issueActivities.issueId, issueId),
        eq(issueActivities.organizationId, organizationId),
        eq(issueActivities.kind, 'regressed'),
        sql`${issueActivities.metadata}->>'sessionId' = ${sessionId}`,
      ),
    )
    .orderBy(desc(issueActivities.createdAt))
    .limit(1)
  return activity?.fixedIn ?? null
}

async function signalCandidate(
  db: DbOrTx,
  organizationId: string,
  payload: EventPayload<typeof EVENTS.signalMatched>,
  eventId: string,
): Promise<AlertCandidate | null> {
  const [signal] = await db
    .select({ id: signals.id, name: signals.name })
    .from(signals)
    .where(and(eq(signals.id, payload.signalId), eq(signals.organizationId, organizationId)))
  if (!signal) return null
  const { sessionId } = payload
  const [session] = sessionId
    ? await db
        .select({ entryUrl: replaySessions.entryUrl })
        .from(replaySessions)
        .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
    : []
  return {
    eventId,
    issueId: null,
    signalId: signal.id,
    sessionId: session && sessionId ? sessionId : null,
    title: signal.name,
    priority: null,
    kind: null,
    pageUrl: session?.entryUrl ?? null,
    sessions: null,
    occurrences: null,
    evidence: null,
    issueUrl: dashboardUrl(`/signals/${signal.id}`),
    replayUrl: session && sessionId ? dashboardUrl(`/sessions/${sessionId}`) : null,
  }
}

/** Rising issues an insight alerts about at most (by sessions), and candidate loads in flight at once. */
export const MAX_SPIKE_CANDIDATES = 20
const SPIKE_QUERY_CONCURRENCY = 4

/**
 * The issues rising in an insight: the insight stores only its text, so its interval's rises
 * are computed again with the function that found them (lib/insights/generate.ts).
 */
async function spikeCandidates(
  db: DbOrTx,
  organizationId: string,
  insightId: string,
): Promise<AlertCandidate[]> {
  const [insight] = await db
    .select()
    .from(insights)
    .where(and(eq(insights.id, insightId), eq(insights.organizationId, organizationId)))
  if (!insight) return []
  const length = insight.intervalEnd.getTime() - insight.intervalStart.getTime()
  const current = await intervalFigures(db, organizationId, insight.intervalStart, insight.intervalEnd)
  const previous = await intervalFigures(
    db,
    organizationId,
    new Date(insight.intervalStart.getTime() - length),
    insight.intervalStart,
  )
  const rising = [
    ...new Set(findRises(current, previous.sessions > 0 ? previous : null).flatMap((r) => r.issueIds)),
  ]
  if (rising.length === 0) return []
  // The most widespread rising issues only: a spike across hundreds of issues costs a bounded
  // number of queries (and the rule's window limit and digest say the rest anyway).
  const top = await db
    .select({ id: issues.id })
    .from(issues)
    .where(and(eq(issues.organizationId, organizationId), inArray(issues.id, rising)))
    .orderBy(desc(issues.sessionCount), asc(issues.id))
    .limit(MAX_SPIKE_CANDIDATES)
  const found: (AlertCandidate | null)[] = []
  for (let i = 0; i < top.length; i += SPIKE_QUERY_CONCURRENCY)
    found.push(
      ...(await Promise.all(
        top
          .slice(i, i + SPIKE_QUERY_CONCURRENCY)
          .map(({ id }) =>
            issueCandidate(db, organizationId, id, nameBasedUuid(`insight:${insightId}:issue:${id}`)),
          ),
      )),
    )
  return found.filter((c): c is AlertCandidate => c !== null)
}

/** The candidates of one outbox event, loaded once for every rule that looks at it. */
export async function candidatesOf(db: DbOrTx, event: AlertSourceEventOf): Promise<AlertCandidate[]> {
  const { eventId, organizationId } = event
  switch (event.name) {
    case EVENTS.issueCreated:
    case EVENTS.issueRecurred: {
      // A regression's payload names the session the issue came back in.
      const regressedIn = 'sessionId' in event.payload ? event.payload.sessionId : undefined
      const one = await issueCandidate(db, organizationId, event.payload.issueId, eventId, regressedIn)
      return one ? [one] : []
    }
    case EVENTS.signalMatched: {
      const one = await signalCandidate(db, organizationId, event.payload, eventId)
      return one ? [one] : []
    }
    case EVENTS.insightGenerated:
      return spikeCandidates(db, organizationId, event.payload.insightId)
  }
}
