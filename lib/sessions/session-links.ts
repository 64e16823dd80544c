import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, issues, signalMatches, signals } from '@/db/schema'
import { cutText } from '@/lib/analysis/trail'
import { getConfig } from '@/lib/config'
import type { SessionItem } from './api-views'

export interface SessionLinks {
  issues: SessionItem['issues']
  signals: SessionItem['signals']
  issueCount: number
  signalCount: number
}

/**
 * How many issues and signals one session lists. A hostile page can make one session file
 * hundreds of issues (up to the analyser's finding cap), so a page of sessions names the first
 * few of each and counts the rest; one session's details name more.
 */
export const LINKS_PER_SESSION = { list: 10, details: 25 } as const

/** Titles are written from page text (an error message, a path): a reference needs its start. */
const TITLE_CHARS = 300

const rankOver = (session: typeof issueSessions.sessionId | typeof signalMatches.sessionId) => ({
  total: sql<number>`(count(*) over (partition by ${session}))::int`.as('total'),
})

/**
 * The issues and signals of a page of sessions: one query for each, whatever the page size,
 * both held to the organization on the link and on the linked row, each cut to `perSession`
 * rows per session by a window in the database (the first ones by occurrence, then by id).
 */
export async function sessionLinks(
  db: DbOrTx,
  organizationId: string,
  sessionIds: string[],
  perSession: number,
): Promise<Map<string, SessionLinks>> {
  const links = new Map<string, SessionLinks>(
    sessionIds.map((id) => [id, { issues: [], signals: [], issueCount: 0, signalCount: 0 }]),
  )
  if (sessionIds.length === 0) return links
  const rankedIssues = db
    .select({
      sessionId: issueSessions.sessionId,
      id: issues.id,
      title: issues.title,
      kind: issues.kind,
      priority: issues.priority,
      status: issues.status,
      rank: sql<number>`row_number() over (partition by ${issueSessions.sessionId} order by ${issueSessions.firstOccurrenceAt}, ${issues.id})`.as(
        'rank',
      ),
      ...rankOver(issueSessions.sessionId),
    })
    .from(issueSessions)
    .innerJoin(issues, and(eq(issues.id, issueSessions.issueId), eq(issues.organizationId, organizationId)))
    .where(
      and(eq(issueSessions.organizationId, organizationId), inArray(issueSessions.sessionId, sessionIds)),
    )
    .as('ranked_issues')
  const rankedSignals = db
    .select({
      sessionId: signalMatches.sessionId,
      id: signals.id,
      name: signals.name,
      rank: sql<number>`row_number() over (partition by ${signalMatches.sessionId} order by ${signalMatches.createdAt}, ${signals.id})`.as(
        'rank',
      ),
      ...rankOver(signalMatches.sessionId),
    })
    .from(signalMatches)
    .innerJoin(
      signals,
      and(eq(signals.id, signalMatches.signalId), eq(signals.organizationId, organizationId)),
    )
    .where(
      and(eq(signalMatches.organizationId, organizationId), inArray(signalMatches.sessionId, sessionIds)),
    )
    .as('ranked_signals')
  const [issueRows, signalRows] = await Promise.all([
    db
      .select()
      .from(rankedIssues)
      .where(lte(rankedIssues.rank, perSession))
      .orderBy(asc(rankedIssues.sessionId), asc(rankedIssues.rank)),
    db
      .select()
      .from(rankedSignals)
      .where(lte(rankedSignals.rank, perSession))
      .orderBy(asc(rankedSignals.sessionId), asc(rankedSignals.rank)),
  ])
  for (const { sessionId, rank: _rank, total, ...issue } of issueRows) {
    const link = links.get(sessionId)
    if (!link) continue
    link.issues.push({ ...issue, title: cutText(issue.title, TITLE_CHARS) })
    link.issueCount = Number(total)
  }
  for (const { sessionId, rank: _rank, total, ...signal } of signalRows) {
    const link = links.get(sessionId)
    if (!link) continue
    link.signals.push(signal)
    link.signalCount = Number(total)
  }
  return links
}

/** A dashboard page on this installation's address (`path` starts with a slash). */
export function dashboardUrl(path: string): string {
  return `${getConfig().baseUrl.replace(/(?<!\/)\/+$/, '')}${path}`
}

/** The session's replay in the dashboard, on this installation's address. */
export function sessionReplayUrl(sessionId: string): string {
  return dashboardUrl(`/sessions/${sessionId}`)
}
