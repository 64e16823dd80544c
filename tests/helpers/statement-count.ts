import type { DatabaseHandle } from '@/db/client'

/**
 * Records every statement a database handle sends, BEGIN and COMMIT included: each is one
 * round trip to the server (postgres.js) or one call into the engine (PGlite). For tests
 * and benchmarks that count round trips; `stop()` puts the driver back as it was.
 */
export interface StatementLog {
  /** The statements sent since the last `reset()`, first words only, in order. */
  readonly statements: string[]
  reset(): void
  stop(): void
}

type Debug = (connection: number, query: string) => void
interface PostgresClient {
  options: { debug?: Debug | boolean }
}
interface PgliteTx {
  query: (...args: unknown[]) => Promise<unknown>
}
interface PgliteClient {
  query: (...args: unknown[]) => Promise<unknown>
  transaction: (fn: (tx: PgliteTx) => Promise<unknown>) => Promise<unknown>
}

const shortly = (query: string) => query.replace(/\s+/g, ' ').trim().slice(0, 120)

export function logStatements(handle: DatabaseHandle): StatementLog {
  const statements: string[] = []
  const log = {
    statements,
    reset: () => {
      statements.length = 0
    },
    stop: () => {},
  }
  const client = (handle.db as unknown as { $client: unknown }).$client
  if (handle.kind === 'postgres') {
    // postgres.js calls options.debug for every query it sends, on every connection.
    const { options } = client as PostgresClient
    const before = options.debug
    options.debug = (_connection, query) => {
      statements.push(shortly(query))
    }
    log.stop = () => {
      options.debug = before
    }
    return log
  }
  // PGlite: drizzle sends queries through query(), and transactions through transaction(),
  // which runs BEGIN, the callback's tx.query() calls, then COMMIT or ROLLBACK.
  const pglite = client as PgliteClient
  const { query, transaction } = pglite
  pglite.query = (...args) => {
    statements.push(shortly(String(args[0])))
    return query.apply(pglite, args)
  }
  pglite.transaction = (fn) => {
    statements.push('BEGIN')
    return transaction
      .call(pglite, (tx) => {
        const txQuery = tx.query
        tx.query = (...args) => {
          statements.push(shortly(String(args[0])))
          return txQuery.apply(tx, args)
        }
        return fn(tx)
      })
      .then(
        (value) => {
          statements.push('COMMIT')
          return value
        },
        (error: unknown) => {
          statements.push('ROLLBACK')
          throw error
        },
      )
  }
  log.stop = () => {
    pglite.query = query
    pglite.transaction = transaction
  }
  return log
}
