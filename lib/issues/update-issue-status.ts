import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { ISSUE_NOT_FOUND } from './get-issue'
import { changeLockedIssueStatus } from './status-change'
import { type Issue, toIssue } from './views'

/**
 * Sets an issue's status. The same status answers the issue unchanged (updatedAt too); a
 * change updates updatedAt and records who made it, in one transaction under a row lock so
 * concurrent changes each see the status they replace.
 */
export async function updateIssueStatus(
  db: Db,
  actor: Actor,
  input: { issueId: string; status: IssueStatus },
): Promise<Issue> {
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  return commitWithEvents(db, async (tx) => {
    const [current] = await tx
      .select()
      .from(issues)
      .where(and(eq(issues.id, input.issueId), eq(issues.organizationId, actor.organizationId)))
      .for('update')
    if (!current) throw new NotFoundError(ISSUE_NOT_FOUND)
    if (current.status === input.status) return toIssue(current)
    return toIssue(await changeLockedIssueStatus(tx, actor, current, input.status))
  })
}
