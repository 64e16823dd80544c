import { and, eq, sql } from 'drizzle-orm'
import { replayBatches, replaySessions } from '@/db/schema'
import type { Db } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import type { BlobStore } from '@/lib/storage/types'
import { batchBlobKey } from './blob-key'
import type { ReplayBatch } from './schema'
import { sessionFields } from './session-fields'

export interface IngestDeps {
  db: Db
  blobs: BlobStore
  jobs: JobsEngine
}

export interface StoredBatch {
  /** False when this (session, sequence) was already stored: the request was a re-send. */
  stored: boolean
  sessionId: string
  /** The outbox event that asks for processing (flush: final), when one was written. */
  finalizeEventId: string | null
}

async function existingBatch(db: Db, organizationId: string, externalId: string, sequence: number) {
  const [row] = await db
    .select({ sessionId: replayBatches.sessionId, blobKey: replayBatches.blobKey })
    .from(replayBatches)
    .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
    .where(
      and(
        eq(replaySessions.organizationId, organizationId),
        eq(replaySessions.externalId, externalId),
        eq(replayBatches.sequence, sequence),
      ),
    )
  return row
}

/**
 * Stores one accepted batch: its bytes in blob storage first, then, in one transaction, the
 * session row, the batch row and (for `flush: final`) the outbox event that asks for
 * processing. A failed upload leaves no row; a re-sent batch (also concurrently) is stored
 * once; a batch for a processed session re-opens it.
 */
export async function storeBatch(
  deps: IngestDeps,
  input: { organizationId: string; batch: ReplayBatch; body: Uint8Array },
): Promise<StoredBatch> {
  const { db, blobs } = deps
  const { organizationId, batch, body } = input
  const externalId = batch.session.id
  const sequence = batch.replay.sequence

  const seen = await existingBatch(db, organizationId, externalId, sequence)
  if (seen) return { stored: false, sessionId: seen.sessionId, finalizeEventId: null }

  const blobKey = batchBlobKey(organizationId, externalId, sequence, body)
  await blobs.put(blobKey, body, { contentType: 'application/json' })

  const events = batch.replay.events
  const firstTimestamp = Math.floor(events[0]!.timestamp)
  const lastTimestamp = Math.floor(events[events.length - 1]!.timestamp)
  const fields = sessionFields(batch, lastTimestamp)

  const outcome = await commitWithEvents(
    db,
    async (tx) => {
      const [session] = await tx
        .insert(replaySessions)
        .values({ organizationId, externalId, ...fields })
        .onConflictDoUpdate({
          target: [replaySessions.organizationId, replaySessions.externalId],
          set: { lastReceivedAt: sql`now()` },
        })
        .returning({ id: replaySessions.id })
      const sessionId = session!.id
      const [inserted] = await tx
        .insert(replayBatches)
        .values({
          organizationId,
          sessionId,
          windowId: batch.session.windowId,
          sequence,
          eventCount: events.length,
          firstTimestamp,
          lastTimestamp,
          byteSize: body.byteLength,
          blobKey,
          pageUrl: batch.page.url,
          flush: batch.flush,
        })
        .onConflictDoNothing()
        .returning({ id: replayBatches.id })
      if (!inserted) return { stored: false, sessionId, finalizeEventId: null }

      const final = batch.flush === 'final'
      await tx
        .update(replaySessions)
        .set({
          batchCount: sql`${replaySessions.batchCount} + 1`,
          eventCount: sql`${replaySessions.eventCount} + ${events.length}`,
          byteSize: sql`${replaySessions.byteSize} + ${body.byteLength}`,
          startedAt: sql`least(${replaySessions.startedAt}, ${fields.startedAt.toISOString()}::timestamptz)`,
          lastActivityAt: sql`greatest(${replaySessions.lastActivityAt}, ${fields.lastActivityAt.toISOString()}::timestamptz)`,
          lastReceivedAt: sql`now()`,
          // Later batches carry what identify() learnt; an absent value keeps what is known.
          userId: sql`coalesce(${fields.userId}::text, ${replaySessions.userId})`,
          userProperties: fields.userProperties
            ? sql`${JSON.stringify(fields.userProperties)}::jsonb`
            : sql`${replaySessions.userProperties}`,
          userEmail: sql`coalesce(${fields.userEmail}::text, ${replaySessions.userEmail})`,
          userName: sql`coalesce(${fields.userName}::text, ${replaySessions.userName})`,
          userAgent: sql`coalesce(${replaySessions.userAgent}, ${fields.userAgent}::text)`,
          language: sql`coalesce(${replaySessions.language}, ${fields.language}::text)`,
          // A batch after processing re-opens the session for another pass instead of being lost.
          status: sql`case when ${replaySessions.status} in ('processed', 'failed') then 'receiving' else ${replaySessions.status} end`,
          // New content deserves fresh attempts: a session given up on (over budget, failures)
          // is analysed again once more of it arrives.
          processingAttempts: sql`case when ${replaySessions.status} in ('processed', 'failed') then 0 else ${replaySessions.processingAttempts} end`,
          ...(final ? { processingRequestedAt: sql`now()` } : {}),
        })
        .where(eq(replaySessions.id, sessionId))

      const finalizeEventId = final
        ? await enqueueEvent(tx, {
            organizationId,
            name: EVENTS.sessionFinalize,
            payload: { organizationId, sessionId },
            dedupeKey: `session.finalize:${sessionId}:${sequence}`,
          })
        : null
      return { stored: true, sessionId, finalizeEventId }
    },
    deps.jobs,
  )

  if (!outcome.stored) {
    // Lost a race with a concurrent send of this sequence; drop our copy if it differs.
    const winner = await existingBatch(db, organizationId, externalId, sequence)
    if (winner && winner.blobKey !== blobKey) await blobs.delete([blobKey]).catch(() => {})
    return outcome
  }
  return outcome
}
