import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type postgres from 'postgres'
import type { Db } from './client'

export type Row = Record<string, unknown>

/**
 * A transaction whose BEGIN travels with its first statement and whose COMMIT travels with
 * its last, so that BEGIN, two statements and COMMIT cost two network round trips instead of
 * four. The statements are raw SQL (drizzle's `sql`), answered as plain rows.
 */
export interface PipelinedTransaction {
  /** Runs one statement; the first one also opens the transaction (BEGIN, sent with it). */
  query(statement: SQL): Promise<Row[]>
  /**
   * Runs the transaction's last statement with COMMIT sent right behind it: its writes are
   * committed whatever the caller decides after reading its rows, so it must carry every
   * condition itself. Nothing may run in the transaction afterwards.
   */
  commitWith(statement: SQL): Promise<Row[]>
}

const dialect = new PgDialect()

// postgres.js answers a raw query with an array, PGlite with { rows }.
const rowsOf = (result: unknown): Row[] =>
  Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? [])

type PostgresClient = postgres.Sql & { reserve?: () => Promise<postgres.ReservedSql> }

/** Both answers, or the first error once both have arrived (the connection is then idle). */
async function both<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b])
  if (x.status === 'rejected') throw x.reason
  if (y.status === 'rejected') throw y.reason
  return [x.value, y.value]
}

/**
 * The same contract in an ordinary transaction (PGlite): what the body throws after its last
 * statement succeeded does not roll that statement back, as on Postgres, where COMMIT has
 * already been sent.
 */
async function inOrdinaryTransaction<T>(db: Db, body: (tx: PipelinedTransaction) => Promise<T>): Promise<T> {
  let lastRan = false
  let afterLast: { error: unknown } | undefined
  const result = await db.transaction(async (tx) => {
    try {
      return await body({
        query: async (statement) => {
          if (lastRan) throw new Error('The transaction has ended')
          return rowsOf(await tx.execute(statement))
        },
        commitWith: async (statement) => {
          if (lastRan) throw new Error('The transaction has ended')
          const rows = rowsOf(await tx.execute(statement))
          lastRan = true
          return rows
        },
      })
    } catch (error) {
      if (!lastRan) throw error
      afterLast = { error }
      return undefined
    }
  })
  if (afterLast) throw afterLast.error
  return result as T
}

/**
 * Runs `body` in a transaction on `db`. On postgres.js the statements go down one reserved
 * connection, BEGIN pipelined with the first and COMMIT with the last (the protocol runs
 * them in order; an error in one makes the rest of the transaction fail, as it would
 * unpipelined). A throw before `commitWith` rolls back. On PGlite, where a statement is a
 * function call and not a round trip, it is an ordinary transaction.
 */
export async function pipelinedTransaction<T>(
  db: Db,
  body: (tx: PipelinedTransaction) => Promise<T>,
): Promise<T> {
  const client = (db as unknown as { $client: unknown }).$client as PostgresClient
  if (typeof client.reserve !== 'function') return inOrdinaryTransaction(db, body)

  const connection = await client.reserve()
  const run = (statement: SQL) => {
    const { sql, params } = dialect.sqlToQuery(statement)
    // Named and kept per connection: postgres.js (and drizzle, which asks for it only for
    // queries given a name) otherwise parses every statement anew and waits for its
    // description before binding it, a second round trip per statement. The client's own
    // `prepare: false` (transaction-mode poolers, db/client.ts) still overrides this.
    return connection.unsafe(sql, params as postgres.ParameterOrJSON<never>[], { prepare: true })
  }
  let state = 'idle' as 'idle' | 'open' | 'ended'
  try {
    return await body({
      query: async (statement) => {
        if (state === 'ended') throw new Error('The transaction has ended')
        if (state === 'open') return rowsOf(await run(statement))
        state = 'open'
        const [, rows] = await both(connection.unsafe('begin'), run(statement))
        return rowsOf(rows)
      },
      commitWith: async (statement) => {
        if (state !== 'open') throw new Error('commitWith needs an open transaction')
        // Sent now, COMMIT ends the transaction whatever happens (after an error it rolls back).
        state = 'ended'
        const [rows] = await both(run(statement), connection.unsafe('commit'))
        return rowsOf(rows)
      },
    })
  } catch (error) {
    if (state === 'open') await connection.unsafe('rollback').catch(() => undefined)
    throw error
  } finally {
    connection.release()
  }
}
