import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import { outbox } from '@/db/schema'
import type { Db } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { logger } from '@/lib/log'

/**
 * Hands outbox events to the jobs engine and marks them dispatched. The event id doubles as
 * the jobs engine's deduplication id, so a row sent twice (a crash between send and mark)
 * still runs its jobs once. A failed send leaves the row for the sweep.
 */
export async function dispatchOutbox(
  db: Db,
  jobs: JobsEngine,
  selection: { eventIds: string[] } | { olderThanSeconds: number; limit: number; organizationId?: string },
): Promise<number> {
  const filter =
    'eventIds' in selection
      ? and(isNull(outbox.dispatchedAt), inArray(outbox.eventId, selection.eventIds))
      : and(
          isNull(outbox.dispatchedAt),
          lt(outbox.createdAt, sql`now() - make_interval(secs => ${selection.olderThanSeconds})`),
          selection.organizationId ? eq(outbox.organizationId, selection.organizationId) : undefined,
        )
  if ('eventIds' in selection && selection.eventIds.length === 0) return 0
  const rows = await db
    .select({
      id: outbox.id,
      eventId: outbox.eventId,
      name: outbox.name,
      payload: outbox.payload,
      requestId: outbox.requestId,
    })
    .from(outbox)
    .where(filter)
    .orderBy(asc(outbox.createdAt))
    .limit('limit' in selection ? selection.limit : selection.eventIds.length)
  if (rows.length === 0) return 0
  try {
    await jobs.send(
      rows.map((row) => ({
        id: row.eventId,
        name: row.name,
        data: row.payload,
        requestId: row.requestId ?? undefined,
      })),
    )
  } catch (error) {
    logger.warn({ err: error, events: rows.length }, 'outbox dispatch failed; the sweep will retry')
    await db
      .update(outbox)
      .set({
        attempts: sql`${outbox.attempts} + 1`,
        lastError: String((error as Error).message).slice(0, 500),
      })
      .where(
        inArray(
          outbox.id,
          rows.map((r) => r.id),
        ),
      )
    return 0
  }
  await db
    .update(outbox)
    .set({ dispatchedAt: sql`now()`, attempts: sql`${outbox.attempts} + 1`, lastError: null })
    .where(
      and(
        inArray(
          outbox.id,
          rows.map((r) => r.id),
        ),
        isNull(outbox.dispatchedAt),
      ),
    )
  return rows.length
}
