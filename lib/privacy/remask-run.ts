import { and, asc, eq, gt, gte, lt, or } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { remaskings, replaySessions } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import type { BlobStore } from '@/lib/storage/types'
import { forgetLiteral } from './mask-patterns'
import { compileMaskRules } from './mask-rules'
import { remaskSessionDerived } from './remask-derived'
import { REKEY_SETTLE_MS, remaskSessionBatches } from './remask-session'
import { getRemaskingRow } from './remaskings'

/** Sessions read per page of the run. */
const PAGE = 50

/**
 * The re-masking job (docs/privacy.md#re-masking): every session of the organization started
 * within the range, its batches (lib/privacy/remask-session.ts) and derived text
 * (remask-derived.ts), with the counts written to the row after each session so progress shows.
 * Resumable: a retry goes over the sessions again, and a session already masked changes
 * nothing and adds nothing to the counts.
 */
export async function runRemasking(
  deps: { db: Db; blobs: BlobStore },
  input: { organizationId: string; remaskingId: string; finalAttempt?: boolean },
): Promise<Record<string, number>> {
  const { db, blobs } = deps
  const row = await getRemaskingRow(db, input.organizationId, input.remaskingId)
  if (row.status === 'completed') return row.counts
  await db
    .update(remaskings)
    .set({ status: 'running', startedAt: row.startedAt ?? new Date(), error: null })
    .where(eq(remaskings.id, row.id))
  try {
    const counts = await remaskAll(db, blobs, row)
    await db.transaction(async (tx) => {
      await tx
        .update(remaskings)
        .set({
          status: 'completed',
          completedAt: new Date(),
          counts,
          patterns: row.patterns.map(forgetLiteral),
        })
        .where(eq(remaskings.id, row.id))
      await recordAudit(tx, systemActor(row.organizationId), {
        action: 'remask.completed',
        targetType: 'remasking',
        targetId: row.id,
        metadata: { counts },
      })
    })
    return counts
  } catch (error) {
    if (input.finalAttempt)
      await db
        .update(remaskings)
        .set({
          status: 'failed',
          error: error instanceof Error ? error.message.slice(0, 500) : 'failed',
          // Nothing runs it again: the literals (often the secret itself) need not stay.
          patterns: row.patterns.map(forgetLiteral),
        })
        .where(eq(remaskings.id, row.id))
    throw error
  }
}

const systemActor = (organizationId: string): Actor => ({
  organizationId,
  actorType: 'system',
  actorId: 'remask',
})

async function remaskAll(db: Db, blobs: BlobStore, row: typeof remaskings.$inferSelect) {
  const rules = compileMaskRules(row)
  // A retry starts from what the earlier attempt recorded: sessions it masked change nothing
  // now and add nothing, while `sessions` (scanned) is counted afresh.
  const counts: Record<string, number> = { ...row.counts }
  const scannedBefore = counts.sessions ?? 0
  let scanned = 0
  const add = (more: object) => {
    for (const [key, value] of Object.entries(more)) counts[key] = (counts[key] ?? 0) + (value as number)
  }
  const doneIssues = new Set<string>()
  let after: { startedAt: Date; id: string } | null = null
  while (true) {
    const page: { id: string; externalId: string; startedAt: Date; lastReceivedAt: Date }[] = await db
      .select({
        id: replaySessions.id,
        externalId: replaySessions.externalId,
        startedAt: replaySessions.startedAt,
        lastReceivedAt: replaySessions.lastReceivedAt,
      })
      .from(replaySessions)
      .where(
        and(
          eq(replaySessions.organizationId, row.organizationId),
          row.fromTime ? gte(replaySessions.startedAt, row.fromTime) : undefined,
          row.toTime ? lt(replaySessions.startedAt, row.toTime) : undefined,
          after
            ? or(
                gt(replaySessions.startedAt, after.startedAt),
                and(eq(replaySessions.startedAt, after.startedAt), gt(replaySessions.id, after.id)),
              )
            : undefined,
        ),
      )
      .orderBy(asc(replaySessions.startedAt), asc(replaySessions.id))
      .limit(PAGE)
    if (page.length === 0) break
    const settled = new Date(Date.now() - REKEY_SETTLE_MS)
    for (const session of page) {
      const ref = { id: session.id, organizationId: row.organizationId, externalId: session.externalId }
      const rekey = session.lastReceivedAt < settled
      const result = await remaskSessionBatches(db, blobs, ref, rules, { remaskingId: row.id, rekey })
      scanned++
      counts.sessions = Math.max(scannedBefore, scanned)
      add({ sessionsChanged: result.changed ? 1 : 0, batches: result.batches })
      if (result.changed) add(result.rekeyed ? { sessionsRekeyed: 1 } : { sessionsKeptKey: 1 })
      add(result.counts)
      add(await remaskSessionDerived(db, ref, rules, doneIssues))
      await db.update(remaskings).set({ counts }).where(eq(remaskings.id, row.id))
    }
    const last = page.at(-1)!
    after = { startedAt: last.startedAt, id: last.id }
  }
  return counts
}
