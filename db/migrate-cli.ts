import { ConfigError, parseConfig } from '@/lib/config'
import { createDb } from './client'
import { migrateDatabase } from './migrate'
import { DatabaseBusyError } from './pglite-lock'

// `npm run db:migrate`: applies the committed migrations to the configured database. The
// server does the same at start-up; this is for deploy pipelines that migrate first.
try {
  const config = parseConfig(process.env)
  const handle = await createDb(config.database, { holder: 'npm run db:migrate', maxConnections: 2 })
  try {
    await migrateDatabase(handle)
    console.log(`Migrations applied (${handle.kind})`)
  } finally {
    await handle.close()
  }
} catch (error) {
  const known = error instanceof ConfigError || error instanceof DatabaseBusyError
  console.error(known ? (error as Error).message : `Migration failed: ${(error as Error).message}`)
  process.exitCode = 1
}
