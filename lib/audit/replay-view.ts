import { and, eq, gt, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { auditEvents } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from './record'

/**
 * Repeated views of one replay by one actor within this window are one entry: a player that
 * reloads its events, or an agent paging through a timeline, would otherwise fill the trail
 * with copies of the same fact (docs/privacy.md#audit-trail).
 */
export const REPLAY_VIEW_COALESCE_MINUTES = 10

/** Where the replay was looked at, kept in the entry's metadata. */
export type ReplayViewSurface = 'dashboard' | 'api' | 'mcp'

/**
 * Records `replay.viewed` for a session the actor has just been shown (the caller checked it
 * belongs to the actor's organization), unless the same actor viewed it within the window.
 * Two simultaneous first views may both be recorded: the trail errs on the side of more.
 */
export async function recordReplayView(
  db: DbOrTx,
  actor: Actor,
  input: { sessionId: string; via: ReplayViewSurface },
): Promise<void> {
  const [recent] = await db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, actor.organizationId),
        gt(auditEvents.createdAt, sql`now() - ${REPLAY_VIEW_COALESCE_MINUTES} * interval '1 minute'`),
        eq(auditEvents.action, 'replay.viewed'),
        eq(auditEvents.targetId, input.sessionId),
        eq(auditEvents.actorType, actor.actorType),
        eq(auditEvents.actorId, actor.actorId),
      ),
    )
    .limit(1)
  if (recent) return
  await recordAudit(db, actor, {
    action: 'replay.viewed',
    targetType: 'session',
    targetId: input.sessionId,
    metadata: { via: input.via },
  })
}
