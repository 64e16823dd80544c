import { connect, type Socket } from 'node:net'
import { PGlite } from '@electric-sql/pglite'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import type { DatabaseChoice } from '@/lib/config'
import { acquireDataDirLock, type DataDirLock } from './pglite-lock'
import * as schema from './schema'

export type Schema = typeof schema
/** The one database type every query is written against, whichever driver runs it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction handle, accepted wherever a Db is. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type DbOrTx = Db | Tx

export interface DatabaseHandle {
  db: Db
  kind: DatabaseChoice['kind']
  close(): Promise<void>
}

export interface CreateDbOptions {
  /** PGlite only: 'memory' for a throw-away database (tests), otherwise files under dataDir. */
  memory?: boolean
  /** PGlite in memory only: start from this dump of a data directory (a test's migrated template). */
  template?: Blob
  /** postgres.js pool size; the default suits a serverless function or one Node process. */
  maxConnections?: number
  /** Who holds the embedded database, shown to a second process that tries to open it. */
  holder?: string
}

/**
 * `?pgbouncer=true` (the Prisma-era convention hosts print) or Supabase's pooler port 6543
 * mark a transaction-mode pooler. The marker is removed: Postgres would reject it as an
 * unknown connection parameter.
 */
export function poolerAware(connectionUrl: string): { url: string; pooled: boolean } {
  const url = new URL(connectionUrl)
  const flagged = url.searchParams.get('pgbouncer') === 'true'
  url.searchParams.delete('pgbouncer')
  return { url: url.toString(), pooled: flagged || url.port === '6543' }
}

/**
 * postgres.js redials, without ever failing the waiting query, when the server closes a new
 * connection before answering its startup (a pooler or load balancer whose database is gone),
 * and `connect_timeout` restarts with every redial: requests would wait until the database came
 * back. A close before the first byte from the server is turned into an error instead.
 */
function failFastSocket(options: { host: string[]; port: number[]; path?: string | false }): Socket {
  const socket = options.path ? connect(options.path) : connect(options.port[0]!, options.host[0]!)
  let answered = false
  socket.once('data', () => {
    answered = true
  })
  socket.on('end', () => {
    if (!answered)
      socket.destroy(
        Object.assign(new Error('The database closed the connection before answering'), {
          code: 'CONNECTION_CLOSED',
        }),
      )
  })
  return socket
}

export async function createDb(
  choice: DatabaseChoice,
  options: CreateDbOptions = {},
): Promise<DatabaseHandle> {
  if (choice.kind === 'postgres') {
    const { url, pooled } = poolerAware(choice.url)
    const connection = {
      max: options.maxConnections ?? 10,
      // Transaction-mode poolers (PgBouncer, Supavisor on 6543) cannot keep prepared statements.
      prepare: !pooled,
      onnotice: () => {},
      // Fail fast on an unreachable server instead of hanging a request for minutes.
      connect_timeout: 10,
      // postgres.js otherwise asks for the array types on every new connection and drops that
      // query's promise: a connection lost at that moment (a database incident) becomes an
      // unhandled rejection, which ends the process (porsager/postgres#1192, #1205, #1223).
      // Drizzle parses array columns itself, and no raw query of ours returns an array.
      fetch_types: false,
      // A documented postgres.js option its type declarations leave out.
      socket: failFastSocket,
    }
    const sql = postgres(url, connection)
    const db = drizzlePostgres(sql, { schema }) as unknown as Db
    return { db, kind: 'postgres', close: () => sql.end({ timeout: 5 }) }
  }

  let lock: DataDirLock | undefined
  if (!options.memory) lock = await acquireDataDirLock(choice.dataDir, options.holder ?? 'process')
  try {
    const client = options.memory
      ? new PGlite(options.template ? { loadDataDir: options.template } : {})
      : new PGlite(choice.dataDir)
    await client.waitReady
    // Both drivers extend PgDatabase; only their result-type parameter differs, which our
    // queries never depend on, so one cast here keeps every query written once.
    const db = drizzlePglite(client, { schema }) as unknown as Db
    return {
      db,
      kind: 'pglite',
      close: async () => {
        await client.close()
        await lock?.release()
      },
    }
  } catch (error) {
    await lock?.release()
    throw error
  }
}
