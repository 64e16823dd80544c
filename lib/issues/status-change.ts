import { eq, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { type IssueStatus, issueActivities, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { activityMoment } from './activity-moment'
import { issueEventData } from './event-data'
import { type Resolution, resolutionColumns, resolutionMetadata } from './resolution'

/** The resolution columns a move to `status` writes (docs/releases.md#resolve-in-a-release). */
function resolutionChange(status: IssueStatus, resolution: Resolution) {
  // Resolving starts a resolution now; leaving resolved forgets it, so a later resolve starts afresh.
  if (status === 'resolved') return { ...resolutionColumns(resolution), resolvedAt: sql`now()` }
  return { resolvedInRelease: null, resolvedInNextRelease: false, resolvedAt: null }
}

/**
 * Moves a locked issue to another status inside the caller's transaction: the row, its
 * `status_changed` activity and the `issue.status_changed` outbox event, so that the webhook
 * exists exactly when the change does, whichever surface made it. A move to resolved may name
 * the release of the fix (`resolution`; none by default, as before releases).
 */
export async function changeLockedIssueStatus(
  tx: Tx,
  actor: Actor,
  issue: { id: string; status: IssueStatus },
  status: IssueStatus,
  resolution: Resolution = { kind: 'none' },
) {
  const [updated] = await tx
    .update(issues)
    .set({ status, updatedAt: sql`now()`, ...resolutionChange(status, resolution) })
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
    metadata: status === 'resolved' ? resolutionMetadata(resolution) : null,
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

/**
 * Names another release for the fix of an issue already resolved (the caller holds its row lock):
 * the resolution changes, with a `fix_release` activity, but the status does not, so no
 * `issue.status_changed` is sent. "The next release" counts from now.
 */
export async function changeLockedResolution(
  tx: Tx,
  actor: Actor,
  issueId: string,
  resolution: Exclude<Resolution, { kind: 'none' }>,
) {
  const [updated] = await tx
    .update(issues)
    .set({
      ...resolutionColumns(resolution),
      // A named release keeps the moment of resolving (issues resolved before releases had none:
      // their last change was it); "the next release" is the first seen after it is said.
      resolvedAt:
        resolution.kind === 'inNextRelease'
          ? sql`now()`
          : sql`coalesce(${issues.resolvedAt}, ${issues.updatedAt})`,
      updatedAt: sql`now()`,
    })
    .where(eq(issues.id, issueId))
    .returning()
  await tx.insert(issueActivities).values({
    issueId,
    organizationId: actor.organizationId,
    kind: 'fix_release',
    actorType: actor.actorType,
    actorId: actor.actorId,
    metadata: resolutionMetadata(resolution),
    createdAt: activityMoment(issueId),
  })
  return updated!
}
