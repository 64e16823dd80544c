import path from 'node:path'
import { sql } from 'drizzle-orm'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import type { DatabaseChoice } from '@/lib/config'
import { type CreateDbOptions, createDb, type DatabaseHandle, type Schema } from './client'

/**
 * The committed drizzle-kit migrations. `npm run dev|start|test` and the CLI all run from the
 * project root, which is also where a deployment keeps `db/migrations` beside `.next`.
 */
export function migrationsFolder(): string {
  return path.resolve(process.cwd(), 'db/migrations')
}

// Two server processes starting at once on Postgres must not apply the same migration twice.
const MIGRATION_LOCK_KEY = 7_424_001

export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  const migrationsConfig = { migrationsFolder: migrationsFolder() }
  if (handle.kind === 'pglite') {
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, migrationsConfig)
    return
  }
  // A transaction-scoped lock, held on one pooled connection while the migrator works on
  // another; a second process waits here and then finds nothing left to apply.
  await handle.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`)
    await migratePostgres(handle.db as unknown as PostgresJsDatabase<Schema>, migrationsConfig)
  })
}

/** Opens the configured database and brings its schema up to date, or leaves nothing open. */
export async function openMigratedDatabase(
  choice: DatabaseChoice,
  options: CreateDbOptions = {},
): Promise<DatabaseHandle> {
  const handle = await createDb(choice, options)
  try {
    await migrateDatabase(handle)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}
