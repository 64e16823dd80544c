import path from 'node:path'
import postgres from 'postgres'
import type { Db } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import type { DatabaseChoice } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'

/** A benchmark's database: a PGlite in a data directory, or a fresh Postgres database. */

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'

/** The Postgres server the benchmarks create their databases on: DATABASE_URL's, or the local test one. */
export function postgresServerUrl(): string {
  return process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL
}

export interface ScratchDatabase {
  name: string
  url: string
  drop(): Promise<void>
}

/**
 * A new database `<prefix>_<timestamp>` on the server of DATABASE_URL, so a run never reads
 * or leaves rows in anyone's data; `drop` removes it (with the connections still open to it).
 */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const serverUrl = postgresServerUrl()
  const name = `${prefix}_${Date.now()}`
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const target = new URL(serverUrl)
  target.pathname = `/${name}`
  return {
    name,
    url: target.toString(),
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

export interface BenchDatabase {
  choice: DatabaseChoice
  description: string
  drop(): Promise<void>
}

/**
 * PGlite where the service looks for it (DATA_DIR/pglite), or a scratch database
 * `<prefix>_<timestamp>` on the server of DATABASE_URL, dropped by `drop`.
 */
export async function prepareDatabase(
  kind: 'pglite' | 'postgres',
  dataDir: string,
  prefix = 'bench_ingest',
): Promise<BenchDatabase> {
  if (kind === 'pglite')
    return {
      choice: { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
      description: 'PGlite in a temporary DATA_DIR, local blobs',
      drop: async () => {},
    }
  const scratch = await createScratchDatabase(prefix)
  const target = new URL(scratch.url)
  return {
    choice: { kind: 'postgres', url: scratch.url },
    description: `Postgres (${target.host}/${scratch.name}), local blobs`,
    drop: scratch.drop,
  }
}

/** Opens (and migrates) the database for `use`, and always closes it again. */
export async function withDatabase<T>(choice: DatabaseChoice, use: (db: Db) => Promise<T>): Promise<T> {
  const handle = await openMigratedDatabase(choice, { holder: 'a benchmark', maxConnections: 2 })
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
