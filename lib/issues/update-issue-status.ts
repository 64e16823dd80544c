import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { ConflictError, isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { ISSUE_NOT_FOUND } from './get-issue'
import { assertKnownRelease, type Resolution, resolutionOf } from './resolution'
import { changeLockedIssueStatus, changeLockedResolution } from './status-change'
import { type Issue, toIssue } from './views'

export const TICKET_REQUIRED =
  'This issue has no ticket yet: create or link one under Ticket, and it is marked In a ticket.'

function sameResolution(a: Resolution, b: Resolution): boolean {
  if (a.kind === 'inRelease' && b.kind === 'inRelease') return a.release === b.release
  return a.kind === b.kind
}

/**
 * Sets an issue's status. The same status answers the issue unchanged (updatedAt too); a
 * change updates updatedAt and records who made it, in one transaction under a row lock so
 * concurrent changes each see the status they replace. `resolution` (only with `resolved`, as
 * parseResolution checks) names the release of the fix; naming another one for an issue already
 * resolved changes just that.
 */
export async function updateIssueStatus(
  db: Db,
  actor: Actor,
  input: { issueId: string; status: IssueStatus; resolution?: Resolution | null },
  /**
   * `ticketRequired`: refuse `ticket_created` for an issue without a linked ticket (the
   * dashboard's rule; the Data API and MCP may set any status, as the spec says).
   */
  options: { ticketRequired?: boolean } = {},
): Promise<Issue> {
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  const resolution = input.resolution ?? null
  return commitWithEvents(db, async (tx) => {
    const [current] = await tx
      .select()
      .from(issues)
      .where(and(eq(issues.id, input.issueId), eq(issues.organizationId, actor.organizationId)))
      .for('update')
    if (!current) throw new NotFoundError(ISSUE_NOT_FOUND)
    if (resolution) await assertKnownRelease(tx, actor.organizationId, resolution)
    if (current.status === input.status) {
      if (!resolution || resolution.kind === 'none' || sameResolution(resolution, resolutionOf(current)))
        return toIssue(current)
      return toIssue(await changeLockedResolution(tx, actor, current.id, resolution))
    }
    if (options.ticketRequired && input.status === 'ticket_created' && !current.ticketUrl)
      throw new ConflictError(TICKET_REQUIRED)
    return toIssue(await changeLockedIssueStatus(tx, actor, current, input.status, resolution ?? undefined))
  })
}
