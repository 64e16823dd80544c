// Every test file runs against its own data directory and a quiet logger; a test that needs
// more builds its own configuration with parseConfig.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll } from 'vitest'

process.env.LOG_LEVEL ??= 'silent'
// One temporary folder per test file holds its data directory and everything else the file
// makes with mkdtemp (os.tmpdir() follows TMPDIR, also in the processes it spawns), and is
// removed when the file ends: local blobs take megabytes a file, and would otherwise pile up
// in /tmp run after run on a machine that CI shares. Registered first, so it runs after the
// file's own afterAll hooks (vitest runs them as a stack).
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-test-'))
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
