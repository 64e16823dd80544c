import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts } from './columns'
import { organizations, users } from './organizations'

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** AES-256-GCM ciphertext of the `whsec_` secret (the secret must be recoverable to sign). */
    secretCiphertext: text('secret_ciphertext').notNull(),
    secretPrefix: text('secret_prefix').notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
    lastDeliveryAt: ts('last_delivery_at'),
    lastStatus: integer('last_status'),
    /** `bad_status:NNN`, `timeout`, `tls_error`, `network_error` or `url_unsafe`. */
    lastError: text('last_error'),
  },
  (t) => [
    index('webhook_endpoints_org_idx').on(t.organizationId, t.createdAt.desc().nullsFirst()),
    check('webhook_endpoints_name_length', sql`char_length(${t.name}) <= 64`),
    check('webhook_endpoints_url_length', sql`char_length(${t.url}) <= 2048`),
  ],
)

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** One event for one endpoint; `body` holds the exact bytes sent on every attempt. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The envelope `id` and `Service-Webhook-Id`, identical on every retry. */
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    isTest: boolean('is_test').notNull().default(false),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').defaultNow(),
    lastAttemptAt: ts('last_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    /** The request that caused the event: every attempt's log lines carry it, retries too. */
    requestId: text('request_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_unique').on(t.endpointId, t.eventId),
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt.desc().nullsFirst()),
    oneOf('webhook_deliveries_status_check', t.status, DELIVERY_STATUSES),
  ],
)

/** The delivery log shown per endpoint: one row per HTTP attempt. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: id(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: ts('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    httpStatus: integer('http_status'),
    errorLabel: text('error_label'),
  },
  (t) => [uniqueIndex('webhook_delivery_attempts_unique').on(t.deliveryId, t.attempt)],
)
