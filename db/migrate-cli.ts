import { parseConfig } from '@/lib/config'
import { operatorMessage } from '@/lib/operator-errors'
import { openMigratedDatabase } from './migrate'

// `npm run db:migrate`: applies the committed migrations to the configured database. The
// server does the same at start-up; this is for deploy pipelines that migrate first.
try {
  const config = parseConfig(process.env)
  const handle = await openMigratedDatabase(config.database, {
    holder: 'npm run db:migrate',
    maxConnections: 2,
  })
  console.log(`Migrations applied (${handle.kind})`)
  await handle.close()
} catch (error) {
  console.error(operatorMessage(error) ?? `Migration failed: ${(error as Error).message}`)
  process.exitCode = 1
}
