import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replayBatches, replaySessions } from '@/db/schema'
import { forgetSessionKeys } from '@/lib/sealing/data-keys'
import type { BlobStore } from '@/lib/storage'
import { sessionBlobFolder } from '@/lib/storage/session-blob-keys'

export interface DeletedSessions {
  sessions: number
  blobs: number
}

const BLOB_DELETE_CHUNK = 500

/**
 * Deletes sessions of one organization with everything recorded for them: their data keys
 * (docs/privacy.md#encryption), the replay blobs, then the rows (batches, issue and signal
 * links go by cascade). In this order a failure half-way leaves a session whose replay is gone but which the next run deletes again, never
 * replay data that no row points to any more. Issues keep their counts: they describe what
 * happened, not what is still stored.
 */
export async function deleteSessions(
  db: Db,
  blobs: BlobStore,
  input: { organizationId: string; sessionIds: string[] },
): Promise<DeletedSessions> {
  if (input.sessionIds.length === 0) return { sessions: 0, blobs: 0 }
  const inOrg = and(
    eq(replaySessions.organizationId, input.organizationId),
    inArray(replaySessions.id, input.sessionIds),
  )
  const sessions = await db
    .select({ id: replaySessions.id, externalId: replaySessions.externalId })
    .from(replaySessions)
    .where(inOrg)
  if (sessions.length === 0) return { sessions: 0, blobs: 0 }
  const ids = sessions.map((s) => s.id)
  const recorded = await db
    .select({ key: replayBatches.blobKey })
    .from(replayBatches)
    .where(and(eq(replayBatches.organizationId, input.organizationId), inArray(replayBatches.sessionId, ids)))
  const keys = new Set(recorded.map((r) => r.key))
  // Blobs whose row insert failed after the write have no row; the session's folder has them.
  for (const session of sessions)
    for (const key of await blobs.list(sessionBlobFolder(input.organizationId, session.externalId)))
      keys.add(key)
  // The data keys first: from here on no copy of these batches can be read, wherever it is.
  await forgetSessionKeys(
    db,
    input.organizationId,
    sessions.map((s) => s.externalId),
  )
  const all = [...keys]
  for (let i = 0; i < all.length; i += BLOB_DELETE_CHUNK)
    await blobs.delete(all.slice(i, i + BLOB_DELETE_CHUNK))
  const deleted = await db
    .delete(replaySessions)
    .where(and(eq(replaySessions.organizationId, input.organizationId), inArray(replaySessions.id, ids)))
    .returning({ id: replaySessions.id })
  return { sessions: deleted.length, blobs: all.length }
}
