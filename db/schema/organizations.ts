import { sql } from 'drizzle-orm'
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, updatedAt } from './columns'

export const PLANS = ['free', 'paid'] as const
export type Plan = (typeof PLANS)[number]
export const ROLES = ['owner', 'member'] as const
export type Role = (typeof ROLES)[number]

export const organizations = pgTable(
  'organizations',
  {
    id: id(),
    name: text('name').notNull(),
    plan: text('plan', { enum: PLANS }).notNull().default('free'),
    /** How long replay data is kept (the retention job of the production-readiness work). */
    retentionDays: integer('retention_days').notNull().default(30),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check('organizations_plan_check', sql`${t.plan} in ('free', 'paid')`)],
)

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Stored lower-cased and trimmed; the unique index makes sign-up races lose cleanly. */
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
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
    check('memberships_role_check', sql`${t.role} in ('owner', 'member')`),
  ],
)
