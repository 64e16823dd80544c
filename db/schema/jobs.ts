import { sql } from 'drizzle-orm'
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts, updatedAt } from './columns'
import { organizations } from './organizations'

/**
 * Transactional outbox: events written in the same transaction as the change that caused
 * them (issue.created, session.finalize, ...). A dispatcher hands them to the jobs engine;
 * a sweep re-sends whatever a crash left undispatched.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: id(),
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    /** Stable event id: the Inngest event id and the webhook envelope id derive from it. */
    eventId: uuid('event_id').notNull().defaultRandom(),
    name: text('name').notNull(),
    /**
     * Optional business key (e.g. `session.finalize:<session>:<last sequence>`): two causes of
     * the same work, such as the finalizer and a `flush: final` batch, write one row.
     */
    dedupeKey: text('dedupe_key'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    occurredAt: ts('occurred_at').notNull().defaultNow(),
    dispatchedAt: ts('dispatched_at'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** The request that caused the event, carried to the jobs and deliveries it starts (logs). */
    requestId: text('request_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('outbox_event_id_unique').on(t.eventId),
    uniqueIndex('outbox_dedupe_key_unique').on(t.dedupeKey),
    index('outbox_undispatched_idx').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
  ],
)

export const JOB_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const
export type JobRunStatus = (typeof JOB_RUN_STATUSES)[number]

/**
 * Runs of the in-process engine. Inngest keeps this state itself; without it, this table is
 * what lets a run resume after a restart with its completed steps memoized.
 */
export const jobRuns = pgTable(
  'job_runs',
  {
    id: id(),
    functionId: text('function_id').notNull(),
    /** Deduplicates triggers: the same event (or cron tick) for the same function runs once. */
    idempotencyKey: text('idempotency_key').notNull(),
    eventName: text('event_name').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: JOB_RUN_STATUSES }).notNull().default('queued'),
    attempt: integer('attempt').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    runAfter: ts('run_after').notNull().defaultNow(),
    /** Results of completed steps by step id, so a retried or resumed run skips them. */
    steps: jsonb('steps').$type<Record<string, unknown>>().notNull().default({}),
    lockedUntil: ts('locked_until'),
    /** Fresh per claim: only the current holder's writes (heartbeats, steps) take effect. */
    claimId: uuid('claim_id'),
    lastError: text('last_error'),
    /** The request whose event started the run, for its log lines and the events it sends. */
    requestId: text('request_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    uniqueIndex('job_runs_function_key_unique').on(t.functionId, t.idempotencyKey),
    // Only live runs are ever looked up by due time; completed ones just wait to be pruned.
    index('job_runs_due_idx').on(t.status, t.runAfter).where(sql`${t.status} in ('queued', 'running')`),
    oneOf('job_runs_status_check', t.status, JOB_RUN_STATUSES),
  ],
)
