import { and, count, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, replaySessions } from '@/db/schema'
import { isUuid } from '@/lib/errors'
import { getIssueRow } from './get-issue'

const ISSUE_SESSIONS_SHOWN = 50

export interface IssueSession {
  sessionId: string
  /** `session.id` as the recorder sent it. */
  externalId: string
  user: { id: string | null; anonymousId: string; email: string | null; name: string | null }
  entryUrl: string
  startedAt: Date
  occurrences: number
  firstOccurrenceAt: Date
  /** Milliseconds from the session's start to the issue's first occurrence in it. */
  offsetMs: number
  /** The click that triggered the issue in this session, as session analysis resolved it. */
  trigger: { selector: string; text: string } | null
}

const columns = {
  sessionId: issueSessions.sessionId,
  externalId: replaySessions.externalId,
  userId: replaySessions.userId,
  anonymousId: replaySessions.anonymousId,
  userEmail: replaySessions.userEmail,
  userName: replaySessions.userName,
  entryUrl: replaySessions.entryUrl,
  startedAt: replaySessions.startedAt,
  occurrences: issueSessions.occurrences,
  firstOccurrenceAt: issueSessions.firstOccurrenceAt,
  evidence: issueSessions.evidence,
}

interface Row {
  sessionId: string
  externalId: string
  userId: string | null
  anonymousId: string
  userEmail: string | null
  userName: string | null
  entryUrl: string
  startedAt: Date
  occurrences: number
  firstOccurrenceAt: Date
  evidence: Record<string, unknown> | null
}

function triggerOf(evidence: unknown): IssueSession['trigger'] {
  const element = (evidence as { trigger?: { element?: { selector?: unknown; text?: unknown } } } | null)
    ?.trigger?.element
  if (!element || typeof element.selector !== 'string') return null
  return { selector: element.selector, text: typeof element.text === 'string' ? element.text : '' }
}

function toIssueSession(row: Row): IssueSession {
  return {
    sessionId: row.sessionId,
    externalId: row.externalId,
    user: { id: row.userId, anonymousId: row.anonymousId, email: row.userEmail, name: row.userName },
    entryUrl: row.entryUrl,
    startedAt: row.startedAt,
    occurrences: row.occurrences,
    firstOccurrenceAt: row.firstOccurrenceAt,
    offsetMs: Math.max(0, row.firstOccurrenceAt.getTime() - row.startedAt.getTime()),
    trigger: triggerOf(row.evidence),
  }
}

/** The sessions an issue was seen in, most recently started first, at most `limit`, with their total. */
export async function issueSessionsOf(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  limit = ISSUE_SESSIONS_SHOWN,
): Promise<{ sessions: IssueSession[]; total: number }> {
  const issue = await getIssueRow(db, organizationId, issueId)
  const where = and(eq(issueSessions.issueId, issue.id), eq(issueSessions.organizationId, organizationId))
  const [rows, [total]] = await Promise.all([
    db
      .select(columns)
      .from(issueSessions)
      .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
      .where(where)
      .orderBy(desc(replaySessions.startedAt), desc(issueSessions.sessionId))
      .limit(limit),
    db.select({ n: count() }).from(issueSessions).where(where),
  ])
  return { sessions: rows.map(toIssueSession), total: total?.n ?? 0 }
}

/** One session of the issue (to open its replay), or null when the issue was not seen in it. */
export async function issueSessionOf(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  sessionId: string,
): Promise<IssueSession | null> {
  const issue = await getIssueRow(db, organizationId, issueId)
  if (!isUuid(sessionId)) return null
  const [row] = await db
    .select(columns)
    .from(issueSessions)
    .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
    .where(
      and(
        eq(issueSessions.issueId, issue.id),
        eq(issueSessions.sessionId, sessionId),
        eq(issueSessions.organizationId, organizationId),
      ),
    )
  return row ? toIssueSession(row) : null
}
