import { sql } from 'drizzle-orm'
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts } from './columns'
import { organizations, users } from './organizations'

export const CREDENTIAL_KINDS = ['ingest', 'api', 'mcp'] as const
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number]

/**
 * Static keys: public ingest keys (svc_pk_), Data API keys (svc_api_) and legacy MCP keys
 * (svc_mcp_). Only the SHA-256 of the whole key is stored, with a short prefix for display.
 */
export const credentials = pgTable(
  'credentials',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    displayPrefix: text('display_prefix').notNull(),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('credentials_token_hash_unique').on(t.tokenHash),
    index('credentials_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('credentials_kind_check', t.kind, CREDENTIAL_KINDS),
  ],
)
