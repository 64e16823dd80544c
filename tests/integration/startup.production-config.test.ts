/**
 * `npm start` (server.mjs, production) checks its configuration before it listens: without
 * BASE_URL and AUTH_SECRET it names both, says what to set, and exits non-zero without ever
 * printing "Ready" (it used to print "Ready" and then exit). Runs the production build as the
 * browser tests do (NEXT_DIST_DIR, default .next; CI builds first).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { REQUIRED_IN_PRODUCTION } from '@/lib/config'
import { freePort } from '../helpers/free-port'

const distDir = process.env.NEXT_DIST_DIR || '.next'
const dataDirs: string[] = []

afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

/** Runs server.mjs to its end (at most 60 s) with only these variables besides the basics. */
async function runServer(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  if (!existsSync(path.join(process.cwd(), distDir, 'BUILD_ID')))
    throw new Error(`No production build in ${distDir}: run \`npm run build\` first`)
  const dataDir = mkdtempSync(path.join(tmpdir(), 'start-config-'))
  dataDirs.push(dataDir)
  const port = await freePort()
  const child = spawn(process.execPath, ['server.mjs', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      // What `npm start` sets when unset.
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      ...(distDir !== '.next' ? { NEXT_DIST_DIR: distDir } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const code = await new Promise<number | null>((resolve) =>
    child.once('exit', (exitCode) => resolve(exitCode)),
  )
  clearTimeout(timer)
  return { code, output }
}

describe('npm start without the production variables', () => {
  it('names BASE_URL and AUTH_SECRET with what to set, exits 1 and never prints Ready', async () => {
    const { code, output } = await runServer({})
    expect(code).toBe(1)
    expect(output).not.toMatch(/ready/i)
    expect(output).toContain('Missing environment variables required in production:')
    expect(output).toContain(`BASE_URL (${REQUIRED_IN_PRODUCTION.BASE_URL})`)
    expect(output).toContain(`AUTH_SECRET (${REQUIRED_IN_PRODUCTION.AUTH_SECRET})`)
    // One message, not a stack.
    expect(output).not.toMatch(/^\s+at /m)
  }, 90_000)

  it('without BASE_URL alone says so, and still never Ready', async () => {
    const { code, output } = await runServer({ AUTH_SECRET: 'x'.repeat(40) })
    expect(code).toBe(1)
    expect(output).not.toMatch(/ready/i)
    expect(output).toContain(`Missing environment variable required in production: BASE_URL (`)
    expect(output).not.toContain('AUTH_SECRET (')
  }, 90_000)
})
