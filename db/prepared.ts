import type { PGlite } from '@electric-sql/pglite'
import type { Sql } from 'postgres'
import type { Db } from './client'

/**
 * One statement of fixed text, sent to the driver under drizzle without drizzle building it.
 * For the few hot statements that are worth it: drizzle prepares nothing on postgres.js
 * (every query is parsed again) and builds the SQL text on every call. Here the text is a
 * constant, so postgres.js keeps it as a named prepared statement per connection (unless a
 * transaction-mode pooler forbids it; `prepare` follows the pool's setting), and PGlite runs
 * it in one extended-protocol exchange. Parameters should be cast in the text (`$1::uuid`) so
 * that both drivers send them as text and Postgres converts them.
 */
export async function preparedRows<Row extends Record<string, unknown>>(
  db: Db,
  text: string,
  params: readonly (string | number | boolean | null)[],
): Promise<Row[]> {
  const client = (db as unknown as { $client: Sql | PGlite }).$client
  if (typeof (client as Sql).unsafe === 'function') {
    const sql = client as Sql
    const rows = await sql.unsafe(text, params as (string | number | boolean | null)[], {
      prepare: sql.options.prepare,
    })
    return rows as unknown as Row[]
  }
  const result = await (client as PGlite).query<Row>(text, params as unknown[])
  return result.rows
}
