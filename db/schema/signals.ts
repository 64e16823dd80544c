import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'
import { organizations } from './organizations'
import { replaySessions } from './replay'
import { savedSearches } from './saved-searches'

export const SIGNAL_STATUSES = ['active', 'paused'] as const
export type SignalStatus = (typeof SIGNAL_STATUSES)[number]
export const BACKFILL_STATUSES = ['pending', 'running', 'completed', 'failed'] as const
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number]

export const signals = pgTable(
  'signals',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prompt: text('prompt').notNull(),
    status: text('status', { enum: SIGNAL_STATUSES }).notNull().default('active'),
    backfillStatus: text('backfill_status', { enum: BACKFILL_STATUSES }).notNull().default('pending'),
    matchCount: integer('match_count').notNull().default(0),
    lastMatchAt: ts('last_match_at'),
    /**
     * Only sessions this saved search finds can match (docs/saved-searches.md). No cascade: a
     * saved search in use cannot be deleted, so a filter never silently widens.
     */
    savedSearchId: uuid('saved_search_id').references(() => savedSearches.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('signals_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('signals_status_check', t.status, SIGNAL_STATUSES),
    oneOf('signals_backfill_status_check', t.backfillStatus, BACKFILL_STATUSES),
  ],
)

/** One row per (signal, session): re-processing a session never counts a match twice. */
export const signalMatches = pgTable(
  'signal_matches',
  {
    id: id(),
    signalId: uuid('signal_id')
      .notNull()
      .references(() => signals.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => replaySessions.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    evidence: jsonb('evidence').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('signal_matches_signal_session_unique').on(t.signalId, t.sessionId),
    index('signal_matches_signal_created_idx').on(t.signalId, t.createdAt.desc().nullsFirst()),
    // A page of sessions names the signals each matched (lib/sessions/session-links.ts).
    index('signal_matches_session_idx').on(t.sessionId),
  ],
)
