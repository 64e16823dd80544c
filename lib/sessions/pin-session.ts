import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { organizations, replaySessions } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { isUuid, NotFoundError } from '@/lib/errors'
import { keptUntil } from '@/lib/retention/pinned'
import { SESSION_NOT_FOUND } from './get-session'

export interface SessionPin {
  sessionId: string
  pinnedAt: string | null
  /** `user:<id>`, `credential:<id>`, `oauth_client:<id>` or `system:cli`; null when not pinned. */
  pinnedBy: string | null
  /** When the retention sweep deletes the session, with the pin as it now is. */
  keptUntil: string
}

async function pinState(db: DbOrTx, organizationId: string, sessionId: string): Promise<SessionPin> {
  const [row] = await db
    .select({
      pinnedAt: replaySessions.pinnedAt,
      pinnedBy: replaySessions.pinnedBy,
      startedAt: replaySessions.startedAt,
      retentionDays: organizations.retentionDays,
    })
    .from(replaySessions)
    .innerJoin(organizations, eq(organizations.id, replaySessions.organizationId))
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
  if (!row) throw new NotFoundError(SESSION_NOT_FOUND)
  return {
    sessionId,
    pinnedAt: row.pinnedAt?.toISOString() ?? null,
    pinnedBy: row.pinnedBy,
    keptUntil: keptUntil(row.startedAt, row.retentionDays, row.pinnedAt !== null).toISOString(),
  }
}

/**
 * Pins (`pinned` true) or unpins a session of the actor's organization: a pinned session
 * outlives the organization's retention up to PINNED_SESSION_MAX_DAYS (docs/privacy.md#retention).
 * The change and its `session.pinned`/`session.unpinned` entry share one transaction; pinning a
 * pinned session (or unpinning an unpinned one) changes and records nothing.
 */
export async function setSessionPin(
  db: Db,
  actor: Actor,
  input: { sessionId: string; pinned: boolean },
): Promise<SessionPin> {
  if (!isUuid(input.sessionId)) throw new NotFoundError(SESSION_NOT_FOUND)
  const { organizationId } = actor
  return db.transaction(async (tx) => {
    const inOrg = and(
      eq(replaySessions.id, input.sessionId),
      eq(replaySessions.organizationId, organizationId),
    )
    const [changed] = await tx
      .update(replaySessions)
      .set(
        input.pinned
          ? { pinnedAt: sql`now()`, pinnedBy: `${actor.actorType}:${actor.actorId}` }
          : { pinnedAt: null, pinnedBy: null },
      )
      .where(and(inOrg, input.pinned ? isNull(replaySessions.pinnedAt) : isNotNull(replaySessions.pinnedAt)))
      .returning({ id: replaySessions.id })
    if (changed)
      await recordAudit(tx, actor, {
        action: input.pinned ? 'session.pinned' : 'session.unpinned',
        targetType: 'session',
        targetId: changed.id,
      })
    return pinState(tx, organizationId, input.sessionId)
  })
}
