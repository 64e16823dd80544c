import { sql } from 'drizzle-orm'
import { bigint, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts } from './columns'
import { organizations } from './organizations'

/** How an end user (a person recorded by a customer's site) is named in a privacy request. */
export const PERSON_KINDS = ['user_id', 'email', 'anonymous_id'] as const
export type PersonKind = (typeof PERSON_KINDS)[number]

/** The life of an erasure, re-masking or export: queued, running in a job, then done or failed. */
export const PRIVACY_JOB_STATUSES = ['pending', 'running', 'completed', 'failed'] as const
export type PrivacyJobStatus = (typeof PRIVACY_JOB_STATUSES)[number]

/** Who asked (the same kinds an issue's history names): a member, an API key, an OAuth app, the CLI. */
export const AUDIT_ACTORS = ['user', 'credential', 'oauth_client', 'system'] as const
export type AuditActor = (typeof AUDIT_ACTORS)[number]

/**
 * One session's data key (docs/privacy.md#encryption): the key its stored batches are sealed
 * with, wrapped (encrypted) under the operator's key-encryption key `kekId`. Keyed by the
 * recorder's session id because ingest seals a batch before the session's row exists.
 * Deleting the row makes every copy of the session's batches unreadable, wherever it is.
 */
export const sessionDataKeys = pgTable(
  'session_data_keys',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    /** `v1.<iv>.<tag>.<ciphertext>` (base64url) of the 32-byte data key. */
    wrappedKey: text('wrapped_key').notNull(),
    kekId: text('kek_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.externalId] }),
    index('session_data_keys_kek_idx').on(t.kekId),
  ],
)

/**
 * A request to erase one person (docs/privacy.md#erasure). The person's identifier is kept
 * only sealed, and only while the erasure runs: a completed erasure holds counts, not the person.
 */
export const erasures = pgTable(
  'erasures',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    personKind: text('person_kind', { enum: PERSON_KINDS }).notNull(),
    /** The identifier, sealed (lib/privacy/sealed-text.ts); null once the erasure completed. */
    personSealed: text('person_sealed'),
    status: text('status', { enum: PRIVACY_JOB_STATUSES }).notNull().default('pending'),
    /** What was removed so far: sessions, batches, blobs, issues deleted or recounted, ... */
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    requestedByType: text('requested_by_type', { enum: AUDIT_ACTORS }).notNull(),
    requestedById: text('requested_by_id'),
    /** The time by which the service promises completion (docs/privacy.md#erasure). */
    dueAt: ts('due_at').notNull(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('erasures_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('erasures_person_kind_check', t.personKind, PERSON_KINDS),
    oneOf('erasures_status_check', t.status, PRIVACY_JOB_STATUSES),
    oneOf('erasures_requested_by_check', t.requestedByType, AUDIT_ACTORS),
  ],
)

/**
 * A re-masking of stored sessions (docs/privacy.md#re-masking): elements matching `selectors`
 * and text matching `patterns`, in sessions started within [from, to), are masked in place.
 */
export const remaskings = pgTable(
  'remaskings',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    selectors: text('selectors').array().notNull().default(sql`'{}'::text[]`),
    patterns: text('patterns').array().notNull().default(sql`'{}'::text[]`),
    fromTime: ts('from_time'),
    toTime: ts('to_time'),
    status: text('status', { enum: PRIVACY_JOB_STATUSES }).notNull().default('pending'),
    /** What it changed: sessions, batches, nodes, texts, timeline entries, evidence, bodies, ... */
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    requestedByType: text('requested_by_type', { enum: AUDIT_ACTORS }).notNull(),
    requestedById: text('requested_by_id'),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('remaskings_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    oneOf('remaskings_status_check', t.status, PRIVACY_JOB_STATUSES),
    oneOf('remaskings_requested_by_check', t.requestedByType, AUDIT_ACTORS),
  ],
)

/**
 * An access request's answer (docs/privacy.md#exports): one person's data as NDJSON in blob
 * storage, sealed with its own data key, readable until `expiresAt` and then deleted.
 */
export const dataExports = pgTable(
  'data_exports',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    personKind: text('person_kind', { enum: PERSON_KINDS }).notNull(),
    /** The identifier, sealed; cleared with the file when the export expires. */
    personSealed: text('person_sealed'),
    status: text('status', { enum: PRIVACY_JOB_STATUSES }).notNull().default('pending'),
    blobKey: text('blob_key'),
    /** The export file's data key, wrapped like a session's (session_data_keys). */
    wrappedKey: text('wrapped_key'),
    kekId: text('kek_id'),
    byteSize: bigint('byte_size', { mode: 'number' }),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    requestedByType: text('requested_by_type', { enum: AUDIT_ACTORS }).notNull(),
    requestedById: text('requested_by_id'),
    expiresAt: ts('expires_at').notNull(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('data_exports_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('data_exports_expires_idx').on(t.expiresAt),
    oneOf('data_exports_person_kind_check', t.personKind, PERSON_KINDS),
    oneOf('data_exports_status_check', t.status, PRIVACY_JOB_STATUSES),
    oneOf('data_exports_requested_by_check', t.requestedByType, AUDIT_ACTORS),
  ],
)

/**
 * The organization's append-only audit trail (docs/privacy.md#audit-trail): who viewed a
 * replay, exported, erased, re-masked, changed retention or masking, created or revoked keys.
 * A trigger refuses updates; rows leave only by the audit retention sweep or with their organization.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    actorType: text('actor_type', { enum: AUDIT_ACTORS }).notNull(),
    actorId: text('actor_id'),
    /** `area.verb`, one of AUDIT_ACTIONS in lib/audit/actions.ts. */
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    /** What changed (before/after, counts); never an end user's identifier or recorded content. */
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    requestId: text('request_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_events_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('audit_events_created_idx').on(t.createdAt),
    oneOf('audit_events_actor_check', t.actorType, AUDIT_ACTORS),
  ],
)
