import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import type { DatabaseHandle } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'

/**
 * A fresh, migrated database for one test file: an in-memory PGlite by default, or a new
 * database on the server of DATABASE_URL (dropped again by `close`). The suite runs once
 * each way in CI.
 */
export interface TestDatabase extends DatabaseHandle {
  /** Connection string of the fresh Postgres database (unset on PGlite). */
  url?: string
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL?.trim()
  if (!url) {
    return openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true })
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const target = new URL(url)
  target.pathname = `/${name}`
  const handle = await openMigratedDatabase(
    { kind: 'postgres', url: target.toString() },
    { maxConnections: 5 },
  )
  return {
    ...handle,
    url: target.toString(),
    close: async () => {
      await handle.close()
      const cleanup = postgres(url, { max: 1, onnotice: () => {} })
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}
