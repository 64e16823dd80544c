import { and, eq } from 'drizzle-orm'
import { type AutomationKind, replayBatches, replaySessions } from '@/db/schema'
import { sealBytes } from '@/lib/crypto/sealed'
import type { Db } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { currentRequestId } from '@/lib/log'
import { handOver } from '@/lib/outbox/commit'
import { pendingEvents } from '@/lib/outbox/pending'
import { sessionKeyForWrite } from '@/lib/sealing/data-keys'
import { batchBlobKey } from '@/lib/storage/session-blob-keys'
import type { BlobStore } from '@/lib/storage/types'
import type { ReplayBatch } from './schema'
import { sessionFields } from './session-fields'
import { storeBatchStatement } from './store-batch-statement'
import { storeBatchInTransaction } from './store-batch-transaction'

export interface IngestDeps {
  db: Db
  blobs: BlobStore
  jobs: JobsEngine
}

export interface StoredBatch {
  /** False when this (session, sequence, window) was already stored: the request was a re-send. */
  stored: boolean
  sessionId: string
  /** The outbox event that asks for processing (flush: final), when one was written. */
  finalizeEventId: string | null
}

async function existingBlobKey(db: Db, organizationId: string, batch: ReplayBatch) {
  const [row] = await db
    .select({ blobKey: replayBatches.blobKey })
    .from(replayBatches)
    .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
    .where(
      and(
        eq(replaySessions.organizationId, organizationId),
        eq(replaySessions.externalId, batch.session.id),
        eq(replayBatches.sequence, batch.replay.sequence),
        eq(replayBatches.windowId, batch.session.windowId),
      ),
    )
  return row?.blobKey
}

// A foreign key violation: the session was deleted (retention) between the statement's
// snapshot and its insert. The transactional path creates it again.
const isForeignKeyViolation = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === '23503'

/**
 * Stores one accepted batch: its bytes (sealed) in blob storage first, then its rows — the session,
 * the batch and (for `flush: final`) the outbox event that asks for processing — atomically.
 * A row never names a blob that is not durable; a failed upload leaves no row; a re-sent batch
 * (also concurrently) is stored once and its copy of the bytes removed when it differs; a
 * batch for a processed session re-opens it.
 *
 * The rows take one database round trip (one statement, storeBatchStatement). A re-send is
 * found by that statement too, so it also writes its blob first: the blob key holds a hash
 * of the content, so the same bytes land on the same file, and different bytes are deleted.
 */
export async function storeBatch(
  deps: IngestDeps,
  input: { organizationId: string; batch: ReplayBatch; body: Uint8Array; automation?: AutomationKind | null },
): Promise<StoredBatch> {
  const { db, blobs } = deps
  const { organizationId, batch, body } = input
  const externalId = batch.session.id
  const sequence = batch.replay.sequence

  const blobKey = batchBlobKey(organizationId, externalId, sequence, body)
  // Sealed with the session's data key (docs/privacy.md#encryption): erasing the key erases every copy.
  const dataKey = await sessionKeyForWrite(db, organizationId, externalId)
  await blobs.put(blobKey, sealBytes(body, dataKey), { contentType: 'application/octet-stream' })

  const events = batch.replay.events
  const firstTimestamp = Math.floor(events[0]!.timestamp)
  const lastTimestamp = Math.floor(events[events.length - 1]!.timestamp)
  const fields = sessionFields(batch, lastTimestamp)
  const automation = input.automation ?? null
  const rows = { organizationId, batch, fields, firstTimestamp, lastTimestamp, blobKey, automation }

  let outcome: StoredBatch
  let winnerBlobKey: string | null = null
  const fast = await storeBatchStatement(db, {
    ...rows,
    byteSize: body.byteLength,
    requestId: currentRequestId() ?? null,
  }).catch((error: unknown) => {
    if (isForeignKeyViolation(error)) return null
    throw error
  })
  if (fast?.sessionId) {
    outcome = { stored: fast.stored, sessionId: fast.sessionId, finalizeEventId: fast.finalizeEventId }
    winnerBlobKey = fast.storedBlobKey
    if (fast.finalizeEventId) await handOverAfterCommit(db, deps.jobs, fast.finalizeEventId)
  } else {
    outcome = await storeBatchInTransaction(db, deps.jobs, { ...rows, body })
  }

  if (!outcome.stored) {
    // A re-send, or a race lost to a concurrent send of this sequence from this window: drop
    // our copy if it differs.
    winnerBlobKey ??= (await existingBlobKey(db, organizationId, batch)) ?? null
    if (winnerBlobKey && winnerBlobKey !== blobKey) await blobs.delete([blobKey]).catch(() => {})
  }
  return outcome
}

/**
 * The statement has committed: hand the event to the jobs engine now, as commitWithEvents
 * does (inside a caller's commitWithEvents, the event waits for that one's hand-over).
 */
async function handOverAfterCommit(db: Db, jobs: JobsEngine, eventId: string): Promise<void> {
  const pending = pendingEvents.getStore()
  if (pending) pending.push(eventId)
  else await handOver(db, jobs, [eventId])
}
