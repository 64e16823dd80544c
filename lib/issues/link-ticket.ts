import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Tx } from '@/db/client'
import { type IssueStatus, issueActivities, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { ConflictError, isUuid, NotFoundError } from '@/lib/errors'
import { CLAIM_PENDING, ticketClaimPending } from '@/lib/issues/ticket-claim'
import { commitWithEvents } from '@/lib/outbox/commit'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { activityMoment } from './activity-moment'
import { ISSUE_NOT_FOUND } from './get-issue'
import type { TicketSnapshot } from './issue-history'
import { changeLockedIssueStatus } from './status-change'
import { TICKET_LIMITS } from './ticket-limits'
import { type Issue, toIssue } from './views'

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
  } catch {
    return false
  }
}

export const TicketInput = z.object({
  provider: z
    .string({ error: 'Enter the ticket provider, e.g. GitHub, Linear or Jira.' })
    .trim()
    .min(1, 'Enter the ticket provider, e.g. GitHub, Linear or Jira.')
    .max(TICKET_LIMITS.provider, `The provider is limited to ${TICKET_LIMITS.provider} characters.`)
    .refine(isStorableText, `The provider ${NOT_STORABLE}`),
  url: z
    .string({ error: 'Enter the ticket URL.' })
    .trim()
    .min(1, 'Enter the ticket URL.')
    .max(TICKET_LIMITS.url, `The ticket URL is limited to ${TICKET_LIMITS.url} characters.`)
    .refine(isStorableText, `The ticket URL ${NOT_STORABLE}`)
    .refine(
      isWebUrl,
      'The ticket URL must be a full http:// or https:// address, e.g. https://github.com/acme/shop/issues/12.',
    ),
  identifier: z
    .string({ error: 'The identifier must be text, e.g. #12 or ENG-42.' })
    .trim()
    .max(TICKET_LIMITS.identifier, `The identifier is limited to ${TICKET_LIMITS.identifier} characters.`)
    .refine(isStorableText, `The identifier ${NOT_STORABLE}`)
    .optional()
    .transform((value) => value || null),
})
export type TicketInput = z.input<typeof TicketInput>

export type IssueRow = typeof issues.$inferSelect

export async function lockIssue(tx: Tx, organizationId: string, issueId: string): Promise<IssueRow> {
  const [current] = await tx
    .select()
    .from(issues)
    .where(and(eq(issues.id, issueId), eq(issues.organizationId, organizationId)))
    .for('update')
  if (!current) throw new NotFoundError(ISSUE_NOT_FOUND)
  return current
}

function ticketOf(row: IssueRow): TicketSnapshot | null {
  return row.ticketProvider && row.ticketUrl
    ? { provider: row.ticketProvider, url: row.ticketUrl, identifier: row.ticketIdentifier }
    : null
}

/** Sets (or clears) the ticket columns and records the change in the issue's history. */
async function writeTicket(
  tx: Tx,
  actor: Actor,
  current: IssueRow,
  ticket: TicketSnapshot | null,
): Promise<IssueRow> {
  const [updated] = await tx
    .update(issues)
    .set({
      ticketProvider: ticket?.provider ?? null,
      ticketUrl: ticket?.url ?? null,
      ticketIdentifier: ticket?.identifier ?? null,
      updatedAt: sql`now()`,
    })
    .where(eq(issues.id, current.id))
    .returning()
  const previous = ticketOf(current)
  await tx.insert(issueActivities).values({
    issueId: current.id,
    organizationId: actor.organizationId,
    kind: 'ticket_linked',
    actorType: actor.actorType,
    actorId: actor.actorId,
    metadata: ticket ? { ...ticket, previous } : { unlinked: true, previous },
    // As for status changes: the moment of the change, after the issue's last activity.
    createdAt: activityMoment(current.id),
  })
  return updated!
}

/**
 * Links `ticket` to an issue already locked by the caller's transaction: the issue moves to
 * `ticket_created`, except a resolved one (linking the ticket its fix was tracked in must not
 * reopen it). Writes the ticket, a `ticket_linked` activity and, when the status moved, the same
 * `status_changed` activity and `issue.status_changed` event as any status change. Linking the
 * ticket already linked, with nothing to change, changes nothing.
 */
export async function linkLockedTicket(
  tx: Tx,
  actor: Actor,
  current: IssueRow,
  ticket: TicketSnapshot,
): Promise<Issue> {
  const previous = ticketOf(current)
  const status: IssueStatus = current.status === 'resolved' ? 'resolved' : 'ticket_created'
  const same =
    previous?.provider === ticket.provider &&
    previous.url === ticket.url &&
    previous.identifier === ticket.identifier
  const linked = same ? current : await writeTicket(tx, actor, current, ticket)
  if (current.status === status) return toIssue(linked)
  return toIssue(await changeLockedIssueStatus(tx, actor, current, status))
}

/**
 * Records the ticket that tracks an issue, in one transaction under the issue's row lock (see
 * linkLockedTicket). While a ticket is being created for the issue through an integration, a
 * manual link is a conflict: it would be overwritten by, or overwrite, the created one.
 */
export async function linkTicket(
  db: Db,
  actor: Actor,
  // Checked here against TicketInput, so each surface passes on whatever its caller sent.
  input: { issueId: string; provider: unknown; url: unknown; identifier?: unknown },
): Promise<Issue> {
  // Input is checked before the issue is touched: bad input changes nothing.
  const ticket = parseInput(TicketInput, input)
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  return commitWithEvents(db, async (tx) => {
    const current = await lockIssue(tx, actor.organizationId, input.issueId)
    if (await ticketClaimPending(tx, current.id))
      throw new ConflictError(`${CLAIM_PENDING} Link a ticket by hand once it has finished.`)
    return linkLockedTicket(tx, actor, current, ticket)
  })
}

/**
 * Removes the linked ticket (recorded as a `ticket_linked` activity naming the ticket removed).
 * An issue that was `ticket_created` is no longer tracked anywhere, so it returns to
 * `unresolved`; any other status stays. Without a linked ticket nothing changes.
 */
export async function unlinkTicket(db: Db, actor: Actor, input: { issueId: string }): Promise<Issue> {
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  return commitWithEvents(db, async (tx) => {
    const current = await lockIssue(tx, actor.organizationId, input.issueId)
    if (!current.ticketProvider && !current.ticketUrl && !current.ticketIdentifier) return toIssue(current)
    const unlinked = await writeTicket(tx, actor, current, null)
    if (current.status !== 'ticket_created') return toIssue(unlinked)
    return toIssue(await changeLockedIssueStatus(tx, actor, current, 'unresolved'))
  })
}
