import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { slowFirst } from './tests/helpers/slow-first'

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
    // The longest files start first, so none runs alone at the end.
    sequence: {
      sequencer: slowFirst(import.meta.dirname, [
        'tests/integration/cli.admin.test.ts',
        'tests/integration/fuzz.forms.test.ts',
        'tests/integration/fuzz.data-api.test.ts',
        'tests/integration/fuzz.dashboard.test.ts',
        'tests/integration/isolation.matrix.test.ts',
        'tests/integration/auth.sign-in-limits.test.ts',
        'tests/unit/reproduction.generator.test.ts',
        'tests/integration/fuzz.ingest.test.ts',
        'tests/integration/mcp.limits.test.ts',
        'tests/integration/ingest.unknown-keys.test.ts',
        'tests/integration/fuzz.mcp.test.ts',
        'tests/unit/security.redos.test.ts',
        'tests/integration/instances.shared-work.test.ts',
        'tests/integration/search.corpus.test.ts',
      ]),
    },
    // A test's timeout detects a hang; it is no measure of speed (benchmarks measure). CI runs
    // this suite beside two others at a lower priority, where a fuzz property's hundreds of
    // requests took longer than 30 s, and (issue 37's suites added) a file's database and
    // servers in beforeAll took over 60 s while the first files of all three suites started.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    setupFiles: ['tests/helpers/setup.ts'],
    globalSetup: ['tests/helpers/database-template.global.ts'],
  },
})
