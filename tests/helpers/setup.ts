// Every test file runs against its own data directory and a quiet logger; a test that needs
// more builds its own configuration with parseConfig.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

process.env.LOG_LEVEL ??= 'silent'
process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), 'svc-test-'))
process.env.AUTH_SECRET ??= 'test-secret-test-secret-test-secret-0123456789'

// Vite puts its own BASE_URL ('/'), MODE, DEV, PROD and SSR into process.env; BASE_URL is
// also one of ours, so remove it before any code parses the configuration.
delete process.env.BASE_URL
