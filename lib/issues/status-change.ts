import { eq, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { type IssueStatus, issueActivities, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { activityMoment } from './activity-moment'
import { issueEventData } from './event-data'

/**
 * Moves a locked issue to another status inside the caller's transaction: the row, its
 * `status_changed` activity and the `issue.status_changed` outbox event, so that the webhook
 * exists exactly when the change does, whichever surface made it.
 */
export async function changeLockedIssueStatus(
  tx: Tx,
  actor: Actor,
  issue: { id: string; status: IssueStatus },
  status: IssueStatus,
) {
  const [updated] = await tx
    .update(issues)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(issues.id, issue.id))
    .returning()
  await tx.insert(issueActivities).values({
    issueId: issue.id,
    organizationId: actor.organizationId,
    kind: 'status_changed',
    fromStatus: issue.status,
    toStatus: status,
    actorType: actor.actorType,
    actorId: actor.actorId,
    // The time of the change itself, after the row lock and after the issue's last activity.
    createdAt: activityMoment(issue.id),
  })
  await enqueueEvent(tx, {
    organizationId: actor.organizationId,
    name: EVENTS.issueStatusChanged,
    payload: {
      ...(await issueEventData(tx, issue.id)),
      previousStatus: issue.status,
      actorType: actor.actorType,
    },
  })
  return updated!
}
