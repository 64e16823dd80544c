/**
 * Which of an issue's sessions a reproduction is built from (docs/reproduction.md#which-session).
 * Only the issue's most recently linked sessions are looked at, by the server's clock, so an
 * issue seen in thousands of sessions costs the same as one seen in a few, and a recording
 * dated in the future cannot stay "latest". Automated sessions are never chosen. Of the rest,
 * sessions whose clock agreed with ours and that started on the issue's usual origin come first;
 * then one with a stored trail in which the failing moment is found, then the one with the
 * fewest user actions before it (the shortest test), then the most recently linked.
 */
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, replaySessions, sessionTimelineEntries } from '@/db/schema'
import type { TrailKind } from '@/lib/analysis/trail'

/** The issue's most recently linked sessions looked at: the usual origin is theirs. */
const RECENT = 100
/** Of those, how many have their trails compared. */
const CANDIDATES = 20
/** How far from the issue's first occurrence its entry may be recorded. */
const NEAR_MS = 10_000
/**
 * A browser whose clock is right records its last activity before we receive it; one that
 * recorded it more than this after our receipt ran ahead of our clock (or was dated on purpose).
 * Its times were clamped (docs/hostile-input.md#times-come-from-the-server) and do not line up.
 */
const AHEAD_MS = 60_000
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
  /** The origin of `entryUrl` (http or https), null when it has none. */
  origin: string | null
  /** The user agent the recorder reported, null when none. */
  userAgent: string | null
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

/** An http(s) URL's origin, as the browser would name it; null for anything else. */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null
  } catch {
    return null
  }
}

/** The origin most of the sessions (newest first) have; the most recent one's among equals. */
function usualOrigin(origins: (string | null)[]): string | null {
  const counts = new Map<string, number>()
  for (const origin of origins) if (origin !== null) counts.set(origin, (counts.get(origin) ?? 0) + 1)
  let usual: string | null = null
  // Map order is first appearance, so newest first: a later equal count does not replace it.
  for (const [origin, n] of counts) if (usual === null || n > counts.get(usual)!) usual = origin
  return usual
}

interface Ranked {
  aheadOfUs: boolean
  elsewhere: boolean
  noTrail: boolean
  linkedAt: Date
  sessionId: string
}

/** Compares by each preference in turn; `extra` comes between the trail and recency. */
function byPreference<T extends Ranked>(extra: (a: T, b: T) => number = () => 0) {
  return (a: T, b: T) =>
    Number(a.aheadOfUs) - Number(b.aheadOfUs) ||
    Number(a.elsewhere) - Number(b.elsewhere) ||
    Number(a.noTrail) - Number(b.noTrail) ||
    extra(a, b) ||
    b.linkedAt.getTime() - a.linkedAt.getTime() ||
    (a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0)
}

export async function bestSession(
  db: DbOrTx,
  organizationId: string,
  issue: { id: string; kind: string },
): Promise<CandidateSession | null> {
  // The issue's own rows only, most recently linked first (the server's clock, not the
  // recording's), before anything is joined: the page and the tool ask on every view, so the
  // cost must not grow with the issue's session count.
  const links = db
    .select({
      sessionId: issueSessions.sessionId,
      firstOccurrenceAt: issueSessions.firstOccurrenceAt,
      evidence: issueSessions.evidence,
      linkedAt: issueSessions.createdAt,
    })
    .from(issueSessions)
    .where(and(eq(issueSessions.issueId, issue.id), eq(issueSessions.organizationId, organizationId)))
    .orderBy(desc(issueSessions.createdAt), desc(issueSessions.sessionId))
    .limit(RECENT)
    .as('links')
  const recent = await db
    .select({
      sessionId: links.sessionId,
      firstOccurrenceAt: links.firstOccurrenceAt,
      evidence: links.evidence,
      linkedAt: links.linkedAt,
      entryUrl: replaySessions.entryUrl,
      userAgent: replaySessions.userAgent,
      startedAt: replaySessions.startedAt,
      userId: replaySessions.userId,
      trailTruncated: replaySessions.trailTruncated,
      aheadOfUs: sql<boolean>`${replaySessions.lastActivityAt} > ${replaySessions.lastReceivedAt} + make_interval(secs => ${AHEAD_MS / 1000})`,
    })
    .from(links)
    .innerJoin(replaySessions, eq(replaySessions.id, links.sessionId))
    // A reproduction run, a webdriver or a bot is never the user the test replays.
    .where(and(eq(replaySessions.organizationId, organizationId), isNull(replaySessions.automation)))
  if (recent.length === 0) return null

  const withOrigin = recent
    .map((row) => ({ ...row, origin: originOf(row.entryUrl) }))
    .sort((a, b) => b.linkedAt.getTime() - a.linkedAt.getTime())
  const usual = usualOrigin(withOrigin.map((row) => row.origin))
  const ranked = withOrigin
    .map((row) => ({
      ...row,
      aheadOfUs: Boolean(row.aheadOfUs),
      elsewhere: row.origin !== usual,
      noTrail: row.trailTruncated === null,
    }))
    .sort(byPreference())
    .slice(0, CANDIDATES)

  // A subquery, so that the trail's subqueries name its columns unambiguously.
  const compared = db
    .select({ sessionId: issueSessions.sessionId, firstOccurrenceAt: issueSessions.firstOccurrenceAt })
    .from(issueSessions)
    .where(
      and(
        eq(issueSessions.issueId, issue.id),
        eq(issueSessions.organizationId, organizationId),
        inArray(
          issueSessions.sessionId,
          ranked.map((row) => row.sessionId),
        ),
      ),
    )
    .as('compared')
  // Named in full: drizzle writes a single-source query's columns unqualified, and the trail's
  // own `session_id` would then compare with itself and count every session's entries.
  const linked = (column: { name: string }) =>
    sql`${sql.identifier('compared')}.${sql.identifier(column.name)}`
  const sessionOfLink = linked(issueSessions.sessionId)
  const e = sessionTimelineEntries
  const moment = sql`(extract(epoch from ${linked(issueSessions.firstOccurrenceAt)}) * 1000)::bigint`
  const found = sql<boolean>`exists (select 1 from ${e} where ${e.sessionId} = ${sessionOfLink}
    and ${e.kind} in (${kindList(FAILURE_KINDS[issue.kind] ?? ['error'])})
    and ${e.at} between ${moment} - ${NEAR_MS} and ${moment} + ${NEAR_MS})`
  const actionsBefore = sql<number>`(select count(*)::int from ${e} where ${e.sessionId} = ${sessionOfLink}
    and ${e.kind} in (${kindList(ACTION_KINDS)}) and ${e.at} <= ${moment})`
  const trails = await db.select({ sessionId: compared.sessionId, found, actionsBefore }).from(compared)
  const trailOf = new Map(trails.map((row) => [row.sessionId, row]))
  const withTrails = ranked.map((row) => ({
    ...row,
    found: Boolean(trailOf.get(row.sessionId)?.found),
    actionsBefore: Number(trailOf.get(row.sessionId)?.actionsBefore ?? 0),
  }))
  const [best] = withTrails.sort(
    byPreference((a, b) => Number(b.found) - Number(a.found) || a.actionsBefore - b.actionsBefore),
  )
  if (!best) return null
  return {
    sessionId: best.sessionId,
    entryUrl: best.entryUrl,
    origin: best.origin,
    userAgent: best.userAgent,
    startedAt: best.startedAt,
    identifiedUser: best.userId !== null,
    trailTruncated: best.trailTruncated,
    firstOccurrenceAt: best.firstOccurrenceAt,
    evidence: best.evidence,
    found: best.found,
    actionsBefore: best.actionsBefore,
  }
}
