import { isIP } from 'node:net'
import { and, count, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Db, Tx } from '@/db/client'
import { type IntegrationKind, type IntegrationSettings, integrations } from '@/db/schema'
import { getConfig } from '@/lib/config'
import { ConflictError, InvalidInputError, isUniqueViolation, RateLimitedError } from '@/lib/errors'
import { lockOrganization } from '@/lib/orgs/lock-organization'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'
import { addressRefusal, type Resolver, systemResolver } from '@/lib/webhooks/url-guard'
import { checkRepository, parseRepository } from './github-client'
import { INTEGRATION_LIMITS } from './limits'
import { findLinearTeam } from './linear-client'
import type { CallOptions } from './provider-call'
import { connectError } from './provider-errors'
import { encryptIntegrationSecret, secretHint } from './secrets'
import { slackWebhookUrlProblem } from './slack-url'

export type CreateIntegrationInput = {
  organizationId: string
  name: string
  createdByUserId?: string | null
} & (
  | { kind: 'slack'; webhookUrl: string }
  | { kind: 'linear'; apiKey: string; team: string }
  | { kind: 'github'; token: string; repository: string }
)

export interface CreatedIntegration {
  id: string
  kind: IntegrationKind
  name: string
  settings: IntegrationSettings
  secretHint: string
}

export interface CreateOptions extends CallOptions {
  /** Resolves a Slack webhook host; injected in tests so no query leaves the machine. */
  resolver?: Resolver
}

const LABELS: Record<IntegrationKind, string> = { slack: 'Slack', linear: 'Linear', github: 'GitHub' }

function text(value: string, what: string, max: number): string {
  if (!isStorableText(value)) throw new InvalidInputError(`${what} ${NOT_STORABLE}`)
  const trimmed = value.trim()
  if (trimmed === '') throw new InvalidInputError(`${what} is required.`)
  if (trimmed.length > max) throw new InvalidInputError(`${what} must be at most ${max} characters.`)
  return trimmed
}

/**
 * Slack's host is on the operator's list; its addresses must still be public, as a webhook
 * receiver's are, unless the operator allowed private targets. A loopback literal on the list is
 * the tests' (slackWebhookUrlProblem admits it only then).
 */
async function vetSlackHost(url: string, resolver: Resolver): Promise<void> {
  const { hostname } = new URL(url)
  if (isIP(hostname)) return
  const policy = { allowPrivate: getConfig().webhooks.allowPrivateTargets }
  let addresses: { address: string }[]
  try {
    addresses = await resolver(hostname)
  } catch {
    throw new InvalidInputError(`The Slack webhook host ${hostname} does not resolve.`)
  }
  for (const { address } of addresses)
    if (addressRefusal(address, policy))
      throw new InvalidInputError('The Slack webhook URL resolves to a private address.')
}

/** Checks the input with the provider and answers the secret, settings and hint to store. */
async function prepare(
  input: CreateIntegrationInput,
  options: CreateOptions,
): Promise<{ secret: string; settings: IntegrationSettings }> {
  switch (input.kind) {
    case 'slack': {
      const url = text(input.webhookUrl, 'The Slack webhook URL', 512)
      const problem = slackWebhookUrlProblem(url, getConfig().integrations.slackWebhookHosts)
      if (problem) throw new InvalidInputError(problem)
      await vetSlackHost(url, options.resolver ?? systemResolver)
      return { secret: url, settings: { kind: 'slack' } }
    }
    case 'linear': {
      const apiKey = text(input.apiKey, 'The Linear API key', INTEGRATION_LIMITS.secret)
      const team = text(input.team, 'The Linear team', INTEGRATION_LIMITS.team)
      const { outcome } = await findLinearTeam(apiKey, team, options)
      if (!outcome.ok)
        throw connectError('Linear', outcome.failure, 'The API key cannot read teams in this workspace.')
      if (!outcome.value)
        throw new InvalidInputError(
          `Linear has no team ${team} that this API key can see. Enter the team key (e.g. ENG) or id.`,
        )
      return { secret: apiKey, settings: { kind: 'linear', ...outcome.value } }
    }
    case 'github': {
      const token = text(input.token, 'The GitHub token', INTEGRATION_LIMITS.secret)
      const name = text(input.repository, 'The repository', INTEGRATION_LIMITS.repository)
      const repository = parseRepository(name)
      if (!repository) throw new InvalidInputError('Enter the repository as owner/repo, e.g. acme/shop.')
      const { outcome } = await checkRepository(token, repository, options)
      const hidden = `GitHub has no repository ${name} that this token can see. Give the fine-grained token access to it.`
      if (!outcome.ok) throw connectError('GitHub', outcome.failure, hidden)
      if (!outcome.value.hasIssues) throw new InvalidInputError(`Issues are turned off in ${name}.`)
      return { secret: token, settings: { kind: 'github', ...repository } }
    }
  }
}

async function checkCaps(tx: Tx, input: CreateIntegrationInput) {
  await lockOrganization(tx, input.organizationId)
  const active = and(eq(integrations.organizationId, input.organizationId), isNull(integrations.revokedAt))
  const [same] = await tx
    .select({ n: count() })
    .from(integrations)
    .where(and(active, eq(integrations.kind, input.kind)))
  const n = same?.n ?? 0
  if (input.kind !== 'slack' && n > 0)
    throw new ConflictError(
      `This organization already has a ${LABELS[input.kind]} integration. Disconnect it to connect another.`,
    )
  if (input.kind === 'slack' && n >= INTEGRATION_LIMITS.activeSlack)
    throw new ConflictError(
      `${INTEGRATION_LIMITS.activeSlack} active Slack integrations is the maximum. Disconnect one to add another.`,
    )
  const [recent] = await tx
    .select({ n: count() })
    .from(integrations)
    .where(
      and(
        eq(integrations.organizationId, input.organizationId),
        gt(integrations.createdAt, sql`now() - interval '1 hour'`),
      ),
    )
  if ((recent?.n ?? 0) >= INTEGRATION_LIMITS.creationsPerHour)
    throw new RateLimitedError(
      `At most ${INTEGRATION_LIMITS.creationsPerHour} integrations can be connected per hour. Try again later.`,
      3600,
    )
}

/**
 * Connects an integration: the input is checked, then the provider (a Linear team, a GitHub
 * repository) before anything is stored, so a saved integration is known to work. The caps are
 * checked twice: before the provider call (no call for a form that cannot succeed) and under the
 * organization lock when inserting; the partial unique index is the last word on one tracker each.
 */
export async function createIntegration(
  db: Db,
  input: CreateIntegrationInput,
  options: CreateOptions = {},
): Promise<CreatedIntegration> {
  const name = text(input.name, 'Name', INTEGRATION_LIMITS.name)
  await db.transaction((tx) => checkCaps(tx, input))
  const { secret, settings } = await prepare(input, options)
  try {
    return await db.transaction(async (tx) => {
      await checkCaps(tx, input)
      const [row] = await tx
        .insert(integrations)
        .values({
          organizationId: input.organizationId,
          kind: input.kind,
          name,
          settings,
          secretCiphertext: encryptIntegrationSecret(secret),
          secretHint: secretHint(secret),
          createdByUserId: input.createdByUserId ?? null,
        })
        .returning({ id: integrations.id })
      return { id: row!.id, kind: input.kind, name, settings, secretHint: secretHint(secret) }
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(
        `This organization already has a ${LABELS[input.kind]} integration. Disconnect it to connect another.`,
      )
    throw error
  }
}
