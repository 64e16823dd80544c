// Vitest global setup: one migrated database per run that every test file's database is
// copied from, instead of each file applying every migration again (seconds per file on two
// busy cores). Each file still runs the migrator on its copy, which then finds nothing to do.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import type { TestProject } from 'vitest/node'
import { openMigratedDatabase } from '@/db/migrate'

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a file holding the dump of a migrated data directory. */
    pgliteTemplateFile: string
    /** Postgres: the name of a migrated database to copy with `create database … template`. */
    postgresTemplate: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL?.trim()
  if (!url) {
    const handle = await openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true })
    const client = (handle.db as unknown as { $client: PGlite }).$client
    const dump = await client.dumpDataDir('none')
    await handle.close()
    const folder = mkdtempSync(path.join(tmpdir(), 'pglite-template-'))
    const file = path.join(folder, 'migrated.tar')
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
    project.provide('pgliteTemplateFile', file)
    project.provide('postgresTemplate', '')
    return async () => rmSync(folder, { recursive: true, force: true })
  }

  const name = `test_template_${randomBytes(4).toString('hex')}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database "${name}"`)
  const target = new URL(url)
  target.pathname = `/${name}`
  // Copies need the template to have no open connection, so the migrator's pool is closed now.
  const handle = await openMigratedDatabase(
    { kind: 'postgres', url: target.toString() },
    { maxConnections: 2 },
  )
  await handle.close()
  project.provide('pgliteTemplateFile', '')
  project.provide('postgresTemplate', name)
  return async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.end()
  }
}
