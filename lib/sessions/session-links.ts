import { and, asc, eq, inArray } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, issues, signalMatches, signals } from '@/db/schema'
import { getConfig } from '@/lib/config'
import type { SessionItem } from './api-views'

export interface SessionLinks {
  issues: SessionItem['issues']
  signals: SessionItem['signals']
}

/**
 * The issues and signals of a page of sessions: one query for each, whatever the page size,
 * both held to the organization on the link and on the linked row.
 */
export async function sessionLinks(
  db: DbOrTx,
  organizationId: string,
  sessionIds: string[],
): Promise<Map<string, SessionLinks>> {
  const links = new Map<string, SessionLinks>(sessionIds.map((id) => [id, { issues: [], signals: [] }]))
  if (sessionIds.length === 0) return links
  const [issueRows, signalRows] = await Promise.all([
    db
      .select({
        sessionId: issueSessions.sessionId,
        id: issues.id,
        title: issues.title,
        kind: issues.kind,
        priority: issues.priority,
        status: issues.status,
      })
      .from(issueSessions)
      .innerJoin(issues, and(eq(issues.id, issueSessions.issueId), eq(issues.organizationId, organizationId)))
      .where(
        and(eq(issueSessions.organizationId, organizationId), inArray(issueSessions.sessionId, sessionIds)),
      )
      .orderBy(asc(issueSessions.firstOccurrenceAt), asc(issues.id)),
    db
      .select({ sessionId: signalMatches.sessionId, id: signals.id, name: signals.name })
      .from(signalMatches)
      .innerJoin(
        signals,
        and(eq(signals.id, signalMatches.signalId), eq(signals.organizationId, organizationId)),
      )
      .where(
        and(eq(signalMatches.organizationId, organizationId), inArray(signalMatches.sessionId, sessionIds)),
      )
      .orderBy(asc(signalMatches.createdAt), asc(signals.id)),
  ])
  for (const { sessionId, ...issue } of issueRows) links.get(sessionId)?.issues.push(issue)
  for (const { sessionId, ...signal } of signalRows) links.get(sessionId)?.signals.push(signal)
  return links
}

/** The session's replay in the dashboard, on this installation's address. */
export function sessionReplayUrl(sessionId: string): string {
  return `${getConfig().baseUrl.replace(/(?<!\/)\/+$/, '')}/sessions/${sessionId}`
}
