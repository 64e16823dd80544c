import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { and, eq } from 'drizzle-orm'
import { type Browser, chromium } from 'playwright-core'
import type { Db } from '@/db/client'
import { replayBatches, replaySessions, sessionDataKeys } from '@/db/schema'
import { isSealedBytes, openBytes } from '@/lib/crypto/sealed'
import { keyEncryptionKeys, unwrapDataKey } from '@/lib/sealing/data-keys'
import { freePort } from '../helpers/free-port'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The flags this machine needs: no sandbox as root, and no calls to Google's services. */
const MACHINE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

let personUserAgent: Promise<string> | undefined

/**
 * This Chromium's own user agent as a person's browser shows it: headless Chromium says
 * `HeadlessChrome/<version>`, which the recorder marks as a bot. Read once from the browser
 * itself, so it follows whatever Chromium the machine has.
 */
function chromeUserAgent(): Promise<string> {
  personUserAgent ??= (async () => {
    const probe = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: MACHINE_ARGS })
    try {
      const page = await probe.newPage()
      return (await page.evaluate(() => navigator.userAgent)).replace('HeadlessChrome/', 'Chrome/')
    } finally {
      await probe.close()
    }
  })()
  return personUserAgent
}

/**
 * Chromium for the browser tests. By default it stands for a person's visit: without the
 * automation switch (so `navigator.webdriver` is false) and with a user agent without
 * `Headless`, or the recorder would mark every session as automated traffic
 * (docs/hostile-input.md#automated-traffic). `{ automated: true }` is Chromium as automation
 * starts it, for the tests of that marking.
 */
export async function launchChromium(options: { automated?: boolean } = {}): Promise<Browser> {
  if (options.automated)
    return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: MACHINE_ARGS })
  const userAgent = await chromeUserAgent()
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    ignoreDefaultArgs: ['--enable-automation'],
    args: [...MACHINE_ARGS, '--disable-blink-features=AutomationControlled', `--user-agent=${userAgent}`],
  })
}

/** The server's AUTH_SECRET, exported so that an admin CLI run on the same DATA_DIR agrees with it. */
export const E2E_AUTH_SECRET = 'e2e-secret-e2e-secret-e2e-secret-0123456789'

export interface RunningServer {
  baseUrl: string
  dataDir: string
  logs: () => string
  /** The process id of server.mjs (what a test measures or kills). */
  pid: number
  stop(): Promise<void>
  /** SIGKILL: the process dies at once, mid-request, holding whatever it held. */
  kill(): Promise<void>
}

export interface StartOptions {
  /**
   * A data directory prepared beforehand (organization, users, seeded rows): the embedded
   * database is held exclusively by the server once it runs, so seeding has to come first.
   */
  dataDir?: string
  /** `next dev` instead of the build, whatever E2E_NEXT_DEV says (tests of the dev server itself). */
  dev?: boolean
  /** Next's output folder (NEXT_DIST_DIR), e.g. one of the test's own for the dev server. */
  distDir?: string
  /** A fixed port, to restart a server where the browser expects it. */
  port?: number
}

/** A fresh data directory for `startBuiltServer({}, { dataDir })`. */
export function createDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'e2e-'))
}

/** Starts the built app as `npm start` does, on a free port on the embedded defaults, in a data directory of its own. */
export async function startBuiltServer(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  // E2E_NEXT_DEV=1 runs the same tests against `next dev` (with NEXT_DIST_DIR, several at once).
  const dev = options.dev ?? process.env.E2E_NEXT_DEV === '1'
  const distDir = options.distDir ?? (process.env.NEXT_DIST_DIR || '.next')
  if (!dev && !existsSync(path.join(process.cwd(), distDir, 'BUILD_ID')))
    throw new Error('No production build found: run `npm run build` before the browser tests')
  const port = options.port ?? (await freePort())
  const dataDir = options.dataDir ?? createDataDir()
  const baseUrl = `http://127.0.0.1:${port}`
  let output = ''
  // What `npm start` runs (server.mjs in front of Next), so the tests meet the client-address
  // handling users get; `--dev` puts the same server in front of the development server.
  const child: ChildProcess = spawn(
    process.execPath,
    ['server.mjs', ...(dev ? ['--dev'] : []), '-p', String(port), '-H', '127.0.0.1'],
    {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: dev ? 'development' : 'production',
        ...(distDir !== '.next' ? { NEXT_DIST_DIR: distDir } : {}),
        PORT: String(port),
        BASE_URL: baseUrl,
        DATA_DIR: dataDir,
        AUTH_SECRET: E2E_AUTH_SECRET,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const deadline = Date.now() + (dev ? 180_000 : 60_000)
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server.mjs exited with ${child.exitCode}:\n${output}`)
    try {
      const response = await fetch(`${baseUrl}/login`, { redirect: 'manual' })
      if (response.status < 500) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return {
    baseUrl,
    dataDir,
    logs: () => output,
    pid: child.pid ?? 0,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
      }),
  }
}

/**
 * A batch the server stored, opened as its readers open it: sealed with the session's data key
 * (docs/privacy.md#encryption), which is wrapped under a key derived from the server's
 * AUTH_SECRET, not this process's.
 */
export async function openServerBatch(db: Db, blobKey: string, stored: Uint8Array): Promise<Uint8Array> {
  if (!isSealedBytes(stored)) return stored
  const [row] = await db
    .select({ wrappedKey: sessionDataKeys.wrappedKey, kekId: sessionDataKeys.kekId })
    .from(replayBatches)
    .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
    .innerJoin(
      sessionDataKeys,
      and(
        eq(sessionDataKeys.organizationId, replaySessions.organizationId),
        eq(sessionDataKeys.externalId, replaySessions.externalId),
      ),
    )
    .where(eq(replayBatches.blobKey, blobKey))
  if (!row) throw new Error(`no data key for the batch ${blobKey}`)
  const keks = keyEncryptionKeys({ authSecret: E2E_AUTH_SECRET, dataEncryptionKeys: [] })
  return openBytes(stored, unwrapDataKey(row.wrappedKey, row.kekId, keks))
}
