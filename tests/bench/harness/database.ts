import path from 'node:path'
import postgres from 'postgres'
import type { Db } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import type { DatabaseChoice } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'

/** The ingest benchmarks' databases: a PGlite in a data directory, or a fresh Postgres database. */

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'

export interface BenchDatabase {
  choice: DatabaseChoice
  description: string
  drop(): Promise<void>
}

/**
 * PGlite where the service looks for it (DATA_DIR/pglite), or a new database
 * `bench_ingest_<timestamp>` on the server of DATABASE_URL, dropped by `drop`.
 */
export async function prepareDatabase(kind: 'pglite' | 'postgres', dataDir: string): Promise<BenchDatabase> {
  if (kind === 'pglite')
    return {
      choice: { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
      description: 'PGlite in a temporary DATA_DIR, local blobs',
      drop: async () => {},
    }
  const serverUrl = process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL
  const name = `bench_ingest_${Date.now()}`
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const target = new URL(serverUrl)
  target.pathname = `/${name}`
  return {
    choice: { kind: 'postgres', url: target.toString() },
    description: `Postgres (${target.host}/${name}), local blobs`,
    drop: async () => {
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} })
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}

/** Opens (and migrates) the database for `use`, and always closes it again. */
export async function withDatabase<T>(choice: DatabaseChoice, use: (db: Db) => Promise<T>): Promise<T> {
  const handle = await openMigratedDatabase(choice, { holder: 'the ingest benchmark', maxConnections: 2 })
  try {
    return await use(handle.db)
  } finally {
    // PGlite's files belong to one process at a time: the server can only open them after this.
    await handle.close()
  }
}

/** One organization and `count` ingest keys, the way the admin CLI creates them. */
export async function createOrgAndKeys(
  db: Db,
  count: number,
): Promise<{ organizationId: string; keys: string[] }> {
  const org = await createOrganization(db, { name: 'Ingest benchmark' })
  const keys = await db.transaction(async (tx) => {
    const created: string[] = []
    for (let i = 0; i < count; i++)
      created.push((await createKey(tx, { organizationId: org.id, type: 'ingest', name: `bench ${i}` })).key)
    return created
  })
  return { organizationId: org.id, keys }
}
