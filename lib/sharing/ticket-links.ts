import { eq } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { organizations } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { isUuid, NotFoundError } from '@/lib/errors'
import { issueSessionsOf } from '@/lib/issues/issue-sessions'
import { MAX_START_AT_MS, SHARE_LINK_DAYS } from './limits'
import { createShareLink } from './share-links'

/**
 * What a ticket's stored copy (the delivery log) says where the sent ticket has the link: the
 * address holds the token, which the service keeps nowhere (docs/sharing.md#ticket-links).
 */
export const SHARE_LINK_NOT_KEPT = '(a share link made for this ticket; its address is not kept here)'

/** Whether tickets link to a share link of the issue's sample session (Settings → Integrations). */
export async function ticketShareLinksEnabled(db: DbOrTx, organizationId: string): Promise<boolean> {
  const [row] = await db
    .select({ on: organizations.ticketShareLinks })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
  return row?.on ?? false
}

export async function setTicketShareLinks(
  db: DbOrTx,
  input: { organizationId: string; enabled: boolean },
): Promise<void> {
  if (!isUuid(input.organizationId)) throw new NotFoundError('Organization not found')
  await db
    .update(organizations)
    .set({ ticketShareLinks: input.enabled })
    .where(eq(organizations.id, input.organizationId))
}

/** The replay a ticket would link to: the issue's first session at its moment, when enabled. */
export async function ticketShareTarget(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
): Promise<{ sessionId: string; offsetMs: number } | null> {
  if (!(await ticketShareLinksEnabled(db, organizationId))) return null
  const { sessions } = await issueSessionsOf(db, organizationId, issueId, 1)
  const first = sessions[0]
  return first ? { sessionId: first.sessionId, offsetMs: first.offsetMs } : null
}

/**
 * The ticket's text as sent: a new link (for the longest a link may last, since tickets are read
 * for weeks) put where `stored` says SHARE_LINK_NOT_KEPT. The link is made only once the ticket
 * is claimed, so a refused ticket makes none.
 */
export async function withTicketShareLink<T extends { description: string }>(
  db: Db,
  actor: Actor,
  stored: T,
  target: { sessionId: string; offsetMs: number },
): Promise<{ text: T; shareLinkId: string }> {
  const link = await createShareLink(db, actor, {
    sessionId: target.sessionId,
    expiresInDays: SHARE_LINK_DAYS.max,
    startAtMs: Math.max(0, Math.min(Math.round(target.offsetMs), MAX_START_AT_MS)),
    via: 'ticket',
  })
  const line = `${link.url} (works until ${link.expiresAt.slice(0, 10)})`
  return {
    text: { ...stored, description: stored.description.replace(SHARE_LINK_NOT_KEPT, () => line) },
    shareLinkId: link.id,
  }
}
