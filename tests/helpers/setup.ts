// Every test file runs against its own data directory and a quiet logger; a test that needs
// more builds its own configuration with parseConfig.

// Next's request scope lives in AsyncLocalStorage, which its modules look for on globalThis when
// they first load, as Next's own server arranges before anything else. Files share worker
// processes, and Node loads a package once per process: a file that reached next/headers
// without it left a stand-in store that failed every later file's sign-in ("AsyncLocalStorage
// accessed in runtime where it is not available"). So every worker sets it first.
import 'next/dist/server/node-environment-baseline'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, vi } from 'vitest'

process.env.LOG_LEVEL ??= 'silent'
// One temporary folder per test file holds its data directory and everything else the file
// makes with mkdtemp (os.tmpdir() follows TMPDIR, also in the processes it spawns), and is
// removed when the file ends: local blobs take megabytes a file, and would otherwise pile up
// in /tmp run after run on a machine that CI shares. Registered first, so it runs after the
// file's own afterAll hooks (vitest runs them as a stack).
// Files can share a worker process (vitest.config.ts), so the first file's TMPDIR is the base.
process.env.SVC_TEST_TMP_BASE ??= tmpdir()
const scratch = mkdtempSync(path.join(process.env.SVC_TEST_TMP_BASE, 'svc-test-'))
process.env.TMPDIR = scratch
process.env.DATA_DIR = mkdtempSync(path.join(scratch, 'data-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
process.env.AUTH_SECRET ??= 'test-secret-test-secret-test-secret-0123456789'
// Tests call route handlers with `new Request`: no socket, and no server of ours in front. They
// play the one trusted reverse proxy instead, whose X-Forwarded-For entry is the client address
// (lib/ratelimit/client-address.ts); tests of the other sources set their own.
process.env.TRUSTED_PROXY_HOPS ??= '1'

// Vite puts its own BASE_URL ('/'), MODE, DEV, PROD and SSR into process.env; BASE_URL is
// also one of ours, so remove it before any code parses the configuration.
delete process.env.BASE_URL

// Most files share their worker process with the files before them (vitest.config.ts: a fresh
// process per file cost ~2 s of CPU each, a third of the suite). Each file still starts from
// its own copy of the project's modules, so module-level caches (configuration, blob store, …)
// are new; the process-wide services the app keeps on globalThis (database, jobs engine,
// analysis pool, deliverer, rate limiter, …) are closed when a file ends and forgotten.
vi.resetModules()
interface Closable {
  close?: () => Promise<void> | void
  stop?: () => Promise<void> | void
}
async function closeService(value: unknown): Promise<void> {
  const service = (await value) as Closable | undefined
  if (!service || typeof service !== 'object') return
  if (typeof service.stop === 'function') await service.stop()
  else if (typeof service.close === 'function') await service.close()
}
afterAll(async () => {
  const services = globalThis as Record<string, unknown>
  for (const key of Object.keys(services).filter((name) => name.startsWith('__service'))) {
    const value = services[key]
    delete services[key]
    // A file that closed its own database (or its engine) already: closing again may refuse.
    await closeService(value).catch(() => {})
  }
})
