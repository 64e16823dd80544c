import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'

type Row = Record<string, unknown>
export const rowsOf = (result: unknown): Row[] =>
  Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? [])

/**
 * The database's clock at this moment (`clock_timestamp()`, not `now()`, which is the
 * transaction's start). Read after taking a rule's lock, it orders every decision and digest
 * of that rule by one clock: a decision waiting on the lock cannot carry a time from before
 * the wait, nor an app server's skewed clock, into a window whose digest already went.
 */
export async function databaseNow(db: DbOrTx): Promise<Date> {
  // Milliseconds since the epoch: the same number from every driver, whatever it makes of timestamps.
  const [row] = rowsOf(
    await db.execute(sql`select floor(extract(epoch from clock_timestamp()) * 1000)::float8 as ms`),
  )
  return new Date(Number(row!.ms))
}
