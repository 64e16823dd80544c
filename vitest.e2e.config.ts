import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { slowFirst } from './tests/helpers/slow-first'

// Browser tests drive the system Chromium against the built server (`npm run build` first).
export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Two files at a time: each starts its own built server, database and Chromium, and most
    // of a browser test is waiting (server start-up, session processing), so the second file
    // runs in the first one's waits (283 s one at a time, 177 s two at a time, same machine).
    fileParallelism: true,
    maxWorkers: 2,
    // The longest files start first (the dev server's restart alone takes ~2 minutes).
    sequence: {
      sequencer: slowFirst(import.meta.dirname, [
        'tests/e2e/dev-restart.test.ts',
        'tests/e2e/reproduction.test.ts',
        'tests/e2e/releases.test.ts',
        'tests/e2e/sdk.canvas-iframes.test.ts',
        'tests/e2e/dashboard.layout.test.ts',
        'tests/e2e/dashboard.settings.test.ts',
        'tests/e2e/dashboard.sessions.test.ts',
        'tests/e2e/reproduction.hostile.test.ts',
        'tests/e2e/dashboard.issues.test.ts',
        'tests/e2e/walkthrough.test.ts',
        'tests/e2e/first-hour.test.ts',
      ]),
    },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
