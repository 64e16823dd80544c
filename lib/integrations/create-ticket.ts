import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { type IntegrationSettings, integrationDeliveries, integrations, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { ConflictError, isUuid, NotFoundError } from '@/lib/errors'
import { ISSUE_NOT_FOUND } from '@/lib/issues/get-issue'
import { linkTicket } from '@/lib/issues/link-ticket'
import type { Issue } from '@/lib/issues/views'
import { parseInput } from '@/lib/validation'
import { createGithubIssue } from './github-client'
import { createLinearIssue } from './linear-client'
import type { CallOptions } from './provider-call'
import { type TrackerName, ticketError } from './provider-errors'
import { recordTicketDelivery } from './record-delivery'
import { decryptIntegrationSecret } from './secrets'
import { type TicketText, ticketText } from './ticket-body'

export const TicketProvider = z.enum(['linear', 'github'], {
  error: 'provider must be "linear" or "github".',
})
export type TicketProvider = z.infer<typeof TicketProvider>

const NAMES: Record<TicketProvider, TrackerName> = { linear: 'Linear', github: 'GitHub' }

/**
 * How long a ticket creation in progress holds its issue: longer than the slowest call (two
 * timeouts and a Retry-After), so a second request never races it; a creation whose process died
 * frees the issue after it.
 */
const CLAIM_SECONDS = 120

interface Claim {
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
    const [running] = await tx
      .select({ id: integrationDeliveries.id })
      .from(integrationDeliveries)
      .where(
        and(
          eq(integrationDeliveries.issueId, issueId),
          eq(integrationDeliveries.purpose, 'ticket'),
          eq(integrationDeliveries.status, 'pending'),
          gt(integrationDeliveries.createdAt, sql`now() - make_interval(secs => ${CLAIM_SECONDS})`),
        ),
      )
      .limit(1)
    if (running) throw new ConflictError('A ticket is being created for this issue right now.')
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
  const text = await ticketText(db, actor.organizationId, input.issueId)
  const claimed = await claim(db, actor, input.issueId, provider, text)
  const { outcome, attempts } = await callTracker(provider, claimed, text, options)
  await recordTicketDelivery(db, claimed, attempts, outcome.ok ? null : outcome.failure.label)
  if (!outcome.ok) throw ticketError(NAMES[provider], outcome.failure)
  return linkTicket(db, actor, {
    issueId: input.issueId,
    provider: NAMES[provider],
    url: outcome.value.url,
    identifier: outcome.value.identifier,
  })
}
