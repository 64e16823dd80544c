import { preparedRows } from '@/db/prepared'
import type { AutomationKind } from '@/db/schema'
import type { Db } from '@/lib/db'
import { EVENTS } from '@/lib/outbox/events'
import { mergeDebugIdsSql } from './merge-debug-ids'
import type { ReplayBatch } from './schema'
import type { sessionFields } from './session-fields'

/**
 * The common case of storing a batch in one round trip: a single statement, so a single
 * implicit transaction, that
 *   - finds the session, or creates it with this batch's figures already counted;
 *   - inserts the batch (`on conflict do nothing`: a re-sent (session, sequence, window) is a no-op);
 *   - for a session that existed, and only when the batch was inserted, counts the batch and
 *     merges what it tells about the session, exactly as the transactional path does;
 *   - marks the session automated when the batch says so and no pass has counted it yet,
 *     and never clears the mark (docs/hostile-input.md#automated-traffic);
 *   - for `flush: final`, and only when the batch was inserted, writes the outbox event
 *     (deduplicated on `session.finalize:<session>:<sequence>`, as enqueueEvent does).
 * Sub-statements of one statement share a snapshot and cannot see each other's writes, so a
 * row is never touched twice: a new session is inserted complete, an existing one is updated.
 * An existing session's row is locked first, as the transactional path's upsert does: both
 * paths take the session lock before the batch's unique index entry, so a re-send racing on
 * the two paths waits instead of deadlocking.
 *
 * It cannot decide when the session is created concurrently by another request (the insert
 * waits for it and does nothing, and the snapshot does not show it): it then answers
 * `sessionId: null` and the caller uses the transactional path, which can.
 */
const STATEMENT = `
with existing as (
  select id from replay_sessions where organization_id = $1::uuid and external_id = $2::text
  for no key update
),
created as (
  insert into replay_sessions (
    organization_id, external_id, started_at, last_activity_at, entry_url, anonymous_id,
    user_id, user_properties, user_email, user_name, user_agent, language, viewport,
    batch_count, event_count, byte_size, processing_requested_at, release, debug_ids, degraded,
    automation
  )
  select $1::uuid, $2::text, $12::timestamptz, $13::timestamptz, $14::text, $15::text,
    $16::text, $17::text::jsonb, $18::text, $19::text, $20::text, $21::text, $22::text::jsonb,
    1, $5::int, $8::int, case when $11::text = 'final' then now() end, $25::text, $26::text::jsonb,
    $27::boolean, $28::text
  where not exists (select 1 from existing)
  on conflict (organization_id, external_id) do nothing
  returning id
),
session as (
  select id from existing union all select id from created
),
batch as (
  insert into replay_batches (
    organization_id, session_id, window_id, sequence, event_count, first_timestamp,
    last_timestamp, byte_size, blob_key, page_url, flush
  )
  select $1::uuid, session.id, $3::text, $4::int, $5::int, $6::bigint, $7::bigint, $8::int,
    $9::text, $10::text, $11::text
  from session
  on conflict (organization_id, session_id, sequence, window_id) do nothing
  returning session_id
),
counted as (
  update replay_sessions s set
    batch_count = s.batch_count + 1,
    event_count = s.event_count + $5::int,
    byte_size = s.byte_size + $8::int,
    started_at = least(s.started_at, $12::timestamptz),
    last_activity_at = greatest(s.last_activity_at, $13::timestamptz),
    last_received_at = now(),
    user_id = coalesce($16::text, s.user_id),
    user_properties = coalesce($17::text::jsonb, s.user_properties),
    user_email = coalesce($18::text, s.user_email),
    user_name = coalesce($19::text, s.user_name),
    user_agent = coalesce(s.user_agent, $20::text),
    language = coalesce(s.language, $21::text),
    release = coalesce(s.release, $25::text),
    debug_ids = ${mergeDebugIdsSql('s.debug_ids', '$26::text::jsonb')},
    degraded = s.degraded or $27::boolean,
    automation = coalesce(s.automation, case when s.processed_at is null then $28::text end),
    status = case when s.status in ('processed', 'failed') then 'receiving' else s.status end,
    processing_attempts = case when s.status in ('processed', 'failed') then 0 else s.processing_attempts end,
    processing_requested_at = case when $11::text = 'final' then now() else s.processing_requested_at end,
    updated_at = now()
  from batch
  where s.id = batch.session_id and exists (select 1 from existing)
  returning s.id
),
event as (
  insert into outbox (organization_id, name, payload, dedupe_key, request_id)
  select $1::uuid, $23::text,
    jsonb_build_object('organizationId', $1::uuid, 'sessionId', batch.session_id),
    'session.finalize:' || batch.session_id::text || ':' || $4::int::text, $24::text
  from batch
  where $11::text = 'final'
  on conflict do nothing
  returning event_id
)
select
  (select id from session limit 1) as session_id,
  exists (select 1 from batch) as stored,
  (select event_id from event) as event_id,
  (select b.blob_key from replay_batches b join session on b.session_id = session.id
    where b.organization_id = $1::uuid and b.sequence = $4::int and b.window_id = $3::text) as stored_blob_key
`

export interface StatementInput {
  organizationId: string
  batch: ReplayBatch
  fields: ReturnType<typeof sessionFields>
  firstTimestamp: number
  lastTimestamp: number
  byteSize: number
  blobKey: string
  requestId: string | null
  /** Null or absent: a person's batch. */
  automation?: AutomationKind | null
}

export interface StatementOutcome {
  /** Null when the session was being created concurrently: the statement could not decide. */
  sessionId: string | null
  stored: boolean
  finalizeEventId: string | null
  /**
   * The blob key of the batch already stored for this (session, sequence, window) when it was
   * committed before the statement began; null when unknown (a concurrent send won).
   */
  storedBlobKey: string | null
}

const iso = (date: Date) => date.toISOString()

export async function storeBatchStatement(db: Db, input: StatementInput): Promise<StatementOutcome> {
  const { batch, fields } = input
  const [row] = await preparedRows<{
    session_id: string | null
    stored: boolean
    event_id: string | null
    stored_blob_key: string | null
  }>(db, STATEMENT, [
    input.organizationId,
    batch.session.id,
    batch.session.windowId,
    batch.replay.sequence,
    batch.replay.events.length,
    input.firstTimestamp,
    input.lastTimestamp,
    input.byteSize,
    input.blobKey,
    batch.page.url,
    batch.flush,
    iso(fields.startedAt),
    iso(fields.lastActivityAt),
    fields.entryUrl,
    fields.anonymousId,
    fields.userId,
    fields.userProperties ? JSON.stringify(fields.userProperties) : null,
    fields.userEmail,
    fields.userName,
    fields.userAgent,
    fields.language,
    fields.viewport ? JSON.stringify(fields.viewport) : null,
    EVENTS.sessionFinalize,
    input.requestId,
    fields.release,
    fields.debugIds ? JSON.stringify(fields.debugIds) : null,
    fields.degraded,
    input.automation ?? null,
  ])
  return {
    sessionId: row?.session_id ?? null,
    stored: row?.stored === true,
    finalizeEventId: row?.event_id ?? null,
    storedBlobKey: row?.stored_blob_key ?? null,
  }
}
