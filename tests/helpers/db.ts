import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { inject } from 'vitest'
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

let pgliteTemplate: Blob | undefined

/** The migrated template of this run (tests/helpers/database-template.global.ts), read once per file. */
function pgliteTemplateDump(): Blob | undefined {
  const file = inject('pgliteTemplateFile')
  if (!file) return undefined
  pgliteTemplate ??= new Blob([readFileSync(file)])
  return pgliteTemplate
}

/**
 * PGlite on disk: fills the empty `dataDir` from this run's migrated template, so a test that
 * needs a data directory as a migrated server leaves it skips a fresh migration (seconds of
 * CPU). A Postgres run has no template: the directory stays empty and its opener migrates.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const template = pgliteTemplateDump()
  if (!template) return
  const client = new PGlite(dataDir, { loadDataDir: template })
  await client.waitReady
  await client.close()
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL?.trim()
  if (!url) {
    return openMigratedDatabase(
      { kind: 'pglite', dataDir: '' },
      { memory: true, template: pgliteTemplateDump() },
    )
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const template = inject('postgresTemplate')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`)
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
