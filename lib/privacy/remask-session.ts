import { createHash } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replayBatches, replaySessions } from '@/db/schema'
import { isObj } from '@/lib/analysis/rrweb'
import { sealBytes } from '@/lib/crypto/sealed'
import { newDataKey, replaceSessionKey } from '@/lib/sealing/data-keys'
import { openStoredBatch, type SessionBatchRef, sessionBatches } from '@/lib/sessions/read-events'
import { sessionBlobFolder } from '@/lib/storage/session-blob-keys'
import type { BlobStore } from '@/lib/storage/types'
import { maskPatternsIn } from './mask-patterns'
import type { MaskRules } from './mask-rules'
import { EventMasker, type MaskCounts } from './remask-events'

/**
 * Re-masks one stored session's batches (docs/privacy.md#re-masking).
 *
 * Every batch is rewritten and sealed under a NEW data key, so the old key can be forgotten
 * and with it every earlier copy of the unmasked bytes (S3 versions, backups). The order
 * makes a crash at any point safe and a retry complete:
 *
 * 1. the masked batches are sealed with the new key and written under NEW blob keys (the old
 *    blobs stay untouched and readable);
 * 2. one transaction points every batch row at its new blob and replaces the session's key —
 *    before it commits, readers see the old blobs with the old key; after, the new with the new;
 * 3. the old blobs are deleted.
 *
 * A crash before 2 leaves new blobs nobody can read (their key was never stored) beside an
 * intact session, and the retry starts over; a crash after 2 leaves old blobs nobody can read
 * (their key is gone). Both kinds of leftover live in the session's folder and go with it.
 * A batch that arrived while the session was being rewritten makes step 2 start again.
 */

export interface SessionRemaskResult {
  /** Whether anything in the session's batches matched (only then are they rewritten and re-keyed). */
  changed: boolean
  /** Whether the session got a new data key (see `rekey`). */
  rekeyed: boolean
  batches: number
  counts: MaskCounts
}

interface SessionRef {
  id: string
  organizationId: string
  externalId: string
}

const MAX_ATTEMPTS = 3

/**
 * A session that received a batch this recently is rewritten under the key it has: ingest
 * instances cache a session's write key for 2 minutes (lib/sealing/data-keys.ts), and a batch
 * sealed there with a replaced key could not be read. Checked again under the session's lock
 * when the key is swapped, since the caller's view of the session may be minutes old.
 */
export const REKEY_SETTLE_MS = 3 * 60_000

export async function remaskSessionBatches(
  db: Db,
  blobs: BlobStore,
  session: SessionRef,
  rules: MaskRules,
  options: { remaskingId: string; rekey: boolean },
): Promise<SessionRemaskResult> {
  let rekey = options.rekey
  for (let attempt = 1; ; attempt++) {
    const result = await rewriteOnce(db, blobs, session, rules, { ...options, rekey })
    // A batch arrived since the caller looked: keep the key this time, and try again at once.
    if (result === 'recent') rekey = false
    else if (result !== 'raced') return result
    if (attempt >= MAX_ATTEMPTS)
      throw new Error(`Session ${session.id} kept receiving batches while it was re-masked`)
  }
}

async function rewriteOnce(
  db: Db,
  blobs: BlobStore,
  session: SessionRef,
  rules: MaskRules,
  { remaskingId, rekey }: { remaskingId: string; rekey: boolean },
): Promise<SessionRemaskResult | 'raced' | 'recent'> {
  const refs = await sessionBatches(db, session.id)
  // Two passes keep memory at one batch whatever the session's length: the first only finds
  // out whether anything matches (most sessions: no, and nothing is written); the second masks
  // again — deterministically, the same — and writes each batch as it goes.
  const probe = new EventMasker(rules)
  let changed = false
  for (const ref of refs) if ((await maskedBatch(blobs, ref, probe, rules)).changed) changed = true
  if (!changed) return { changed: false, rekeyed: false, batches: 0, counts: probe.counts }

  // Without rekey (a session still receiving: other ingest instances may hold its key for a
  // while) the batches are re-sealed under the key they have; a later re-masking re-keys them.
  const current = refs.find((ref) => ref.dataKey)?.dataKey
  const dataKey = rekey || !current ? newDataKey() : current
  const replaceKey = rekey || !current
  const masker = new EventMasker(rules)
  // A batch is its (sequence, window): two tabs of a visit can take one sequence.
  const moves: { sequence: number; windowId: string; oldKey: string; newKey: string }[] = []
  for (const ref of refs) {
    const { bytes } = await maskedBatch(blobs, ref, masker, rules)
    const newKey = remaskedBlobKey(session, ref.sequence, bytes, remaskingId)
    await blobs.put(newKey, sealBytes(bytes, dataKey), { contentType: 'application/octet-stream' })
    moves.push({ sequence: ref.sequence, windowId: ref.windowId ?? '', oldKey: ref.blobKey, newKey })
  }

  const committed = await db.transaction(async (tx) => {
    // The session row's lock keeps ingest's transactional path from adding a batch meanwhile;
    // a batch that got in before is seen here and the rewrite starts again.
    const [locked] = await tx
      .select({ lastReceivedAt: replaySessions.lastReceivedAt })
      .from(replaySessions)
      .where(eq(replaySessions.id, session.id))
      .for('update')
    if (replaceKey && locked && locked.lastReceivedAt.getTime() > Date.now() - REKEY_SETTLE_MS)
      return 'recent'
    const now = await tx
      .select({
        sequence: replayBatches.sequence,
        windowId: replayBatches.windowId,
        blobKey: replayBatches.blobKey,
      })
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, session.id))
      .orderBy(asc(replayBatches.sequence))
    const batchOf = (batch: { sequence: number; windowId: string }) =>
      `${batch.sequence}\u0000${batch.windowId}`
    const expected = new Map(moves.map((m) => [batchOf(m), m.oldKey]))
    if (now.length !== moves.length || now.some((row) => expected.get(batchOf(row)) !== row.blobKey))
      return false
    for (const move of moves)
      await tx
        .update(replayBatches)
        .set({ blobKey: move.newKey })
        .where(
          and(
            eq(replayBatches.sessionId, session.id),
            eq(replayBatches.sequence, move.sequence),
            eq(replayBatches.windowId, move.windowId),
          ),
        )
    if (replaceKey) await replaceSessionKey(tx, session.organizationId, session.externalId, dataKey)
    return true
  })
  if (committed !== true) {
    await blobs.delete(moves.map((m) => m.newKey)).catch(() => {})
    return committed === 'recent' ? 'recent' : 'raced'
  }
  // Best effort: an old blob left behind goes with its session (and, re-keyed, is unreadable).
  await blobs
    .delete(moves.map((m) => m.oldKey).filter((key) => !moves.some((m) => m.newKey === key)))
    .catch(() => {})
  return { changed: true, rekeyed: replaceKey, batches: moves.length, counts: masker.counts }
}

/** One stored batch opened, parsed and masked (the masker carries the node mirror on). */
async function maskedBatch(
  blobs: BlobStore,
  ref: SessionBatchRef,
  masker: EventMasker,
  rules: MaskRules,
): Promise<{ changed: boolean; bytes: Uint8Array }> {
  const stored = await blobs.get(ref.blobKey)
  if (!stored) throw new Error(`Replay batch ${ref.sequence} is missing from blob storage (${ref.blobKey})`)
  const text = Buffer.from(openStoredBatch(ref, stored)).toString('utf8')
  const body = JSON.parse(text) as Record<string, unknown>
  let changed = false
  const replay = body.replay
  if (isObj(replay) && Array.isArray(replay.events)) changed = masker.maskEvents(replay.events)
  if (maskEnvelope(body, rules)) changed = true
  return { changed, bytes: changed ? Buffer.from(JSON.stringify(body)) : Buffer.from(text) }
}

/** The batch envelope's addresses (a token in a page's query); the person's identifiers stay. */
function maskEnvelope(body: Record<string, unknown>, rules: MaskRules): boolean {
  if (rules.patterns.length === 0) return false
  let changed = false
  const fields: [unknown, string][] = [
    [body.session, 'url'],
    [body.page, 'url'],
    [body.page, 'referrer'],
  ]
  for (const [holder, field] of fields) {
    if (!isObj(holder) || typeof holder[field] !== 'string') continue
    const masked = maskPatternsIn(holder[field], rules.patterns)
    if (masked !== holder[field]) {
      holder[field] = masked
      changed = true
    }
  }
  return changed
}

/** Beside the batch's first blob, in the session's folder, and never equal to any earlier key. */
function remaskedBlobKey(
  session: SessionRef,
  sequence: number,
  bytes: Uint8Array,
  remaskingId: string,
): string {
  const hash = createHash('sha256').update(bytes).update(`\n${remaskingId}`).digest('hex').slice(0, 16)
  return `${sessionBlobFolder(session.organizationId, session.externalId)}${String(sequence).padStart(10, '0')}-${hash}.json`
}
