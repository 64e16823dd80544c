import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import { outbox } from '@/db/schema'
import type { Db } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { logger } from '@/lib/log'
import { InvalidEventPayloadError, isEventName, parseEventPayload } from './events'

type Row = { id: string; eventId: string; name: string; payload: unknown }

/**
 * The message of a row whose payload does not match its event in the catalogue, else null.
 * A name the catalogue does not know passes: a newer version may have written it, and the
 * engine starts nothing for a name no job listens to.
 */
function refusal(row: Row): string | null {
  if (!isEventName(row.name)) return null
  try {
    parseEventPayload(row.name, row.payload)
    return null
  } catch (error) {
    if (error instanceof InvalidEventPayloadError) return error.message
    throw error
  }
}

/**
 * Marks rows no job could take as handled, with the reason: each job would refuse them
 * anyway, and left undispatched they would be read again by every sweep.
 */
async function refuse(db: Db, refused: { row: Row; reason: string }[]): Promise<void> {
  for (const { row, reason } of refused) {
    logger.error({ eventId: row.eventId, event: row.name, reason }, 'outbox event refused: invalid payload')
    await db
      .update(outbox)
      .set({
        dispatchedAt: sql`now()`,
        attempts: sql`${outbox.attempts} + 1`,
        lastError: reason.slice(0, 500),
      })
      .where(and(eq(outbox.id, row.id), isNull(outbox.dispatchedAt)))
  }
}

/**
 * Hands outbox events to the jobs engine and marks them dispatched. The event id doubles as
 * the jobs engine's deduplication id, so a row sent twice (a crash between send and mark)
 * still runs its jobs once. A failed send leaves the row for the sweep. A row whose payload
 * does not match its event in the catalogue is refused: marked with the reason, never sent.
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
  let rows = await db
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
  const refused = rows.flatMap((row) => {
    const reason = refusal(row)
    return reason ? [{ row, reason }] : []
  })
  if (refused.length > 0) {
    await refuse(db, refused)
    const ids = new Set(refused.map((r) => r.row.id))
    rows = rows.filter((row) => !ids.has(row.id))
    if (rows.length === 0) return 0
  }
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
