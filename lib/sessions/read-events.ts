import { and, asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replayBatches, replaySessions, sessionDataKeys } from '@/db/schema'
import type { RrwebEvent } from '@/lib/analysis/types'
import { isSealedBytes, openBytes } from '@/lib/crypto/sealed'
import { unwrapDataKey } from '@/lib/sealing/data-keys'
import type { BlobStore } from '@/lib/storage/types'

export interface SessionBatchRef {
  sequence: number
  blobKey: string
  /** The session's data key (docs/privacy.md#encryption); null when it was erased. */
  dataKey?: Uint8Array | null
}

export async function sessionBatches(db: DbOrTx, sessionId: string): Promise<SessionBatchRef[]> {
  const rows = await db
    .select({
      sequence: replayBatches.sequence,
      blobKey: replayBatches.blobKey,
      wrappedKey: sessionDataKeys.wrappedKey,
      kekId: sessionDataKeys.kekId,
    })
    .from(replayBatches)
    .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
    .leftJoin(
      sessionDataKeys,
      and(
        eq(sessionDataKeys.organizationId, replaySessions.organizationId),
        eq(sessionDataKeys.externalId, replaySessions.externalId),
      ),
    )
    .where(eq(replayBatches.sessionId, sessionId))
    .orderBy(asc(replayBatches.sequence))
  const first = rows[0]
  const dataKey = first?.wrappedKey && first.kekId ? unwrapDataKey(first.wrappedKey, first.kekId) : null
  return rows.map((row) => ({ sequence: row.sequence, blobKey: row.blobKey, dataKey }))
}

/** A stored batch's JSON bytes: opened with the session's key, or as stored before sealing existed. */
export function openStoredBatch(batch: SessionBatchRef, stored: Uint8Array): Uint8Array {
  if (!isSealedBytes(stored)) return stored
  if (!batch.dataKey)
    throw new Error(`Replay batch ${batch.sequence} cannot be read: its session's data key was erased`)
  return openBytes(stored, batch.dataKey)
}

/**
 * A session's stored batches in order, as stored (JSON bytes), one at a time. Batches of
 * several windows (tabs) are ordered by sequence, which the recorder keeps monotonic per session.
 */
export async function* readSessionBatches(
  blobs: BlobStore,
  batches: SessionBatchRef[],
): AsyncGenerator<{ sequence: number; bytes: Uint8Array }, void, undefined> {
  for (const batch of batches) {
    const bytes = await blobs.get(batch.blobKey)
    if (!bytes)
      throw new Error(`Replay batch ${batch.sequence} is missing from blob storage (${batch.blobKey})`)
    yield { sequence: batch.sequence, bytes: openStoredBatch(batch, bytes) }
  }
}

/**
 * A session's events in order, one stored batch at a time: memory holds at most one batch
 * (10 MiB of JSON by the ingest limit), whatever the session's length. Analysis does not use
 * this on the server thread: it parses batches in a worker (lib/analysis-worker).
 */
export async function* readSessionEvents(
  blobs: BlobStore,
  batches: SessionBatchRef[],
): AsyncGenerator<RrwebEvent, void, undefined> {
  for await (const { bytes } of readSessionBatches(blobs, batches)) {
    const body = JSON.parse(Buffer.from(bytes).toString('utf8')) as { replay?: { events?: RrwebEvent[] } }
    for (const event of body.replay?.events ?? []) yield event
  }
}
