import { and, eq, isNull, lt, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { issueActivities, issues } from '@/db/schema'
import { upsertRelease } from '@/lib/releases/record-release'
import { activityMoment } from './activity-moment'

/**
 * Records that a release was seen (a counted session ran it, or CI declared it). A release new to
 * the organization is "the next release" of every issue resolved in the next release before it
 * (docs/releases.md#resolve-in-a-release): from now on only sessions of that release or a later
 * one reopen them. Answers the issues that learnt their release.
 */
export async function recordSeenRelease(
  tx: Tx,
  input: { organizationId: string; version: string; deployedAt?: Date },
): Promise<string[]> {
  const { inserted } = await upsertRelease(tx, input)
  if (!inserted) return []
  const assigned = await tx
    .update(issues)
    .set({ resolvedInRelease: input.version, updatedAt: sql`${issues.updatedAt}` })
    .where(
      and(
        eq(issues.organizationId, input.organizationId),
        eq(issues.status, 'resolved'),
        eq(issues.resolvedInNextRelease, true),
        isNull(issues.resolvedInRelease),
        // Strictly after the resolution, by the server's clock.
        lt(issues.resolvedAt, sql`now()`),
      ),
    )
    .returning({ id: issues.id })
  for (const { id } of assigned)
    await tx.insert(issueActivities).values({
      issueId: id,
      organizationId: input.organizationId,
      kind: 'fix_release',
      actorType: 'system',
      metadata: { release: input.version },
      createdAt: activityMoment(id),
    })
  return assigned.map(({ id }) => id)
}
