import { and, desc, eq, gte, inArray, lt, or } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssuePriority, type IssueStatus, issueSessions, issues } from '@/db/schema'
import type { InsightDetail } from './get-insight'

const CANDIDATES = 500

export interface InsightIssue {
  id: string
  title: string
  status: IssueStatus
  priority: IssuePriority
  /** Filed because of a sharp rise in this insight's interval (`sourceType: insight`). */
  filedByInsight: boolean
}

/**
 * The issues an insight is about. Insights store only their text, so they are found again:
 * issues filed from the insight's interval, and issues of that interval (seen in or created
 * during it, as the insight's figures were) whose title the text quotes. Filed ones first,
 * then by sessions seen.
 */
export async function insightIssues(
  db: DbOrTx,
  organizationId: string,
  insight: Pick<InsightDetail, 'intervalStart' | 'intervalEnd' | 'content'>,
): Promise<InsightIssue[]> {
  const start = new Date(insight.intervalStart)
  const end = new Date(insight.intervalEnd)
  const seenInInterval = db
    .select({ id: issueSessions.issueId })
    .from(issueSessions)
    .where(
      and(
        eq(issueSessions.organizationId, organizationId),
        gte(issueSessions.createdAt, start),
        lt(issueSessions.createdAt, end),
      ),
    )
  const rows = await db
    .select({
      id: issues.id,
      title: issues.title,
      status: issues.status,
      priority: issues.priority,
      sourceType: issues.sourceType,
      firstSeenAt: issues.firstSeenAt,
    })
    .from(issues)
    .where(
      and(
        eq(issues.organizationId, organizationId),
        or(
          and(eq(issues.sourceType, 'insight'), eq(issues.firstSeenAt, start)),
          and(gte(issues.createdAt, start), lt(issues.createdAt, end)),
          inArray(issues.id, seenInInterval),
        ),
      ),
    )
    .orderBy(desc(issues.sessionCount), desc(issues.createdAt))
    .limit(CANDIDATES)
  const text = insight.content.toLowerCase()
  return rows
    .map((row) => ({
      id: row.id,
      title: row.title,
      status: row.status,
      priority: row.priority,
      filedByInsight: row.sourceType === 'insight' && row.firstSeenAt.getTime() === start.getTime(),
    }))
    .filter((issue) => issue.filedByInsight || text.includes(issue.title.toLowerCase()))
    .sort((a, b) => Number(b.filedByInsight) - Number(a.filedByInsight))
}
