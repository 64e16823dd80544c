import { eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replayBatches } from '@/db/schema'
import { openStoredBatch, sessionBatches } from '@/lib/sessions/read-events'
import { getBlobStore } from '@/lib/storage'

/** A stored batch as the readers see it: opened with its session's data key. */
export async function storedBatchText(db: Db, blobKey: string): Promise<string> {
  const [row] = await db
    .select({ sessionId: replayBatches.sessionId })
    .from(replayBatches)
    .where(eq(replayBatches.blobKey, blobKey))
  if (!row) throw new Error(`no batch row names ${blobKey}`)
  const ref = (await sessionBatches(db, row.sessionId)).find((batch) => batch.blobKey === blobKey)
  const stored = await getBlobStore().get(blobKey)
  if (!ref || !stored) throw new Error(`batch ${blobKey} is missing`)
  return Buffer.from(openStoredBatch(ref, stored)).toString('utf8')
}
