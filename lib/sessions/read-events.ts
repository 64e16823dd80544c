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
  /** The tab the batch was recorded in (`session.windowId`); absent in refs built elsewhere. */
  windowId?: string
  firstTimestamp?: number
  /** The session's data key (docs/privacy.md#encryption); null when it was erased. */
  dataKey?: Uint8Array | null
}

export async function sessionBatches(db: DbOrTx, sessionId: string): Promise<SessionBatchRef[]> {
  const rows = await db
    .select({
      sequence: replayBatches.sequence,
      blobKey: replayBatches.blobKey,
      windowId: replayBatches.windowId,
      firstTimestamp: replayBatches.firstTimestamp,
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
    .orderBy(asc(replayBatches.sequence), asc(replayBatches.windowId))
  const first = rows[0]
  const dataKey = first?.wrappedKey && first.kekId ? unwrapDataKey(first.wrappedKey, first.kekId) : null
  const refs = rows.map((row) => ({
    sequence: row.sequence,
    blobKey: row.blobKey,
    windowId: row.windowId,
    firstTimestamp: row.firstTimestamp,
    dataKey,
  }))
  return visitOrder(refs)
}

/**
 * One tab's batches in sequence order, as the recorder sent them. A visit of several tabs
 * (docs/session-processing.md#visits-across-tabs) interleaves its tabs' batches by their first
 * event's time (then sequence; a tab's batches follow each other in time; then window, as two
 * tabs can take one sequence): the analyser then meets the tabs'
 * events about as they happened (it keeps each tab's state apart), and the player gets every
 * tab's events. A one-tab session keeps plain sequence order, as before tabs.
 */
export function visitOrder<T extends { sequence: number; windowId?: string; firstTimestamp?: number }>(
  batches: T[],
): T[] {
  const windows = new Set(batches.map((batch) => batch.windowId))
  if (windows.size < 2) return batches
  return [...batches].sort(
    (a, b) =>
      (a.firstTimestamp ?? 0) - (b.firstTimestamp ?? 0) ||
      a.sequence - b.sequence ||
      byWindow(a.windowId ?? '', b.windowId ?? ''),
  )
}

// Code-unit order, not the locale's: the same on every server.
function byWindow(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
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
 * several windows (tabs) come in visit order (visitOrder).
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
  // A visit of several tabs: each event says its tab, so the player can keep them apart.
  const tagWindows = new Set(batches.map((batch) => batch.windowId)).size > 1
  for await (const { bytes } of readSessionBatches(blobs, batches)) {
    const body = JSON.parse(Buffer.from(bytes).toString('utf8')) as {
      session?: { windowId?: unknown }
      replay?: { events?: RrwebEvent[] }
    }
    const windowId = tagWindows && typeof body.session?.windowId === 'string' ? body.session.windowId : null
    for (const event of body.replay?.events ?? [])
      yield windowId !== null && typeof event === 'object' && event !== null ? { ...event, windowId } : event
  }
}
