import { and, eq, isNull } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Tx } from '@/db/client'
import {
  ALERT_MODES,
  ALERT_TRIGGERS,
  type AlertFilters,
  alertRules,
  ISSUE_PRIORITIES,
  integrations,
  webhookEndpoints,
} from '@/db/schema'
import { InvalidInputError, isUuid, NotFoundError } from '@/lib/errors'
import { ISSUE_KINDS } from '@/lib/issues/kinds'
import { lockOrganization } from '@/lib/orgs/lock-organization'
import { holdSavedSearch } from '@/lib/saved-searches/query'
import { isStorableText } from '@/lib/validation'

export const MAX_RULES_PER_ORG = 50

const whole = (label: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${label} must be a number.` })
    .int(`${label} must be a whole number.`)
    .min(min, `${label} must be at least ${min}.`)
    .max(max, `${label} must be at most ${max}.`)

/** A rule as the form and the domain take it; the destination is `integration:<id>` or `endpoint:<id>`. */
export const RuleInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'Name is required.')
      .max(64, 'Name must be at most 64 characters.')
      .refine(isStorableText, 'Name contains characters that cannot be stored.'),
    trigger: z.enum(ALERT_TRIGGERS, { error: 'Choose a trigger.' }),
    priorities: z.array(z.enum(ISSUE_PRIORITIES, { error: 'Unknown priority.' })).default([]),
    kinds: z.array(z.enum(ISSUE_KINDS, { error: 'Unknown issue kind.' })).default([]),
    urlContains: z
      .string()
      .trim()
      .max(200, 'The URL filter must be at most 200 characters.')
      .refine(isStorableText, 'The URL filter contains characters that cannot be stored.')
      .default(''),
    /** A saved search of the organization (docs/saved-searches.md); empty for none. */
    savedSearchId: z.string({ error: 'Choose a saved search.' }).trim().max(64).default(''),
    destination: z
      .string({ error: 'Choose where alerts go.' })
      .regex(/^(integration|endpoint):[0-9a-f-]{36}$/i, 'Choose where alerts go.'),
    mode: z.enum(ALERT_MODES, { error: 'Choose immediate or digest.' }).default('immediate'),
    windowMinutes: whole('The window', 1, 1440).default(10),
    maxPerWindow: whole('Messages per window', 0, 100).default(5),
    issueCooldownMinutes: whole('The cooldown', 0, 10080).default(60),
  })
  .refine((r) => r.trigger !== 'signal_matched' || (r.priorities.length === 0 && r.kinds.length === 0), {
    message:
      'Priority and kind filters apply to issues; a signal rule can only filter by URL and saved search.',
    path: ['priorities'],
  })
export type RuleInput = z.input<typeof RuleInput>

function parse(input: unknown) {
  const parsed = RuleInput.safeParse(input)
  if (!parsed.success) throw new InvalidInputError(parsed.error.issues.map((i) => i.message).join(' '))
  return parsed.data
}

/** The destination must be an active Slack integration or an active endpoint of the same organization. */
async function destinationOf(db: Db, organizationId: string, destination: string) {
  const [kind, id] = destination.split(':') as ['integration' | 'endpoint', string]
  if (kind === 'integration') {
    const [row] = await db
      .select({ id: integrations.id })
      .from(integrations)
      .where(
        and(
          eq(integrations.id, id),
          eq(integrations.organizationId, organizationId),
          eq(integrations.kind, 'slack'),
          isNull(integrations.revokedAt),
        ),
      )
    if (!row) throw new InvalidInputError('The Slack integration is not active in this organization.')
    return { integrationId: row.id, endpointId: null }
  }
  const [row] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, id),
        eq(webhookEndpoints.organizationId, organizationId),
        isNull(webhookEndpoints.revokedAt),
      ),
    )
  if (!row) throw new InvalidInputError('The webhook endpoint is not active in this organization.')
  return { integrationId: null, endpointId: row.id }
}

async function values(db: Db, organizationId: string, input: unknown) {
  const r = parse(input)
  const filters: AlertFilters = {
    ...(r.priorities.length ? { priorities: r.priorities } : {}),
    ...(r.kinds.length ? { kinds: r.kinds } : {}),
    ...(r.urlContains ? { urlContains: r.urlContains } : {}),
    ...(r.savedSearchId ? { savedSearchId: r.savedSearchId } : {}),
  }
  return {
    name: r.name,
    trigger: r.trigger,
    filters,
    ...(await destinationOf(db, organizationId, r.destination)),
    mode: r.mode,
    windowMinutes: r.windowMinutes,
    maxPerWindow: r.maxPerWindow,
    issueCooldownMinutes: r.issueCooldownMinutes,
  }
}

const NO_SAVED_SEARCH = 'The saved search is not one of this organization.'

/** The rule's saved search must be the organization's; held until the write commits. */
async function checkSavedSearch(tx: Tx, organizationId: string, savedSearchId: string | undefined) {
  if (savedSearchId && !(await holdSavedSearch(tx, organizationId, savedSearchId)))
    throw new InvalidInputError(NO_SAVED_SEARCH)
}

export async function createRule(
  db: Db,
  ctx: { organizationId: string; userId: string | null },
  input: unknown,
) {
  const rule = await values(db, ctx.organizationId, input)
  // Counted under the organization's row lock: two creations at once cannot both pass at 49.
  return db.transaction(async (tx) => {
    await lockOrganization(tx, ctx.organizationId)
    await checkSavedSearch(tx, ctx.organizationId, rule.filters.savedSearchId)
    const count = await tx.$count(alertRules, eq(alertRules.organizationId, ctx.organizationId))
    if (count >= MAX_RULES_PER_ORG)
      throw new InvalidInputError(`An organization has at most ${MAX_RULES_PER_ORG} alert rules.`)
    const [row] = await tx
      .insert(alertRules)
      .values({ organizationId: ctx.organizationId, createdByUserId: ctx.userId, ...rule })
      .returning()
    return row!
  })
}

const own = (organizationId: string, ruleId: string) =>
  and(eq(alertRules.id, ruleId), eq(alertRules.organizationId, organizationId))

function checkId(ruleId: string) {
  if (!isUuid(ruleId)) throw new NotFoundError('Alert rule not found.')
}

export async function updateRule(db: Db, ctx: { organizationId: string }, ruleId: string, input: unknown) {
  checkId(ruleId)
  const rule = await values(db, ctx.organizationId, input)
  const row = await db.transaction(async (tx) => {
    await checkSavedSearch(tx, ctx.organizationId, rule.filters.savedSearchId)
    const [updated] = await tx
      .update(alertRules)
      .set({ ...rule, updatedAt: new Date() })
      .where(own(ctx.organizationId, ruleId))
      .returning()
    return updated
  })
  if (!row) throw new NotFoundError('Alert rule not found.')
  return row
}

export async function setRulePaused(
  db: Db,
  ctx: { organizationId: string },
  ruleId: string,
  paused: boolean,
) {
  checkId(ruleId)
  const [row] = await db
    .update(alertRules)
    .set({ pausedAt: paused ? new Date() : null, updatedAt: new Date() })
    .where(own(ctx.organizationId, ruleId))
    .returning({ id: alertRules.id })
  if (!row) throw new NotFoundError('Alert rule not found.')
}

export async function deleteRule(db: Db, ctx: { organizationId: string }, ruleId: string) {
  checkId(ruleId)
  const [row] = await db
    .delete(alertRules)
    .where(own(ctx.organizationId, ruleId))
    .returning({ id: alertRules.id })
  if (!row) throw new NotFoundError('Alert rule not found.')
}
