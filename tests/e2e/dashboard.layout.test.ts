import { and, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, organizations, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { recorderBatches } from '@/tests/helpers/batches'
import { endingNow, loadRecording } from '@/tests/helpers/pipeline'
import { seedInsight, seedSignal } from '@/tests/helpers/seed'
import {
  hasHorizontalOverflow,
  OWNER,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { launchChromium } from './server'

/**
 * Every dashboard page, with data in it, at a desktop and a phone width: no page may be wider
 * than the window or log errors, and each leaves a full-page screenshot in
 * test-results/screenshots/layout-<page>-<width>.png. The checks know nothing of any page's
 * content, so pages can change without this file changing; a new page goes into `pages()`.
 * Also here, on the same server: deep links through sign-in and the operator's plan change.
 */

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const

let env: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let baseUrl: string
let orgId: string
let issue: typeof issues.$inferSelect
let sessionId: string
let signalId: string
let insightId: string
const consoleErrors: string[] = []

const db = () => env.database.db

beforeAll(async () => {
  env = await startServerOnPostgres()
  baseUrl = env.server.baseUrl
  browser = await launchChromium()
  context = await browser.newContext()
})

afterAll(async () => {
  await browser?.close()
  await env?.stop()
})

/** A missing favicon is the one resource the dashboard may fail to load. */
function isRealError(message: ConsoleMessage): boolean {
  return message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')
}

function watchConsole(page: Page): void {
  page.on('console', (message) => {
    if (isRealError(message)) consoleErrors.push(`${page.url()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`))
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${env.server.logs().slice(-3000)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A real recording through the running server's ingest API, ended, so it is analysed. */
async function ingestRecording(key: string) {
  const batches = recorderBatches({
    sessionId: 'layout-session',
    events: endingNow(loadRecording('js-error-after-click').events, 60_000),
    perBatch: 40,
    url: 'https://shop.example.com/products/42',
    user: { properties: { email: 'late@example.com', name: 'Late Comer' } },
    userAgent:
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  })
  for (const batch of batches) {
    const response = await fetch(`${baseUrl}/api/sdk/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': key },
      body: JSON.stringify(batch),
    })
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
  }
}

const pages = () => [
  { name: 'overview', path: '/' },
  { name: 'sessions', path: '/sessions' },
  { name: 'session', path: `/sessions/${sessionId}` },
  { name: 'issues', path: '/issues' },
  { name: 'issue', path: `/issues/${issue.id}` },
  { name: 'signals', path: '/signals' },
  { name: 'signal', path: `/signals/${signalId}` },
  { name: 'insights', path: '/insights' },
  { name: 'insight', path: `/insights/${insightId}` },
  { name: 'settings-organization', path: '/settings' },
  { name: 'settings-keys', path: '/settings/keys' },
  { name: 'settings-mcp', path: '/settings/mcp' },
  { name: 'settings-webhooks', path: '/settings/webhooks' },
  { name: 'settings-connected-apps', path: '/settings/connected-apps' },
]

describe('every dashboard page', () => {
  it('has data to show: a recorded session with an issue, a signal and an insight', async () => {
    const page = await context.newPage()
    watchConsole(page)
    await signUpOwner(page, baseUrl)
    await page.close()
    const [org] = await db().select().from(organizations)
    orgId = org!.id
    const { key } = await createKey(db(), { organizationId: orgId, type: 'ingest' })
    await ingestRecording(key)
    issue = await until('the recorded error to become an issue', async () => {
      const [row] = await db()
        .select()
        .from(issues)
        .where(and(eq(issues.organizationId, orgId), eq(issues.kind, 'js_error')))
      return row
    })
    const [session] = await db().select().from(replaySessions).where(eq(replaySessions.organizationId, orgId))
    sessionId = session!.id
    signalId = (
      await seedSignal(db(), orgId, {
        name: 'Errors after a click',
        prompt: 'a JavaScript error after a click',
      })
    ).id
    insightId = (await seedInsight(db(), orgId)).id
  })

  for (const size of WIDTHS)
    it(`fits ${size.width} px and renders without console errors`, async () => {
      const page = await context.newPage()
      watchConsole(page)
      await page.setViewportSize(size)
      const overflowing: string[] = []
      for (const { name, path } of pages()) {
        const response = await page.goto(`${baseUrl}${path}`)
        expect(response?.status(), path).toBe(200)
        await page.locator('h1').first().waitFor()
        if (await hasHorizontalOverflow(page)) overflowing.push(path)
        await screenshot(page, `layout-${name}-${size.width}`)
      }
      await page.close()
      expect(overflowing, `pages wider than ${size.width} px`).toEqual([])
      expect(consoleErrors).toEqual([])
    })
})

describe('deep links', () => {
  it("a signed-out issue link (the issue's previewUrl) lands on that issue after sign-in", async () => {
    const preview = new URL(issue.previewUrl!)
    expect(preview.searchParams.get('session')).toBe(sessionId)
    const target = `${preview.pathname}${preview.search}`
    const signedOut = await browser.newContext()
    const page = await signedOut.newPage()
    watchConsole(page)
    await page.goto(`${baseUrl}${target}`)
    await page.waitForURL((url) => url.pathname === '/login')
    expect(new URL(page.url()).searchParams.get('callbackUrl')).toBe(target)
    await page.getByLabel('E-mail').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${baseUrl}${target}`)
    await page.locator('h1').first().waitFor()
    expect(await page.locator('h1').first().textContent()).toContain(issue.title.slice(0, 40))

    // Only this site's own paths: a link that would leave it falls back to the overview.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login\?signedOut=1$/)
    for (const evil of ['//evil.example/issues', '/\\evil.example', 'https://evil.example/']) {
      await page.goto(`${baseUrl}/login?callbackUrl=${encodeURIComponent(evil)}`)
      await page.getByLabel('E-mail').fill(OWNER.email)
      await page.getByLabel('Password').fill(OWNER.password)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.waitForURL(`${baseUrl}/`)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(/\/login\?signedOut=1$/)
    }
    await signedOut.close()
    expect(consoleErrors).toEqual([])
  })
})

describe('plans', () => {
  it('the instance operator changes the plan on the organization page, which unlocks webhooks', async () => {
    const page = await context.newPage()
    watchConsole(page)
    await page.setViewportSize(WIDTHS[0])
    await page.goto(`${baseUrl}/settings/webhooks`)
    expect(await page.getByTestId('paid-plan-note').textContent()).toContain('Settings → Organization')
    expect(await page.getByRole('button', { name: 'Create endpoint' }).isDisabled()).toBe(true)

    await page.goto(`${baseUrl}/settings`)
    expect(await page.getByTestId('organization-id').textContent()).toBe(orgId)
    expect(await page.getByTestId('organization-plan').textContent()).toBe('free')
    const form = page.getByRole('form', { name: 'Change the plan' })
    await form.getByLabel('Plan').selectOption('paid')
    await form.getByRole('button', { name: 'Change plan' }).click()
    await expect(form.getByRole('status').textContent()).resolves.toBe(
      'The organization is now on the paid plan.',
    )
    const [org] = await db().select().from(organizations).where(eq(organizations.id, orgId))
    expect(org!.plan).toBe('paid')

    await page.goto(`${baseUrl}/settings/webhooks`)
    await page.getByRole('heading', { name: 'New endpoint' }).waitFor()
    expect(await page.getByTestId('paid-plan-note').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Create endpoint' }).isEnabled()).toBe(true)
    await screenshot(page, 'layout-settings-webhooks-paid-1280')
    await page.close()
    expect(consoleErrors).toEqual([])
  })
})
