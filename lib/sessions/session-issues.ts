import { and, asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssuePriority, type IssueStatus, issueSessions, issues } from '@/db/schema'

export interface SessionIssue {
  id: string
  title: string
  kind: string
  priority: IssuePriority
  status: IssueStatus
  /** When the problem first happened in this session: where the replay should open. */
  firstOccurrenceAt: Date
  occurrences: number
}

/** The issues found in one session, in the order they happened. */
export async function sessionIssues(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<SessionIssue[]> {
  return db
    .select({
      id: issues.id,
      title: issues.title,
      kind: issues.kind,
      priority: issues.priority,
      status: issues.status,
      firstOccurrenceAt: issueSessions.firstOccurrenceAt,
      occurrences: issueSessions.occurrences,
    })
    .from(issueSessions)
    .innerJoin(issues, and(eq(issues.id, issueSessions.issueId), eq(issues.organizationId, organizationId)))
    .where(and(eq(issueSessions.sessionId, sessionId), eq(issueSessions.organizationId, organizationId)))
    .orderBy(asc(issueSessions.firstOccurrenceAt), asc(issues.id))
}
