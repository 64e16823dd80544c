import {
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
import { ISSUE_PRIORITIES } from '../../lib/issues/priorities'
import { ISSUE_STATUSES } from '../../lib/issues/statuses'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'
import { organizations } from './organizations'
import { replaySessions } from './replay'

// The vocabulary client components share lives in lib/issues (no database code there); the
// schema re-exports it so server code keeps one import. Relative paths: drizzle-kit loads this.
export { ISSUE_PRIORITIES, type IssuePriority } from '../../lib/issues/priorities'
export { ISSUE_STATUSES, type IssueStatus } from '../../lib/issues/statuses'
export const ISSUE_SOURCES = ['session_analysis', 'insight'] as const
export type IssueSource = (typeof ISSUE_SOURCES)[number]
export const ISSUE_ACTIVITY_KINDS = [
  'created',
  'status_changed',
  'regressed',
  'ticket_linked',
  'note',
  /** A reproduction run was reported (docs/releases.md#verification); metadata holds its outcome. */
  'verification',
  /** A "next release" resolution learnt its release: the first one seen after it. */
  'fix_release',
] as const
export type IssueActivityKind = (typeof ISSUE_ACTIVITY_KINDS)[number]
export const ISSUE_ACTORS = ['user', 'credential', 'oauth_client', 'system'] as const
export type IssueActor = (typeof ISSUE_ACTORS)[number]

export const issues = pgTable(
  'issues',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Groups findings across sessions (docs/design/analysis.md §4.4); unique per organization. */
    fingerprint: text('fingerprint').notNull(),
    kind: text('kind').notNull(),
    sourceType: text('source_type', { enum: ISSUE_SOURCES }).notNull(),
    title: text('title').notNull(),
    description: text('description'),
    status: text('status', { enum: ISSUE_STATUSES }).notNull().default('unresolved'),
    priority: text('priority', { enum: ISSUE_PRIORITIES }).notNull(),
    /** Why it got its priority (lib/analysis/priority-reason.ts); null on issues older than it. */
    priorityReason: text('priority_reason'),
    previewUrl: text('preview_url'),
    stepsToReplicate: text('steps_to_replicate'),
    aiVerified: boolean('ai_verified'),
    ticketProvider: text('ticket_provider'),
    ticketUrl: text('ticket_url'),
    ticketIdentifier: text('ticket_identifier'),
    sessionCount: integer('session_count').notNull().default(0),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    evidence: jsonb('evidence').$type<Record<string, unknown>>(),
    /** Releases (`metadata.release`) of the first and the latest session it was seen in, when they had one. */
    firstRelease: text('first_release'),
    lastRelease: text('last_release'),
    /**
     * The release that contains the fix (docs/releases.md#resolve-in-a-release): only sessions
     * of it or a later release reopen the issue. Null with `resolvedInNextRelease` until the
     * first release seen after the resolution names it; null without it: any occurrence reopens.
     */
    resolvedInRelease: text('resolved_in_release'),
    resolvedInNextRelease: boolean('resolved_in_next_release').notNull().default(false),
    /** Server time it was last resolved: "the next release" is the first seen after it. */
    resolvedAt: ts('resolved_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('issues_org_fingerprint_unique').on(t.organizationId, t.fingerprint),
    // Keyset order of GET /api/v1/issues, with and without the status filter.
    index('issues_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('issues_org_status_created_idx').on(
      t.organizationId,
      t.status,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('issues_status_check', t.status, ISSUE_STATUSES),
    oneOf('issues_priority_check', t.priority, ISSUE_PRIORITIES),
    oneOf('issues_source_check', t.sourceType, ISSUE_SOURCES),
  ],
)

/** The sessions an issue was seen in: one row per distinct session drives `sessionCount`. */
export const issueSessions = pgTable(
  'issue_sessions',
  {
    issueId: uuid('issue_id')
      .notNull()
      .references(() => issues.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => replaySessions.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    occurrences: integer('occurrences').notNull().default(1),
    /** When the finding first occurred in the session, to open the replay at that moment. */
    firstOccurrenceAt: ts('first_occurrence_at').notNull(),
    evidence: jsonb('evidence').$type<Record<string, unknown>>(),
    /**
     * Linked while the issue was resolved in a release, from a session of an older release (or
     * of none): counted and shown, never a regression (docs/releases.md#resolve-in-a-release).
     */
    oldRelease: boolean('old_release').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.issueId, t.sessionId] }),
    index('issue_sessions_session_idx').on(t.sessionId),
  ],
)

/** Who changed what on an issue, for the dashboard's history and `issue.status_changed`. */
export const issueActivities = pgTable(
  'issue_activities',
  {
    id: id(),
    issueId: uuid('issue_id')
      .notNull()
      .references(() => issues.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ISSUE_ACTIVITY_KINDS }).notNull(),
    fromStatus: text('from_status', { enum: ISSUE_STATUSES }),
    toStatus: text('to_status', { enum: ISSUE_STATUSES }),
    actorType: text('actor_type', { enum: ISSUE_ACTORS }).notNull(),
    actorId: text('actor_id'),
    /** Kind-specific details, e.g. the ticket provider, URL and identifier of `ticket_linked`. */
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('issue_activities_issue_idx').on(t.issueId, t.createdAt),
    oneOf('issue_activities_kind_check', t.kind, ISSUE_ACTIVITY_KINDS),
    oneOf('issue_activities_actor_check', t.actorType, ISSUE_ACTORS),
    oneOf('issue_activities_from_status_check', t.fromStatus, ISSUE_STATUSES),
    oneOf('issue_activities_to_status_check', t.toStatus, ISSUE_STATUSES),
  ],
)
