import { isNull, lt, or, type SQL, sql } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'

/**
 * `last_used_at` columns are for people ("last used 3 minutes ago"), not for auditing: one
 * write a minute per row is plenty and keeps hot paths from writing (and from queueing on a
 * row shared by many callers). Each process remembers what it wrote lately; the database
 * condition keeps it to once a minute across processes too.
 */
const INTERVAL_MS = 60_000
const MAX_TRACKED = 10_000

/** A memory of recent writes: `due(key)` is true at most once a minute per key in this process. */
export function lastUseWrites(): { due(key: string, now?: number): boolean } {
  const lastWritten = new Map<string, number>()
  return {
    due(key, now = Date.now()) {
      const previous = lastWritten.get(key)
      if (previous !== undefined && now - previous < INTERVAL_MS) return false
      if (lastWritten.size >= MAX_TRACKED) lastWritten.clear()
      lastWritten.set(key, now)
      return true
    },
  }
}

/** The row's last use is unknown or over a minute old (the database's clock decides). */
export function lastUseStale(column: PgColumn): SQL | undefined {
  return or(isNull(column), lt(column, sql`now() - interval '60 seconds'`))
}
