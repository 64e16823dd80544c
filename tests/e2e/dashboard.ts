import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import type { DatabaseHandle } from '@/db/client'
import { createTestDatabase } from '@/tests/helpers/db'
import { type RunningServer, startBuiltServer } from './server'

/**
 * Shared by the dashboard's browser tests: a server on a fresh Postgres database the test can
 * seed and inspect while the server runs (PGlite would be held by the server), first-run
 * sign-up in the browser, and screenshots saved as artefacts of the run.
 */

export const POSTGRES_URL = process.env.E2E_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const SCREENSHOTS = path.join(process.cwd(), 'test-results', 'screenshots')

export interface ServerOnPostgres {
  server: RunningServer
  /** The same database the server uses, migrated, for seeding and assertions. */
  database: DatabaseHandle
  stop(): Promise<void>
}

export async function startServerOnPostgres(env: Record<string, string> = {}): Promise<ServerOnPostgres> {
  const previous = process.env.DATABASE_URL
  process.env.DATABASE_URL = POSTGRES_URL
  let database: Awaited<ReturnType<typeof createTestDatabase>>
  try {
    database = await createTestDatabase()
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL
    else process.env.DATABASE_URL = previous
  }
  if (!database.url) throw new Error('expected a Postgres test database')
  const server = await startBuiltServer({ DATABASE_URL: database.url, ...env })
  return {
    server,
    database,
    async stop() {
      await server.stop()
      await database.close()
    },
  }
}

export const OWNER = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  password: 'analytical engine 1843',
  org: 'Acme',
}

/** First-run sign-up through the real form; leaves the page signed in on the overview. */
export async function signUpOwner(page: Page, baseUrl: string, owner = OWNER): Promise<void> {
  await page.goto(`${baseUrl}/signup`)
  await page.getByLabel('Your name').fill(owner.name)
  await page.getByLabel('E-mail').fill(owner.email)
  await page.getByLabel('Password').fill(owner.password)
  await page.getByLabel('Organization name').fill(owner.org)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL(`${baseUrl}/`)
}

/** Signs in through the real sign-in form and waits for the dashboard. */
export async function signIn(page: Page, baseUrl: string, credentials = OWNER): Promise<void> {
  await page.goto(`${baseUrl}/login`)
  await page.getByLabel('E-mail').fill(credentials.email)
  await page.getByLabel('Password').fill(credentials.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL((url) => !url.pathname.startsWith('/login'))
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  // caret 'initial': hiding it means a style injected into the page, which React can see as a
  // hydration mismatch when the shot is taken early.
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true, caret: 'initial' })
}

/** True when the page is wider than its viewport (a layout that breaks on phones). */
export function hasHorizontalOverflow(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)
}

/** A phone-sized page sharing the context's cookies (signed in as the same user). */
export async function phonePage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage()
  await page.setViewportSize({ width: 390, height: 844 })
  return page
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
let axeSource: string | null = null

interface AxeNode {
  target: unknown[]
  failureSummary?: string
}
interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: AxeNode[]
}

/**
 * WCAG 2.2 AA violations axe-core finds on the page as it is now, one readable line each
 * (rule, impact, help, the elements and why), so a failing test says what to fix.
 *
 * The replay iframe's document is the recorded customer's page, whose markup we do not own,
 * so axe does not go into frames (`iframes: false`); the iframe element itself is still checked.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (axeSource === null) {
    const require = createRequire(import.meta.url)
    axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
  }
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource })
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(...args: unknown[]): Promise<unknown> } }).axe
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      iframes: false,
      resultTypes: ['violations'],
    })) as { violations: unknown }
    return result.violations
  }, AXE_TAGS)
  return (violations as AxeViolation[]).map((violation) => {
    const nodes = violation.nodes
      .slice(0, 5)
      .map(
        (node) => `    ${JSON.stringify(node.target)}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`,
      )
      .join('\n')
    return `${violation.id} (${violation.impact}): ${violation.help}, ${violation.nodes.length} element(s)\n${nodes}`
  })
}

/**
 * What Chromium logs when the replay's sandboxed frame refuses a recorded page's script: the
 * sandbox working, not a problem of the dashboard.
 */
export const SANDBOXED_REPLAY_SCRIPT =
  /^Blocked script execution in '.*' because the document's frame is sandboxed and the 'allow-scripts' permission is not set\.$/
