import type { DatabaseHandle, Db } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { getConfig } from '@/lib/config'
import { logger } from '@/lib/log'

/**
 * The process-wide database: created from configuration on first use, migrated once, and
 * kept on globalThis so that Next's dev-mode module reloading does not open a second PGlite
 * on the same files.
 */
const holder = globalThis as typeof globalThis & { __serviceDb?: Promise<DatabaseHandle> }

async function open(): Promise<DatabaseHandle> {
  const config = getConfig()
  const handle = await openMigratedDatabase(config.database, {
    holder: `the service (${process.argv.slice(1).join(' ')})`,
  })
  logger.info({ database: handle.kind }, 'database ready')
  return handle
}

export function getDatabaseHandle(): Promise<DatabaseHandle> {
  if (!holder.__serviceDb) {
    holder.__serviceDb = open()
    // A failed open must not be cached forever: the next request tries again.
    holder.__serviceDb.catch(() => {
      holder.__serviceDb = undefined
    })
  }
  return holder.__serviceDb
}

export async function getDb(): Promise<Db> {
  return (await getDatabaseHandle()).db
}

/** Tests (and the CLI) run the app's code against a database they created themselves. */
export function useDatabase(handle: DatabaseHandle | undefined): void {
  holder.__serviceDb = handle ? Promise.resolve(handle) : undefined
}

export async function closeDatabase(): Promise<void> {
  const pending = holder.__serviceDb
  holder.__serviceDb = undefined
  if (pending) await (await pending).close()
}

export type { Db, DbOrTx, Tx } from '@/db/client'
