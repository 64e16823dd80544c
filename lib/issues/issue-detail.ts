import { and, count, desc, eq, max } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueActivities, issueSessions, replaySessions } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { listVerifications } from '@/lib/releases/verifications'
import { getIssueJson, getIssueRow } from './get-issue'
import { type IssueDetail, toIssue } from './views'

/** Release groups listed at most: an issue seen in more old releases than this shows the latest. */
export const OLD_RELEASE_GROUPS = 20

type DetailFields = Pick<IssueDetail, 'oldReleaseOccurrences' | 'regression' | 'verifications'>

/**
 * What the single issue adds to its row (docs/releases.md#resolve-in-a-release): the sessions of
 * older releases seen after a fix, which did not reopen it, by release; and its latest regression
 * with the release it came back in; and its latest reproduction runs (docs/releases.md#verification).
 */
export async function detailFields(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
): Promise<DetailFields> {
  const lastSeen = max(issueSessions.firstOccurrenceAt)
  const groups = await db
    .select({ release: replaySessions.release, sessions: count(), lastSeenAt: lastSeen })
    .from(issueSessions)
    .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
    .where(
      and(
        eq(issueSessions.issueId, issueId),
        eq(issueSessions.organizationId, organizationId),
        eq(issueSessions.oldRelease, true),
      ),
    )
    .groupBy(replaySessions.release)
    .orderBy(desc(lastSeen), replaySessions.release)
    .limit(OLD_RELEASE_GROUPS)
  const [regressed] = await db
    .select({ metadata: issueActivities.metadata, at: issueActivities.createdAt })
    .from(issueActivities)
    .where(
      and(
        eq(issueActivities.issueId, issueId),
        eq(issueActivities.organizationId, organizationId),
        eq(issueActivities.kind, 'regressed'),
      ),
    )
    .orderBy(desc(issueActivities.createdAt), desc(issueActivities.id))
    .limit(1)
  const metadata = regressed?.metadata ?? {}
  const text = (value: unknown) => (typeof value === 'string' ? value : null)
  const verifications = await listVerifications(db, organizationId, issueId)
  return {
    oldReleaseOccurrences: groups.map((group) => ({
      release: group.release,
      sessions: group.sessions,
      lastSeenAt: new Date(group.lastSeenAt ?? 0).toISOString(),
    })),
    regression: regressed
      ? {
          release: text(metadata.release),
          resolvedInRelease: text(metadata.resolvedInRelease),
          sessionId: text(metadata.sessionId) ?? '',
          at: regressed.at.toISOString(),
        }
      : null,
    verifications,
  }
}

/** The issue with its detail, for get_issue (and the dashboard). */
export async function getIssueDetail(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<{ row: Awaited<ReturnType<typeof getIssueRow>>; issue: IssueDetail }> {
  const row = await getIssueRow(db, principal.organizationId, issueId)
  const fields = await detailFields(db, principal.organizationId, row.id)
  return { row, issue: { ...toIssue(row), ...fields } }
}

/** JSON.stringify(getIssueDetail(...).issue): the issue's text from the database, the detail appended. */
export async function getIssueDetailJson(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<string> {
  const json = await getIssueJson(db, principal, issueId)
  const fields = await detailFields(db, principal.organizationId, issueId)
  return `${json.slice(0, -1)},"oldReleaseOccurrences":${JSON.stringify(fields.oldReleaseOccurrences)},"regression":${JSON.stringify(fields.regression)},"verifications":${JSON.stringify(fields.verifications)}}`
}
