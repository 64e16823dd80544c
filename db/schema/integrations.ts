import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'
import { issues } from './issues'
import { organizations, users } from './organizations'
import { DELIVERY_STATUSES, webhookDeliveries, webhookEndpoints } from './webhooks'

export const INTEGRATION_KINDS = ['slack', 'linear', 'github'] as const
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number]

/** What an integration needs besides its secret; never anything secret. */
export type IntegrationSettings =
  | { kind: 'slack' }
  | { kind: 'linear'; teamId: string; teamKey: string; teamName: string }
  | { kind: 'github'; owner: string; repo: string }

/**
 * A connection of an organization to Slack (an incoming-webhook URL), Linear (an API key and a
 * team) or GitHub Issues (a fine-grained token and a repository). The secret is encrypted like
 * webhook signing secrets (it must be recoverable to call the provider) and shown only as a hint.
 * Linear and GitHub have one active integration each per organization: the issue page's
 * "Create … issue" has one place to go.
 */
export const integrations = pgTable(
  'integrations',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: INTEGRATION_KINDS }).notNull(),
    name: text('name').notNull(),
    settings: jsonb('settings').$type<IntegrationSettings>().notNull(),
    /** AES-256-GCM ciphertext of the webhook URL, API key or token. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** Enough of the secret to recognise it (its last characters), never enough to use it. */
    secretHint: text('secret_hint').notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
    lastDeliveryAt: ts('last_delivery_at'),
    lastStatus: integer('last_status'),
    /** A short label of the last failure (`bad_status:401`, `rate_limited`, `network_error`, ...). */
    lastError: text('last_error'),
  },
  (t) => [
    index('integrations_org_idx').on(t.organizationId, t.createdAt.desc().nullsFirst()),
    uniqueIndex('integrations_one_tracker_per_org')
      .on(t.organizationId, t.kind)
      .where(sql`${t.revokedAt} is null and ${t.kind} in ('linear', 'github')`),
    oneOf('integrations_kind_check', t.kind, INTEGRATION_KINDS),
    check('integrations_name_length', sql`char_length(${t.name}) <= 64`),
  ],
)

export const ALERT_TRIGGERS = ['issue_created', 'issue_regressed', 'issue_spiking', 'signal_matched'] as const
export type AlertTrigger = (typeof ALERT_TRIGGERS)[number]
export const ALERT_MODES = ['immediate', 'digest'] as const
export type AlertMode = (typeof ALERT_MODES)[number]

/** Optional narrowing of a rule: every listed filter must hold. */
export interface AlertFilters {
  priorities?: string[]
  kinds?: string[]
  /** A plain substring of the issue's page URL (no pattern: users write it, events are hostile). */
  urlContains?: string
  /** Only candidates whose session this saved search finds (docs/saved-searches.md). */
  savedSearchId?: string
}

/**
 * When (a trigger and filters), where (a Slack integration or a webhook endpoint: exactly one),
 * and how often at most: one alert per issue per `issueCooldownMinutes`, and in `immediate`
 * mode at most `maxPerWindow` messages per `windowMinutes`, the rest of the window going into
 * one digest at its end; in `digest` mode everything of a window goes into one digest.
 */
export const alertRules = pgTable(
  'alert_rules',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    trigger: text('trigger', { enum: ALERT_TRIGGERS }).notNull(),
    filters: jsonb('filters').$type<AlertFilters>().notNull().default({}),
    integrationId: uuid('integration_id').references(() => integrations.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id').references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: ALERT_MODES }).notNull().default('immediate'),
    windowMinutes: integer('window_minutes').notNull().default(10),
    maxPerWindow: integer('max_per_window').notNull().default(5),
    issueCooldownMinutes: integer('issue_cooldown_minutes').notNull().default(60),
    pausedAt: ts('paused_at'),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('alert_rules_org_trigger_idx').on(t.organizationId, t.trigger),
    oneOf('alert_rules_trigger_check', t.trigger, ALERT_TRIGGERS),
    oneOf('alert_rules_mode_check', t.mode, ALERT_MODES),
    check('alert_rules_name_length', sql`char_length(${t.name}) <= 64`),
    check('alert_rules_one_destination', sql`(${t.integrationId} is null) <> (${t.endpointId} is null)`),
    check('alert_rules_window', sql`${t.windowMinutes} between 1 and 1440`),
    check('alert_rules_max_per_window', sql`${t.maxPerWindow} between 0 and 100`),
    check('alert_rules_cooldown', sql`${t.issueCooldownMinutes} between 0 and 10080`),
  ],
)

export const ALERT_MESSAGE_KINDS = ['single', 'digest'] as const
export type AlertMessageKind = (typeof ALERT_MESSAGE_KINDS)[number]

/** One message a rule sent: for one event, or the digest of a window. */
export const alertMessages = pgTable(
  'alert_messages',
  {
    id: id(),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ALERT_MESSAGE_KINDS }).notNull(),
    /** The window a digest covers (its start and length, as its events recorded them); null for a single message. */
    windowStart: ts('window_start'),
    windowMinutes: integer('window_minutes'),
    items: integer('items').notNull().default(1),
    /** Where it went: a Slack delivery, or a webhook delivery to an endpoint. */
    integrationDeliveryId: uuid('integration_delivery_id').references(
      (): AnyPgColumn => integrationDeliveries.id,
      { onDelete: 'set null' },
    ),
    webhookDeliveryId: uuid('webhook_delivery_id').references(() => webhookDeliveries.id, {
      onDelete: 'set null',
    }),
    createdAt: createdAt(),
  },
  (t) => [
    // A window is its start and its length: a rule edited from 10 to 60 minutes has a 12:00
    // window of each, digested at 12:10 and 13:00.
    uniqueIndex('alert_messages_one_digest_per_window')
      .on(t.ruleId, t.windowStart, t.windowMinutes)
      .where(sql`${t.kind} = 'digest'`),
    index('alert_messages_rule_created_idx').on(t.ruleId, t.createdAt.desc().nullsFirst()),
    oneOf('alert_messages_kind_check', t.kind, ALERT_MESSAGE_KINDS),
  ],
)

export const ALERT_DECISIONS = ['sent', 'digest', 'held_cooldown'] as const
export type AlertDecision = (typeof ALERT_DECISIONS)[number]

/**
 * A rule's history: every event that passed its trigger and filters, and what the rule did
 * with it: sent it on its own, kept it for the window's digest (`messageId` once the digest
 * went), or held it back because the same issue was alerted within the cooldown.
 */
export const alertRuleEvents = pgTable(
  'alert_rule_events',
  {
    id: id(),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The outbox event that triggered it: a rule looks at each event once. */
    eventId: uuid('event_id').notNull(),
    trigger: text('trigger', { enum: ALERT_TRIGGERS }).notNull(),
    issueId: uuid('issue_id').references(() => issues.id, { onDelete: 'set null' }),
    signalId: uuid('signal_id'),
    /** What the alert was about, as it read then (the issue's title, the signal's name). */
    title: text('title').notNull(),
    decision: text('decision', { enum: ALERT_DECISIONS }).notNull(),
    messageId: uuid('message_id').references(() => alertMessages.id, { onDelete: 'set null' }),
    windowStart: ts('window_start').notNull(),
    /** The rule's window length when decided: editing the rule never re-aligns a window in flight. */
    windowMinutes: integer('window_minutes').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('alert_rule_events_rule_event_unique').on(t.ruleId, t.eventId),
    // The window's count of sent messages, made under the rule lock on every decision.
    index('alert_rule_events_window_sent_idx').on(t.ruleId, t.windowStart).where(sql`${t.decision} = 'sent'`),
    // The digest sweep: events still waiting for their window's digest, oldest windows first.
    index('alert_rule_events_digest_due_idx')
      .on(t.windowStart, t.ruleId)
      .where(sql`${t.decision} = 'digest' and ${t.messageId} is null`),
    check('alert_rule_events_window', sql`${t.windowMinutes} between 1 and 1440`),
    index('alert_rule_events_rule_created_idx').on(t.ruleId, t.createdAt.desc().nullsFirst()),
    index('alert_rule_events_rule_issue_idx').on(t.ruleId, t.issueId, t.createdAt),
    oneOf('alert_rule_events_trigger_check', t.trigger, ALERT_TRIGGERS),
    oneOf('alert_rule_events_decision_check', t.decision, ALERT_DECISIONS),
  ],
)

export const INTEGRATION_DELIVERY_PURPOSES = ['alert', 'ticket', 'test'] as const
export type IntegrationDeliveryPurpose = (typeof INTEGRATION_DELIVERY_PURPOSES)[number]

/**
 * Everything sent to an integration: Slack messages (retried like webhook deliveries, with the
 * same delays and bookkeeping) and ticket creations (one attempt each, made while the user waits).
 */
export const integrationDeliveries = pgTable(
  'integration_deliveries',
  {
    id: id(),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: INTEGRATION_DELIVERY_PURPOSES }).notNull(),
    alertMessageId: uuid('alert_message_id').references(() => alertMessages.id, { onDelete: 'set null' }),
    issueId: uuid('issue_id').references(() => issues.id, { onDelete: 'set null' }),
    /** The exact JSON sent on every attempt (a Slack message). */
    body: text('body').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').defaultNow(),
    lastAttemptAt: ts('last_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    requestId: text('request_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('integration_deliveries_alert_message_unique').on(t.alertMessageId),
    index('integration_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('integration_deliveries_integration_created_idx').on(
      t.integrationId,
      t.createdAt.desc().nullsFirst(),
    ),
    oneOf('integration_deliveries_purpose_check', t.purpose, INTEGRATION_DELIVERY_PURPOSES),
    oneOf('integration_deliveries_status_check', t.status, DELIVERY_STATUSES),
  ],
)

/** The delivery log shown per integration: one row per attempt. */
export const integrationDeliveryAttempts = pgTable(
  'integration_delivery_attempts',
  {
    id: id(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => integrationDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: ts('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    httpStatus: integer('http_status'),
    errorLabel: text('error_label'),
  },
  (t) => [uniqueIndex('integration_delivery_attempts_unique').on(t.deliveryId, t.attempt)],
)
