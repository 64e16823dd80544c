import { and, count, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import {
  type AlertDecision,
  alertMessages,
  alertRuleEvents,
  alertRules,
  integrations,
  outbox,
  webhookEndpoints,
} from '@/db/schema'
import { parseEventPayload } from '@/lib/outbox/events'
import { sessionsMatchingSaved } from '@/lib/saved-searches/query'
import { type AlertCandidate, type AlertSourceEventOf, candidatesOf } from './candidates'
import { databaseNow } from './clock'
import { isAlertSourceEvent, TRIGGER_OF_EVENT } from './events'
import { matchesFilters, windowStartOf } from './filters'
import { slackSingleBody, triggeredData } from './payloads'
import { type QueuedDeliveries, queueDelivery } from './queue-delivery'

type Rule = typeof alertRules.$inferSelect

export interface AlertEventRef {
  eventId: string
  name: string
  /**
   * Used only when the outbox row is gone (pruned); the row is the source of truth. Either
   * payload is checked against the event catalogue before any rule reads it.
   */
  fallback?: { organizationId?: string; payload: unknown }
}

export interface Evaluation extends QueuedDeliveries {
  decisions: { ruleId: string; eventId: string; decision: AlertDecision }[]
}

/** Active rules of the trigger whose destination is still active (a revoked one alerts nowhere). */
async function activeRules(db: Db, organizationId: string, trigger: Rule['trigger']): Promise<Rule[]> {
  const rows = await db
    .select({ rule: alertRules })
    .from(alertRules)
    .leftJoin(
      integrations,
      and(eq(integrations.id, alertRules.integrationId), isNull(integrations.revokedAt)),
    )
    .leftJoin(
      webhookEndpoints,
      and(eq(webhookEndpoints.id, alertRules.endpointId), isNull(webhookEndpoints.revokedAt)),
    )
    .where(
      and(
        eq(alertRules.organizationId, organizationId),
        eq(alertRules.trigger, trigger),
        isNull(alertRules.pausedAt),
        or(sql`${integrations.id} is not null`, sql`${webhookEndpoints.id} is not null`),
      ),
    )
  return rows.map((r) => r.rule)
}

/**
 * Decides one (rule, candidate) in one transaction, holding the rule's row lock: every
 * evaluation of a rule counts its window under the same lock, so a burst of events decided at
 * once never sends more than `maxPerWindow`, and the unique (rule, event) index plus the check
 * under the lock decide each pair exactly once. The decision's time is the database's clock
 * read after the lock (digests.ts takes the same lock before writing a window's digest), so no
 * decision can land in a window whose digest was already written. `at` is a test seam.
 */
async function decide(
  db: Db,
  ruleId: string,
  candidate: AlertCandidate,
  at: Date | undefined,
  into: Evaluation,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [rule] = await tx
      .select()
      .from(alertRules)
      .where(and(eq(alertRules.id, ruleId), isNull(alertRules.pausedAt)))
      .for('update')
    if (!rule) return
    const now = at ?? (await databaseNow(tx))
    const [seen] = await tx
      .select({ id: alertRuleEvents.id })
      .from(alertRuleEvents)
      .where(and(eq(alertRuleEvents.ruleId, rule.id), eq(alertRuleEvents.eventId, candidate.eventId)))
    if (seen) return
    const windowStart = windowStartOf(now, rule.windowMinutes)
    let decision: AlertDecision = rule.mode === 'digest' ? 'digest' : 'sent'
    if (candidate.issueId && rule.issueCooldownMinutes > 0) {
      const since = new Date(now.getTime() - rule.issueCooldownMinutes * 60_000)
      const [recent] = await tx
        .select({ id: alertRuleEvents.id })
        .from(alertRuleEvents)
        .where(
          and(
            eq(alertRuleEvents.ruleId, rule.id),
            eq(alertRuleEvents.issueId, candidate.issueId),
            inArray(alertRuleEvents.decision, ['sent', 'digest']),
            gt(alertRuleEvents.createdAt, since),
          ),
        )
        .limit(1)
      if (recent) decision = 'held_cooldown'
    }
    if (decision === 'sent') {
      const [sent] = await tx
        .select({ n: count() })
        .from(alertRuleEvents)
        .where(
          and(
            eq(alertRuleEvents.ruleId, rule.id),
            eq(alertRuleEvents.windowStart, windowStart),
            eq(alertRuleEvents.windowMinutes, rule.windowMinutes),
            eq(alertRuleEvents.decision, 'sent'),
          ),
        )
      if ((sent?.n ?? 0) >= rule.maxPerWindow) decision = 'digest'
    }
    let messageId: string | null = null
    if (decision === 'sent') {
      const [message] = await tx
        .insert(alertMessages)
        .values({
          ruleId: rule.id,
          organizationId: rule.organizationId,
          kind: 'single',
          items: 1,
          createdAt: now,
        })
        .returning()
      messageId = message!.id
      await queueDelivery(
        tx,
        rule,
        { id: message!.id, issueId: candidate.issueId, createdAt: now },
        {
          slackBody: slackSingleBody(rule, candidate),
          event: 'alert.triggered',
          data: triggeredData(rule, candidate, candidate.eventId),
        },
        into,
      )
    }
    await tx.insert(alertRuleEvents).values({
      ruleId: rule.id,
      organizationId: rule.organizationId,
      eventId: candidate.eventId,
      trigger: rule.trigger,
      issueId: candidate.issueId,
      signalId: candidate.signalId,
      title: candidate.title.slice(0, 500),
      decision,
      messageId,
      windowStart,
      windowMinutes: rule.windowMinutes,
      createdAt: now,
    })
    into.decisions.push({ ruleId: rule.id, eventId: candidate.eventId, decision })
  })
}

/**
 * For each saved search the rules filter by, the candidates' sessions it finds: asked once per
 * saved search and event, however many rules share it.
 */
async function savedSearchFinds(
  db: Db,
  organizationId: string,
  rules: Rule[],
  candidates: AlertCandidate[],
): Promise<Map<string, Set<string>>> {
  const sessionIds = [...new Set(candidates.flatMap((c) => (c.sessionId ? [c.sessionId] : [])))]
  const finds = new Map<string, Set<string>>()
  for (const rule of rules) {
    const id = rule.filters.savedSearchId
    if (id && !finds.has(id))
      finds.set(id, await sessionsMatchingSaved(db, { organizationId, savedSearchId: id, sessionIds }))
  }
  return finds
}

/**
 * Runs one outbox event through the alert rules of its organization: candidates are loaded
 * once, each rule's filters applied, each (rule, candidate) decided in its own transaction.
 * Returns the deliveries it queued (for their first attempt) and the decisions made. `now`
 * is for tests; without it each decision takes the database's clock under the rule's lock.
 */
export async function evaluateEvent(db: Db, ref: AlertEventRef, now?: Date): Promise<Evaluation> {
  const result: Evaluation = { slack: [], webhook: [], decisions: [] }
  const { name } = ref
  if (!isAlertSourceEvent(name)) return result
  const trigger = TRIGGER_OF_EVENT[name]
  const [row] = await db
    .select({ organizationId: outbox.organizationId, payload: outbox.payload })
    .from(outbox)
    .where(eq(outbox.eventId, ref.eventId))
  const organizationId = row?.organizationId ?? ref.fallback?.organizationId
  const stored = row ? row.payload : ref.fallback?.payload
  if (!organizationId || stored === undefined) return result
  const rules = await activeRules(db, organizationId, trigger)
  if (rules.length === 0) return result
  // A payload that does not match its event throws here, before any rule decides on it.
  const event = {
    eventId: ref.eventId,
    name,
    organizationId,
    payload: parseEventPayload(name, stored),
  } as AlertSourceEventOf
  const candidates = await candidatesOf(db, event)
  const finds = await savedSearchFinds(db, organizationId, rules, candidates)
  for (const rule of rules)
    for (const candidate of candidates)
      if (matchesFilters(rule.filters, candidate, finds)) await decide(db, rule.id, candidate, now, result)
  return result
}
