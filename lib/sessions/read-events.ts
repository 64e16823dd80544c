import { asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replayBatches } from '@/db/schema'
import type { RrwebEvent } from '@/lib/analysis/types'
import type { BlobStore } from '@/lib/storage/types'

export interface SessionBatchRef {
  sequence: number
  blobKey: string
}

export async function sessionBatches(db: DbOrTx, sessionId: string): Promise<SessionBatchRef[]> {
  return db
    .select({ sequence: replayBatches.sequence, blobKey: replayBatches.blobKey })
    .from(replayBatches)
    .where(eq(replayBatches.sessionId, sessionId))
    .orderBy(asc(replayBatches.sequence))
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
    yield { sequence: batch.sequence, bytes }
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
