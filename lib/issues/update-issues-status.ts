import { and, asc, eq, inArray } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { InvalidInputError, isUuid } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { BULK_STATUS_MAX } from './bulk-limit'
import { changeLockedIssueStatus } from './status-change'

export { BULK_STATUS_MAX }

export interface BulkStatusResult {
  /** Issues that moved to the status (one activity and one webhook event each). */
  changed: number
  /** Issues that already had it: answered unchanged, as a single change would be. */
  unchanged: number
  /** Ids that name no issue of the organization (deleted meanwhile, or never its own). */
  notFound: number
}

/**
 * Sets the status of up to 100 issues at once, all or none, through the same change as a
 * single update, so each changed issue gets its activity and `issue.status_changed` event
 * exactly as if it had been changed alone.
 */
export async function updateIssuesStatus(
  db: Db,
  actor: Actor,
  input: { issueIds: string[]; status: IssueStatus },
): Promise<BulkStatusResult> {
  const ids = [...new Set(input.issueIds)]
  if (ids.length === 0) throw new InvalidInputError('Select at least one issue.')
  if (ids.length > BULK_STATUS_MAX)
    throw new InvalidInputError(
      `Select at most ${BULK_STATUS_MAX} issues at a time (${ids.length} were selected).`,
    )
  const valid = ids.filter(isUuid)
  if (valid.length === 0) return { changed: 0, unchanged: 0, notFound: ids.length }
  return commitWithEvents(db, async (tx) => {
    // Locked in id order, so two overlapping bulk changes wait for each other instead of deadlocking.
    const rows = await tx
      .select({ id: issues.id, status: issues.status })
      .from(issues)
      .where(and(eq(issues.organizationId, actor.organizationId), inArray(issues.id, valid)))
      .orderBy(asc(issues.id))
      .for('update')
    let changed = 0
    for (const row of rows) {
      if (row.status === input.status) continue
      await changeLockedIssueStatus(tx, actor, row, input.status)
      changed++
    }
    return { changed, unchanged: rows.length - changed, notFound: ids.length - rows.length }
  })
}
