import { and, eq, isNull } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { type IntegrationSettings, integrationDeliveries, integrations, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { AppError, ConflictError, isUuid, NotFoundError } from '@/lib/errors'
import { ISSUE_NOT_FOUND } from '@/lib/issues/get-issue'
import { linkLockedTicket, lockIssue } from '@/lib/issues/link-ticket'
import { CLAIM_PENDING, ticketClaimPending } from '@/lib/issues/ticket-claim'
import type { Issue } from '@/lib/issues/views'
import { logger } from '@/lib/log'
import { commitWithEvents } from '@/lib/outbox/commit'
import { revokeShareLink } from '@/lib/sharing/share-links'
import { SHARE_LINK_NOT_KEPT, ticketShareTarget, withTicketShareLink } from '@/lib/sharing/ticket-links'
import { parseInput } from '@/lib/validation'
import { createGithubIssue } from './github-client'
import { createLinearIssue } from './linear-client'
import type { CallOptions } from './provider-call'
import { type TrackerName, ticketError } from './provider-errors'
import { closeTicketDelivery, recordCreatedTicket, recordTicketDelivery } from './record-delivery'
import { decryptIntegrationSecret } from './secrets'
import { type TicketText, ticketText } from './ticket-body'

export const TicketProvider = z.enum(['linear', 'github'], {
  error: 'provider must be "linear" or "github".',
})
export type TicketProvider = z.infer<typeof TicketProvider>

const NAMES: Record<TicketProvider, TrackerName> = { linear: 'Linear', github: 'GitHub' }

interface Claim {
  issueId: string
  deliveryId: string
  integrationId: string
  secret: string
  settings: IntegrationSettings
}

/**
 * Under the issue's row lock: the issue has no ticket, the tracker is connected, and no other
 * creation for the issue is in progress; then a pending `ticket` delivery is the claim. The lock
 * is released before the provider is called, so a slow provider holds no database row.
 */
async function claim(
  db: Db,
  actor: Actor,
  issueId: string,
  provider: TicketProvider,
  text: TicketText,
): Promise<Claim> {
  return db.transaction(async (tx) => {
    const [issue] = await tx
      .select({ ticketUrl: issues.ticketUrl, ticketIdentifier: issues.ticketIdentifier })
      .from(issues)
      .where(and(eq(issues.id, issueId), eq(issues.organizationId, actor.organizationId)))
      .for('update')
    if (!issue) throw new NotFoundError(ISSUE_NOT_FOUND)
    if (issue.ticketUrl)
      throw new ConflictError(
        `This issue already has a ticket (${issue.ticketIdentifier ?? issue.ticketUrl}). Remove it first to create another.`,
      )
    const [integration] = await tx
      .select({ id: integrations.id, secret: integrations.secretCiphertext, settings: integrations.settings })
      .from(integrations)
      .where(
        and(
          eq(integrations.organizationId, actor.organizationId),
          eq(integrations.kind, provider),
          isNull(integrations.revokedAt),
        ),
      )
    if (!integration)
      throw new ConflictError(
        `No ${NAMES[provider]} integration is connected. An organization owner connects one under Settings → Integrations.`,
      )
    if (await ticketClaimPending(tx, issueId)) throw new ConflictError(CLAIM_PENDING)
    const [delivery] = await tx
      .insert(integrationDeliveries)
      .values({
        integrationId: integration.id,
        organizationId: actor.organizationId,
        purpose: 'ticket',
        issueId,
        body: JSON.stringify(text),
        // Never due: a ticket is created once, while the caller waits, and not by a retry sweep.
        nextAttemptAt: null,
      })
      .returning({ id: integrationDeliveries.id })
    return {
      issueId,
      deliveryId: delivery!.id,
      integrationId: integration.id,
      secret: decryptIntegrationSecret(integration.secret),
      settings: integration.settings,
    }
  })
}

function callTracker(provider: TicketProvider, claimed: Claim, text: TicketText, options: CallOptions) {
  const { settings } = claimed
  if (provider === 'linear' && settings.kind === 'linear')
    return createLinearIssue(claimed.secret, { teamId: settings.teamId, ...text }, options)
  if (provider === 'github' && settings.kind === 'github')
    return createGithubIssue(
      claimed.secret,
      { owner: settings.owner, repo: settings.repo, title: text.title, body: text.description },
      options,
    )
  throw new Error(`integration ${claimed.integrationId} has ${settings.kind} settings`)
}

/**
 * Records the created ticket, then links it and closes the delivery in one transaction under the
 * issue's row lock, the claim still held: no second request or manual link gets in between. If
 * the link cannot be made, the answer names the created ticket so it can be linked by hand (the
 * delivery's body keeps its address either way).
 */
async function linkCreated(
  db: Db,
  actor: Actor,
  claimed: Claim,
  provider: TicketProvider,
  text: TicketText,
  created: { url: string; identifier: string },
  attempts: Parameters<typeof recordTicketDelivery>[2],
): Promise<Issue> {
  const name = NAMES[provider]
  const unlinked = (why: string) =>
    new ConflictError(
      `The ${name} issue ${created.identifier} was created (${created.url}) but ${why}. Link it to this issue by hand.`,
    )
  try {
    await recordCreatedTicket(db, claimed, attempts, { ...text, created })
    return await commitWithEvents(db, async (tx) => {
      const current = await lockIssue(tx, actor.organizationId, claimed.issueId)
      if (current.ticketUrl)
        throw unlinked(`this issue already has a ticket (${current.ticketIdentifier ?? current.ticketUrl})`)
      const issue = await linkLockedTicket(tx, actor, current, { provider: name, ...created })
      await closeTicketDelivery(tx, claimed, attempts, null)
      return issue
    })
  } catch (error) {
    // Best effort: the claim is released so the issue is not held for CLAIM_SECONDS.
    await closeTicketDelivery(db, claimed, attempts, 'link_failed').catch(() => undefined)
    if (error instanceof ConflictError) throw error
    if (!(error instanceof AppError))
      logger.error({ err: error, deliveryId: claimed.deliveryId }, 'created ticket could not be linked')
    throw unlinked('linking it failed')
  }
}

/**
 * The text with its share link. A link that cannot be made (its session was deleted since)
 * leaves the ticket without one rather than holding the claimed issue.
 */
async function sentText(
  db: Db,
  actor: Actor,
  stored: TicketText,
  share: { sessionId: string; offsetMs: number },
): Promise<{ text: TicketText; shareLinkId: string | null }> {
  try {
    return await withTicketShareLink(db, actor, stored, share)
  } catch (error) {
    logger.warn({ err: error, sessionId: share.sessionId }, 'ticket share link could not be created')
    return { text: stored, shareLinkId: null }
  }
}

/**
 * A refused ticket's link is held by no one (its token was only in the text the tracker
 * refused), and a retry makes another: it is revoked rather than left open for 30 days.
 */
async function revokeUnsentLink(db: Db, actor: Actor, shareLinkId: string | null): Promise<void> {
  if (!shareLinkId) return
  try {
    await revokeShareLink(db, actor, shareLinkId)
  } catch (error) {
    logger.warn({ err: error, shareLinkId }, 'unsent ticket share link could not be revoked')
  }
}

/**
 * Creates the tracker issue for one of ours and links it: the issue moves to `ticket_created`
 * with the same history and event as a manual link. At most one tracker issue per issue: an
 * issue with a ticket, or with a creation in progress, is a conflict. Every call is logged as a
 * `ticket` delivery with its attempts; a failure is a ProviderError that says what to do.
 */
export async function createTicket(
  db: Db,
  actor: Actor,
  input: { issueId: string; provider: unknown },
  options: CallOptions = {},
): Promise<Issue> {
  const provider = parseInput(TicketProvider, input.provider)
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  const share = await ticketShareTarget(db, actor.organizationId, input.issueId)
  // What the delivery log keeps: the share link's address holds its token, kept nowhere.
  const stored = await ticketText(
    db,
    actor.organizationId,
    input.issueId,
    share ? { shareLink: SHARE_LINK_NOT_KEPT } : {},
  )
  const claimed = await claim(db, actor, input.issueId, provider, stored)
  const { text, shareLinkId } = share
    ? await sentText(db, actor, stored, share)
    : { text: stored, shareLinkId: null }
  const { outcome, attempts } = await callTracker(provider, claimed, text, options)
  if (!outcome.ok) {
    await revokeUnsentLink(db, actor, shareLinkId)
    await recordTicketDelivery(db, claimed, attempts, outcome.failure.label)
    throw ticketError(NAMES[provider], outcome.failure)
  }
  return linkCreated(db, actor, claimed, provider, stored, outcome.value, attempts)
}
