import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import type { TrailEntry, TrailKind } from '@/lib/analysis/trail'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'
import { organizations } from './organizations'

export const SESSION_STATUSES = ['receiving', 'processing', 'processed', 'failed'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

export const AUTOMATION_KINDS = ['reproduction', 'webdriver', 'bot'] as const
export type AutomationKind = (typeof AUTOMATION_KINDS)[number]

/** What `replay_sessions.device` holds (bowser's platform types that search names). */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet'] as const

export type Viewport = { width: number; height: number }

/** One recorded browser session, created by its first accepted batch. */
export const replaySessions = pgTable(
  'replay_sessions',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** `session.id` as the recorder sent it. */
    externalId: text('external_id').notNull(),
    status: text('status', { enum: SESSION_STATUSES }).notNull().default('receiving'),
    startedAt: ts('started_at').notNull(),
    /** From the recorder (the browser's clock): shown to people, never used to schedule. */
    lastActivityAt: ts('last_activity_at').notNull(),
    /** When the server accepted the last batch: the finalizer's idle check uses this clock. */
    lastReceivedAt: ts('last_received_at').notNull().defaultNow(),
    entryUrl: text('entry_url').notNull(),
    anonymousId: text('anonymous_id').notNull(),
    userId: text('user_id'),
    userProperties: jsonb('user_properties').$type<Record<string, unknown>>(),
    userEmail: text('user_email'),
    userName: text('user_name'),
    userAgent: text('user_agent'),
    language: text('language'),
    /**
     * Browser name, OS name and device type read from `user_agent` by the processing pass
     * (lib/sessions/user-agent.ts), for search (docs/search.md); null before a pass of 0012 ran.
     */
    browser: text('browser'),
    os: text('os'),
    device: text('device', { enum: DEVICE_TYPES }),
    /** `metadata.release` of the session's first batch that carried one (docs/source-maps.md). */
    release: text('release'),
    /**
     * Script URL → bundler debug ID, as the recorder found them in the page
     * (`metadata.debugIds`); lets symbolication find a map without relying on the URL.
     */
    debugIds: jsonb('debug_ids').$type<Record<string, string>>(),
    viewport: jsonb('viewport').$type<Viewport>(),
    /**
     * The recorder stopped recording part of the page that changed faster than its mutation
     * budget (`metadata.degraded`, docs/recorder.md#mutation-guard): the replay misses that part's changes.
     */
    degraded: boolean('degraded').notNull().default(false),
    /**
     * Why the session is automated traffic, or null for a person's visit (docs/hostile-input.md#automated-traffic):
     * `reproduction` (a test we generated declared itself), `webdriver` (the browser said it is
     * driven by automation) or `bot` (a known crawler or headless user agent). Automated
     * sessions are stored and viewable, and never count toward issues, users, priorities,
     * regressions, alerts, insights or signals.
     */
    automation: text('automation', { enum: AUTOMATION_KINDS }),
    /**
     * Kept past the organization's retention (docs/privacy.md#retention) until the pin
     * maximum counted from the session's start; null when the session follows retention.
     */
    pinnedAt: ts('pinned_at'),
    pinnedBy: text('pinned_by'),
    batchCount: integer('batch_count').notNull().default(0),
    eventCount: integer('event_count').notNull().default(0),
    byteSize: bigint('byte_size', { mode: 'number' }).notNull().default(0),
    /** Set when `flush: final` or the finalizer asks for processing; cleared when a pass starts. */
    processingRequestedAt: ts('processing_requested_at'),
    processingStartedAt: ts('processing_started_at'),
    /** The job run that holds the session while it is `processing` (its retries may resume). */
    processingClaim: text('processing_claim'),
    processedAt: ts('processed_at'),
    /** Highest batch sequence covered by the last completed pass (late batches re-queue). */
    processedThroughSequence: integer('processed_through_sequence'),
    processingAttempts: integer('processing_attempts').notNull().default(0),
    failureReason: text('failure_reason'),
    /** Figures of the last completed analysis pass (null until processed). */
    durationMs: integer('duration_ms'),
    pageCount: integer('page_count'),
    errorCount: integer('error_count'),
    rageClickCount: integer('rage_click_count'),
    /** Compact digest of the session (pages, clicks, errors, ...) that signals match against. */
    digest: jsonb('digest').$type<Record<string, unknown>>(),
    /**
     * Whether the stored trail (session_timeline_entries) stopped at its entry limit; null
     * when no pass of this version stored a trail (processed before trails existed).
     */
    trailTruncated: boolean('trail_truncated'),
    /** What the user did and what went wrong, written by the model when one is configured. */
    aiSummary: text('ai_summary'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('replay_sessions_org_external_unique').on(t.organizationId, t.externalId),
    index('replay_sessions_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // The finalizer's sweep (receiving, failed, stuck processing sessions: few of them). Not on
    // last_received_at: every batch sets it, and an indexed column that changes makes each
    // batch's update of the session row a non-HOT one, writing a new entry into every index of
    // this table (docs/capacity.md#what-the-database-does-per-batch).
    index('replay_sessions_status_idx').on(t.status),
    // The sessions API's filters (issue 18): one user's sessions, by id or e-mail (any case),
    // and a range of start times, without walking every session of the organization.
    index('replay_sessions_org_user_idx').on(t.organizationId, t.userId),
    index('replay_sessions_org_email_idx').on(t.organizationId, sql`lower(${t.userEmail})`),
    index('replay_sessions_org_started_idx').on(t.organizationId, t.startedAt),
    // Release health (docs/releases.md#health): a release's sessions.
    index('replay_sessions_org_release_idx').on(t.organizationId, t.release, t.startedAt),
    // Search's `user.id = x` and `release = x` are case-insensitive like every string `=`
    // (docs/search.md#indexes).
    index('replay_sessions_org_user_lower_idx').on(t.organizationId, sql`lower(${t.userId})`),
    index('replay_sessions_org_release_lower_idx').on(t.organizationId, sql`lower(${t.release})`),
    oneOf('replay_sessions_status_check', t.status, SESSION_STATUSES),
    oneOf('replay_sessions_automation_check', t.automation, AUTOMATION_KINDS),
    oneOf('replay_sessions_device_check', t.device, DEVICE_TYPES),
  ],
)

/** One accepted ingest request; its events live in blob storage under `blobKey`. */
export const replayBatches = pgTable(
  'replay_batches',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => replaySessions.id, { onDelete: 'cascade' }),
    windowId: text('window_id').notNull(),
    sequence: integer('sequence').notNull(),
    eventCount: integer('event_count').notNull(),
    firstTimestamp: bigint('first_timestamp', { mode: 'number' }).notNull(),
    lastTimestamp: bigint('last_timestamp', { mode: 'number' }).notNull(),
    byteSize: integer('byte_size').notNull(),
    blobKey: text('blob_key').notNull(),
    pageUrl: text('page_url').notNull(),
    flush: text('flush', { enum: ['normal', 'final'] })
      .notNull()
      .default('normal'),
    createdAt: createdAt(),
  },
  (t) => [
    // Ingest idempotency: a batch re-sent for the same session, sequence and window is stored
    // once. The window is part of it because the tabs of a visit share one sequence counter that
    // cannot be taken atomically (docs/session-processing.md#visits-across-tabs): two tabs'
    // batches with one sequence are two batches.
    uniqueIndex('replay_batches_org_session_sequence_window_unique').on(
      t.organizationId,
      t.sessionId,
      t.sequence,
      t.windowId,
    ),
    index('replay_batches_created_idx').on(t.organizationId, t.createdAt),
  ],
)

/**
 * One entry of a session's trail (lib/analysis/trail.ts), written by the processing pass that
 * analysed it; a later pass replaces the whole trail. Read by the timeline and reproduction.
 */
export const sessionTimelineEntries = pgTable(
  'session_timeline_entries',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => replaySessions.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** 0-based order within the session's trail. */
    position: integer('position').notNull(),
    /** Epoch milliseconds, as in the entry. */
    at: bigint('at', { mode: 'number' }).notNull(),
    kind: text('kind').$type<TrailKind>().notNull(),
    entry: jsonb('entry').$type<TrailEntry>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.position] }),
    index('session_timeline_entries_at_idx').on(t.sessionId, t.at),
    // Search (docs/search.md#indexes): within one session the moments of one kind in order,
    // which a search probes for each session it walks and a sequence steps through.
    index('session_timeline_entries_session_kind_idx').on(t.sessionId, t.kind, t.at, t.position),
  ],
)
