import { and, desc, eq, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import {
  alertMessages,
  alertRuleEvents,
  alertRules,
  integrationDeliveries,
  integrations,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/schema'
import { isUuid } from '@/lib/errors'

/** Rules of an organization with their destination's name and their last activity. */
export async function listRules(db: Db, organizationId: string) {
  // Each rule's latest event, one probe of alert_rule_events_rule_created_idx per rule (not a
  // scan of the organization's whole history).
  const lastActivityAt = sql<Date | null>`(
    select ${alertRuleEvents.createdAt} from ${alertRuleEvents}
    where ${alertRuleEvents.ruleId} = ${alertRules.id}
    order by ${alertRuleEvents.createdAt} desc nulls first limit 1)`.mapWith(alertRuleEvents.createdAt)
  return db
    .select({
      rule: alertRules,
      integrationName: integrations.name,
      integrationRevokedAt: integrations.revokedAt,
      endpointName: webhookEndpoints.name,
      endpointRevokedAt: webhookEndpoints.revokedAt,
      lastActivityAt,
    })
    .from(alertRules)
    .leftJoin(integrations, eq(integrations.id, alertRules.integrationId))
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, alertRules.endpointId))
    .where(eq(alertRules.organizationId, organizationId))
    .orderBy(desc(alertRules.createdAt))
}

/** Where a rule may send: active Slack integrations and active webhook endpoints of the organization. */
export async function destinations(db: Db, organizationId: string) {
  const [slack, endpoints] = await Promise.all([
    db
      .select({ id: integrations.id, name: integrations.name })
      .from(integrations)
      .where(
        and(
          eq(integrations.organizationId, organizationId),
          eq(integrations.kind, 'slack'),
          sql`${integrations.revokedAt} is null`,
        ),
      ),
    db
      .select({ id: webhookEndpoints.id, name: webhookEndpoints.name })
      .from(webhookEndpoints)
      .where(
        and(eq(webhookEndpoints.organizationId, organizationId), sql`${webhookEndpoints.revokedAt} is null`),
      ),
  ])
  return [
    ...slack.map((s) => ({ value: `integration:${s.id}`, label: `Slack: ${s.name}` })),
    ...endpoints.map((e) => ({ value: `endpoint:${e.id}`, label: `Webhook: ${e.name}` })),
  ]
}

const HISTORY_LIMIT = 100

/** One rule's history: its latest events with their decision, and the messages sent with their delivery status. */
export async function ruleHistory(db: Db, organizationId: string, ruleId: string) {
  if (!isUuid(ruleId)) return null
  const [rule] = await db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.id, ruleId), eq(alertRules.organizationId, organizationId)))
  if (!rule) return null
  const [events, messages] = await Promise.all([
    db
      .select()
      .from(alertRuleEvents)
      .where(eq(alertRuleEvents.ruleId, ruleId))
      .orderBy(desc(alertRuleEvents.createdAt))
      .limit(HISTORY_LIMIT),
    db
      .select({
        message: alertMessages,
        slackStatus: integrationDeliveries.status,
        slackError: integrationDeliveries.lastError,
        slackAttempts: integrationDeliveries.attempts,
        webhookStatus: webhookDeliveries.status,
        webhookError: webhookDeliveries.lastError,
        webhookAttempts: webhookDeliveries.attempts,
      })
      .from(alertMessages)
      .leftJoin(integrationDeliveries, eq(integrationDeliveries.id, alertMessages.integrationDeliveryId))
      .leftJoin(webhookDeliveries, eq(webhookDeliveries.id, alertMessages.webhookDeliveryId))
      .where(eq(alertMessages.ruleId, ruleId))
      .orderBy(desc(alertMessages.createdAt))
      .limit(HISTORY_LIMIT),
  ])
  return {
    rule,
    events,
    messages: messages.map((m) => ({
      ...m.message,
      status: m.slackStatus ?? m.webhookStatus ?? null,
      lastError: m.slackError ?? m.webhookError ?? null,
      attempts: m.slackAttempts ?? m.webhookAttempts ?? 0,
    })),
  }
}
