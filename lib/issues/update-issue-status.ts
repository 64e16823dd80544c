import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { type IssueActor, type IssueStatus, issueActivities, issues } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { issueEventData } from './event-data'
import { ISSUE_NOT_FOUND } from './get-issue'
import { type Issue, toIssue } from './views'

export interface IssueChangeActor {
  organizationId: string
  actorType: IssueActor
  /** Credential id, OAuth client id or user id: who to name in the issue's history. */
  actorId: string
}

/**
 * Sets an issue's status. The same status answers the issue unchanged (updatedAt too); a
 * change updates updatedAt and records who made it, in one transaction under a row lock so
 * concurrent changes each see the status they replace.
 */
export async function updateIssueStatus(
  db: Db,
  actor: IssueChangeActor,
  input: { issueId: string; status: IssueStatus },
): Promise<Issue> {
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(issues)
      .where(and(eq(issues.id, input.issueId), eq(issues.organizationId, actor.organizationId)))
      .for('update')
    if (!current) throw new NotFoundError(ISSUE_NOT_FOUND)
    if (current.status === input.status) return toIssue(current)
    const [updated] = await tx
      .update(issues)
      .set({ status: input.status, updatedAt: sql`now()` })
      .where(eq(issues.id, current.id))
      .returning()
    await tx.insert(issueActivities).values({
      issueId: current.id,
      organizationId: actor.organizationId,
      kind: 'status_changed',
      fromStatus: current.status,
      toStatus: input.status,
      actorType: actor.actorType,
      actorId: actor.actorId,
      // The time of the change itself, after the row lock: now() would be the transaction's
      // start, and concurrent changes would be listed out of the order they were made.
      createdAt: sql`clock_timestamp()`,
    })
    // Same transaction: the webhook event exists exactly when the change does.
    await enqueueEvent(tx, {
      organizationId: actor.organizationId,
      name: EVENTS.issueStatusChanged,
      payload: {
        ...(await issueEventData(tx, current.id)),
        previousStatus: current.status,
        actorType: actor.actorType,
      },
    })
    return toIssue(updated!)
  })
}
