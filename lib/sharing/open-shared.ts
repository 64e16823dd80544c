import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { auditEvents, replaySessions, shareLinks } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'

/** What a share link opens: one session, nothing else of its organization. */
export interface SharedReplay {
  linkId: string
  organizationId: string
  sessionId: string
  startAtMs: number | null
  startedAt: Date
}

// The token's shape (generateToken: the prefix, then 32 bytes in base64url) is checked before
// it is hashed, so a hostile path costs no database lookup. A literal, so the ReDoS check reads
// it; the prefix must stay TOKEN_PREFIXES.shareLink (checked below, once, at load).
const TOKEN = /^svc_shr_[A-Za-z0-9_-]{43}$/
if (!TOKEN.source.startsWith(`^${TOKEN_PREFIXES.shareLink}`)) {
  throw new Error('open-shared.ts: the share token pattern no longer starts with its prefix')
}

/**
 * Views of one link within this window are one `share.viewed` entry (docs/sharing.md#audit):
 * a link pasted in a busy channel would otherwise fill the trail. The viewer's address is not
 * kept: the trail records that the link was used, not who used it.
 */
export const SHARE_VIEW_COALESCE_MINUTES = 60

/**
 * The session a token opens, or null when the link is unknown, revoked or expired, or its
 * session is gone: the caller answers all of these alike, so a page never tells which.
 */
export async function openSharedReplay(db: DbOrTx, token: string): Promise<SharedReplay | null> {
  if (!TOKEN.test(token)) return null
  const [row] = await db
    .select({
      linkId: shareLinks.id,
      organizationId: shareLinks.organizationId,
      sessionId: shareLinks.sessionId,
      startAtMs: shareLinks.startAtMs,
      startedAt: replaySessions.startedAt,
    })
    .from(shareLinks)
    .innerJoin(
      replaySessions,
      and(
        eq(replaySessions.id, shareLinks.sessionId),
        eq(replaySessions.organizationId, shareLinks.organizationId),
      ),
    )
    .where(
      and(
        eq(shareLinks.tokenHash, hashToken(token)),
        isNull(shareLinks.revokedAt),
        gt(shareLinks.expiresAt, sql`now()`),
      ),
    )
  return row ?? null
}

/** Nobody signed in: the trail names the link as the one who looked. */
function linkActor(shared: SharedReplay): Actor {
  return { organizationId: shared.organizationId, actorType: 'system', actorId: 'share_link' }
}

/**
 * Records `share.viewed` when a link's replay is handed out, unless the link was viewed within
 * SHARE_VIEW_COALESCE_MINUTES. Two simultaneous first views may both be recorded.
 */
export async function recordShareView(db: DbOrTx, shared: SharedReplay): Promise<void> {
  const [recent] = await db
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, shared.organizationId),
        gt(auditEvents.createdAt, sql`now() - ${SHARE_VIEW_COALESCE_MINUTES} * interval '1 minute'`),
        eq(auditEvents.action, 'share.viewed'),
        eq(auditEvents.targetId, shared.linkId),
      ),
    )
    .limit(1)
  if (recent) return
  await recordAudit(db, linkActor(shared), {
    action: 'share.viewed',
    targetType: 'share_link',
    targetId: shared.linkId,
    metadata: { sessionId: shared.sessionId },
  })
}
