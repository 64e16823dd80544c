import { sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import { check, timestamp, uuid } from 'drizzle-orm/pg-core'

/**
 * Shared column builders so every table spells ids and times the same way.
 *
 * Times keep millisecond precision (`timestamptz(3)`): a JavaScript Date has milliseconds,
 * and a keyset cursor built from a Date must compare equal to the stored value. With
 * Postgres' default microseconds, `(created_at, id) < (cursor)` would skip rows.
 */
// Index columns declared `.desc().nullsFirst()` match `ORDER BY ... DESC` exactly (which means
// NULLS FIRST); drizzle-kit writes a bare `.desc()` as DESC NULLS LAST, which Postgres will not
// use for that order, so list pages would read and sort every row.
export const id = () => uuid('id').primaryKey().defaultRandom()
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 })
export const createdAt = () => ts('created_at').notNull().defaultNow()
/** Set on insert and by drizzle on every update, so no update can forget it. */
export const updatedAt = () =>
  ts('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date())

/** A check constraint that keeps a text column to the same values as its TypeScript union. */
export function oneOf(name: string, column: AnyPgColumn, values: readonly string[]) {
  const list = values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')
  return check(name, sql`${column} in (${sql.raw(list)})`)
}
