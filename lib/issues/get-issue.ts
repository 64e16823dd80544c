import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { builtOnce } from '@/lib/db/built-once'
import { isUuid, NotFoundError } from '@/lib/errors'
import { issueJson, originalStackSource, withOriginalStack } from './issue-json'
import { type Issue, toIssue } from './views'

export const ISSUE_NOT_FOUND = 'Issue not found'

/** One issue of the caller's organization; another organization's issue does not exist. */
export async function getIssueRow(db: DbOrTx, organizationId: string, issueId: string) {
  // A malformed id names no issue: "not found", like an unknown one (documented in docs/api-and-mcp.md).
  if (!isUuid(issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  const [row] = await builtOnce(db, 'issues.byId', () =>
    db
      .select()
      .from(issues)
      .where(
        and(
          eq(issues.id, sql.placeholder('issueId')),
          eq(issues.organizationId, sql.placeholder('organizationId')),
        ),
      )
      .prepare('issues_by_id'),
  ).execute({ issueId, organizationId })
  if (!row) throw new NotFoundError(ISSUE_NOT_FOUND)
  return row
}

export async function getIssue(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<Issue> {
  return toIssue(await getIssueRow(db, principal.organizationId, issueId))
}

/** getIssue as the JSON text JSON.stringify would make of it (issue-json.ts), in one query. */
export async function getIssueJson(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<string> {
  if (!isUuid(issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  const [row] = await builtOnce(db, 'issues.jsonById', () =>
    db
      .select({ json: issueJson, stack: originalStackSource })
      .from(issues)
      .where(
        and(
          eq(issues.id, sql.placeholder('issueId')),
          eq(issues.organizationId, sql.placeholder('organizationId')),
        ),
      )
      .prepare('issues_json_by_id'),
  ).execute({ issueId, organizationId: principal.organizationId })
  if (!row) throw new NotFoundError(ISSUE_NOT_FOUND)
  return withOriginalStack(row.json, row.stack)
}
