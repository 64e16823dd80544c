import path from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    // Unit tests touch no database, so a run on a Postgres server (DATABASE_URL) leaves them to
    // the run on PGlite: running them twice proves nothing more (CI runs both).
    include: [
      ...(process.env.DATABASE_URL ? [] : ['tests/unit/**/*.test.ts']),
      'tests/integration/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // Files share a worker process instead of a fresh one each: tests/helpers/setup.ts gives each
    // file fresh project modules and closes the app's process-wide services when it ends.
    isolate: false,
    // Each file opens its own database; two cores run two files at a time comfortably.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['tests/helpers/setup.ts'],
    globalSetup: ['tests/helpers/database-template.global.ts'],
  },
})
