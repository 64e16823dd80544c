import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, ts } from './columns'
import { organizations } from './organizations'

export const insights = pgTable(
  'insights',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    intervalStart: ts('interval_start').notNull(),
    intervalEnd: ts('interval_end').notNull(),
    sessionsCount: integer('sessions_count').notNull(),
    /** Markdown body; `contentPreview` is its first 280 characters as plain text. */
    content: text('content').notNull(),
    contentPreview: text('content_preview').notNull(),
    /** Set when an erasure removed sessions this insight was written from (docs/privacy.md#erasure). */
    redactedAt: ts('redacted_at'),
    createdAt: createdAt(),
  },
  (t) => [
    // One insight per organization and interval, however often the schedule fires.
    uniqueIndex('insights_org_interval_unique').on(t.organizationId, t.intervalStart),
    index('insights_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
  ],
)
