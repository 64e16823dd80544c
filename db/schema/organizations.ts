import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'

export const PLANS = ['free', 'paid'] as const
export type Plan = (typeof PLANS)[number]
export const ROLES = ['owner', 'member'] as const
export type Role = (typeof ROLES)[number]
/**
 * What ingest does with captured network details (request and response headers and bodies,
 * docs/network-details.md): `redact` applies the recorder's redaction again on the server,
 * `drop` removes every header and body before the batch is stored.
 */
export const NETWORK_DETAIL_POLICIES = ['redact', 'drop'] as const
export type NetworkDetailPolicy = (typeof NETWORK_DETAIL_POLICIES)[number]

export const organizations = pgTable(
  'organizations',
  {
    id: id(),
    name: text('name').notNull(),
    plan: text('plan', { enum: PLANS }).notNull().default('free'),
    /** How long replay data is kept (the retention job of the production-readiness work). */
    retentionDays: integer('retention_days').notNull().default(30),
    networkDetails: text('network_details', { enum: NETWORK_DETAIL_POLICIES }).notNull().default('redact'),
    /** More JSON key words ingest redacts in captured bodies, beside the built-in list. */
    networkRedactKeys: text('network_redact_keys').array().notNull().default(sql`'{}'::text[]`),
    /**
     * Masking the organization added after the fact (docs/privacy.md#re-masking): CSS selectors
     * whose elements' text and values are masked, and text patterns masked wherever they appear.
     * Ingest applies them to every batch it stores; the recorder receives them in its answer.
     */
    maskSelectors: text('mask_selectors').array().notNull().default(sql`'{}'::text[]`),
    maskPatterns: text('mask_patterns').array().notNull().default(sql`'{}'::text[]`),
    /**
     * Tickets created in Linear or GitHub link to a share link of the sample session
     * (docs/sharing.md#ticket-links), which anyone with the ticket can open without an account.
     */
    ticketShareLinks: boolean('ticket_share_links').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    oneOf('organizations_plan_check', t.plan, PLANS),
    oneOf('organizations_network_details_check', t.networkDetails, NETWORK_DETAIL_POLICIES),
  ],
)

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Stored lower-cased and trimmed; the unique index makes sign-up races lose cleanly. */
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
    /**
     * Runs this installation: may change any organization's plan. The first user gets it;
     * `admin user:operator` grants and revokes it.
     */
    isOperator: boolean('is_operator').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
)

export const memberships = pgTable(
  'memberships',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull().default('member'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index('memberships_user_idx').on(t.userId),
    oneOf('memberships_role_check', t.role, ROLES),
  ],
)

/** A one-time invitation link to join an organization (the dashboard's members settings). */
export const invitations = pgTable(
  'invitations',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ROLES }).notNull().default('member'),
    tokenHash: text('token_hash').notNull(),
    invitedByUserId: uuid('invited_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_unique').on(t.tokenHash),
    index('invitations_org_idx').on(t.organizationId, t.createdAt.desc().nullsFirst()),
    oneOf('invitations_role_check', t.role, ROLES),
  ],
)
