import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { replaySessions, shareLinks } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { InvalidInputError, isUuid, NotFoundError } from '@/lib/errors'
import { SESSION_NOT_FOUND } from '@/lib/sessions/get-session'
import { dashboardUrl } from '@/lib/sessions/session-links'
import {
  INVALID_EXPIRY,
  INVALID_START_AT,
  MAX_START_AT_MS,
  SHARE_LINK_DAYS,
  SHARE_LINK_NOT_FOUND,
} from './limits'
import { type CreatedShareLink, type ShareLinkItem, toShareLinkItem } from './views'

const DAY_MS = 86_400_000
/** A session's links as the dashboard and the Data API list them: the newest first, this many. */
export const SHARE_LINKS_LISTED = 100

const columns = {
  id: shareLinks.id,
  sessionId: shareLinks.sessionId,
  startAtMs: shareLinks.startAtMs,
  expiresAt: shareLinks.expiresAt,
  createdAt: shareLinks.createdAt,
  revokedAt: shareLinks.revokedAt,
  createdByType: shareLinks.createdByType,
  createdById: shareLinks.createdById,
}

function parseExpiry(value: unknown): number {
  if (value === undefined || value === null) return SHARE_LINK_DAYS.default
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > SHARE_LINK_DAYS.max)
    throw new InvalidInputError(INVALID_EXPIRY)
  return value
}

function parseStartAt(value: unknown): number | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_START_AT_MS)
    throw new InvalidInputError(INVALID_START_AT)
  return value
}

/** The page's address for a token, opening at `startAtMs` when the link has one. */
export function shareUrls(token: string, startAtMs: number | null): { url: string; embedUrl: string } {
  const at = startAtMs === null ? '' : `?t=${startAtMs}`
  return { url: dashboardUrl(`/share/${token}${at}`), embedUrl: dashboardUrl(`/share/${token}/embed${at}`) }
}

async function assertSession(db: DbOrTx, organizationId: string, sessionId: string): Promise<void> {
  if (!isUuid(sessionId)) throw new NotFoundError(SESSION_NOT_FOUND)
  const [session] = await db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
  if (!session) throw new NotFoundError(SESSION_NOT_FOUND)
}

/**
 * Creates a link that shows one session's replay to anyone who has it (docs/sharing.md). Only
 * the token's hash is stored: the address in the answer is the one time it is shown. The link
 * and its `share.created` entry share one transaction. `via` names what made it besides a
 * person or key asking (a ticket), for the audit trail.
 */
export async function createShareLink(
  db: Db,
  actor: Actor,
  input: { sessionId: string; expiresInDays?: unknown; startAtMs?: unknown; via?: 'ticket' },
): Promise<CreatedShareLink> {
  const days = parseExpiry(input.expiresInDays)
  const startAtMs = parseStartAt(input.startAtMs)
  const token = generateToken(TOKEN_PREFIXES.shareLink)
  return db.transaction(async (tx) => {
    await assertSession(tx, actor.organizationId, input.sessionId)
    const [row] = await tx
      .insert(shareLinks)
      .values({
        organizationId: actor.organizationId,
        sessionId: input.sessionId,
        tokenHash: hashToken(token),
        startAtMs,
        createdByType: actor.actorType,
        createdById: actor.actorId,
        expiresAt: new Date(Date.now() + days * DAY_MS),
      })
      .returning(columns)
    const link = toShareLinkItem(row!)
    await recordAudit(tx, actor, {
      action: 'share.created',
      targetType: 'share_link',
      targetId: link.id,
      metadata: {
        sessionId: link.sessionId,
        expiresAt: link.expiresAt,
        startAtMs,
        ...(input.via ? { via: input.via } : {}),
      },
    })
    return { ...link, ...shareUrls(token, startAtMs) }
  })
}

/** A session's links, newest first, without their tokens (which are not stored). */
export async function listShareLinks(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<ShareLinkItem[]> {
  await assertSession(db, organizationId, sessionId)
  const rows = await db
    .select(columns)
    .from(shareLinks)
    .where(and(eq(shareLinks.organizationId, organizationId), eq(shareLinks.sessionId, sessionId)))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id))
    .limit(SHARE_LINKS_LISTED)
  const now = new Date()
  return rows.map((row) => toShareLinkItem(row, now))
}

/**
 * Revokes a link of the actor's organization: from now on its pages answer as for a link that
 * never existed. Revoking a revoked link changes and records nothing.
 */
export async function revokeShareLink(db: Db, actor: Actor, linkId: string): Promise<ShareLinkItem> {
  if (!isUuid(linkId)) throw new NotFoundError(SHARE_LINK_NOT_FOUND)
  return db.transaction(async (tx) => {
    const inOrg = and(eq(shareLinks.id, linkId), eq(shareLinks.organizationId, actor.organizationId))
    const [revoked] = await tx
      .update(shareLinks)
      .set({ revokedAt: sql`now()` })
      .where(and(inOrg, isNull(shareLinks.revokedAt)))
      .returning(columns)
    if (revoked) {
      await recordAudit(tx, actor, {
        action: 'share.revoked',
        targetType: 'share_link',
        targetId: revoked.id,
        metadata: { sessionId: revoked.sessionId },
      })
      return toShareLinkItem(revoked)
    }
    const [current] = await tx.select(columns).from(shareLinks).where(inOrg)
    if (!current) throw new NotFoundError(SHARE_LINK_NOT_FOUND)
    return toShareLinkItem(current)
  })
}
