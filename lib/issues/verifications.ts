import { and, eq } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { issueActivities, issues, issueVerifications } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import type { Verification } from '@/lib/releases/verification-view'
import {
  listVerifications,
  parseVerification,
  type RawVerification,
  toVerification,
} from '@/lib/releases/verifications'
import { activityMoment } from './activity-moment'
import { toIssueEventData } from './event-data'
import { getIssueRow, ISSUE_NOT_FOUND } from './get-issue'

/**
 * Records a run of an issue's reproduction (docs/releases.md#verification): the run, an
 * activity in the issue's history and, for a passed run, `issue/verified` (webhook
 * `issue.verified`), all in one transaction. The run's release is not recorded as a release of
 * the organization: a preview is not production, and a release first seen in a preview run
 * would take the place of the "next release" a resolution waits for.
 */
export async function recordVerification(
  db: Db,
  actor: Actor,
  input: { issueId: string } & RawVerification,
): Promise<Verification> {
  const { issueId, ...raw } = input
  const run = parseVerification(raw)
  if (!isUuid(issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  return commitWithEvents(db, async (tx) => {
    // The row lock orders this run's activity after the issue's latest one (activityMoment).
    const [issue] = await tx
      .select()
      .from(issues)
      .where(and(eq(issues.id, issueId), eq(issues.organizationId, actor.organizationId)))
      .for('update')
    if (!issue) throw new NotFoundError(ISSUE_NOT_FOUND)
    const [row] = await tx
      .insert(issueVerifications)
      .values({
        issueId: issue.id,
        organizationId: actor.organizationId,
        ...run,
        actorType: actor.actorType,
        actorId: actor.actorId,
      })
      .returning()
    const verification = toVerification(row!)
    await tx.insert(issueActivities).values({
      issueId: issue.id,
      organizationId: actor.organizationId,
      kind: 'verification',
      actorType: actor.actorType,
      actorId: actor.actorId,
      metadata: {
        verificationId: verification.id,
        status: verification.status,
        release: verification.release,
        baseUrl: verification.baseUrl,
      },
      createdAt: activityMoment(issue.id),
    })
    if (verification.status === 'passed')
      await enqueueEvent(tx, {
        organizationId: actor.organizationId,
        name: EVENTS.issueVerified,
        payload: {
          ...toIssueEventData(issue),
          verificationId: verification.id,
          release: verification.release,
          baseUrl: verification.baseUrl,
          runner: verification.runner,
        },
      })
    return verification
  })
}

/** An issue's latest runs, newest first; 404 for an issue that is not the organization's. */
export async function issueVerificationsOf(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
): Promise<Verification[]> {
  const issue = await getIssueRow(db, organizationId, issueId)
  return listVerifications(db, organizationId, issue.id)
}
