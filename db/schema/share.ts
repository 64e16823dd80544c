import { bigint, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts } from './columns'
import { organizations } from './organizations'
import { AUDIT_ACTORS } from './privacy'
import { replaySessions } from './replay'

/**
 * A link that shows one session's replay to anyone who has it, without an account
 * (docs/sharing.md). Only the token's SHA-256 is kept; the row goes with its session (retention,
 * erasure, deletion) by cascade, and erasure deletes it explicitly first.
 */
export const shareLinks = pgTable(
  'share_links',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => replaySessions.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    /** Where the replay opens, in ms after the session started; null opens at the start. */
    startAtMs: bigint('start_at_ms', { mode: 'number' }),
    createdByType: text('created_by_type', { enum: AUDIT_ACTORS }).notNull(),
    createdById: text('created_by_id'),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('share_links_token_hash_unique').on(t.tokenHash),
    index('share_links_session_idx').on(
      t.organizationId,
      t.sessionId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('share_links_created_by_check', t.createdByType, AUDIT_ACTORS),
  ],
)
