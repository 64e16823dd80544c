import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations } from '@/db/schema'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import { createTestPki, startReceiver, type TestPki, type TestReceiver } from '@/tests/helpers/webhooks'
import {
  OWNER,
  SANDBOXED_REPLAY_SCRIPT,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { type DemoSite, startDemoSite } from './demo-site'
import { launchChromium } from './server'

/**
 * Issue 8, "Done when": a new user's first hour, in Chromium against the built server: sign up,
 * create an ingest key, record a session on a customer's site carrying the recorder, see the
 * issue it caused, watch its replay, resolve it, read it through the Data API with a key made
 * in the dashboard, create a signal, add a webhook and send it a test. The steps share one
 * installation, so they run in order. Every page visited is saved as a screenshot.
 */

let app: ServerOnPostgres
let browser: Browser
let dashboard: BrowserContext
let page: Page
let demo: DemoSite | undefined
let pki: TestPki
let receiver: TestReceiver
const consoleProblems: string[] = []
const secrets: string[] = [OWNER.password]
let ingestKey: string
let issueId: string
let issueUrl: string

const url = (pathname: string) => `${app.server.baseUrl}${pathname}`
let shots = 0
const shot = (name: string) => screenshot(page, `walkthrough-${String(++shots).padStart(2, '0')}-${name}`)

async function navigate(section: string, subsection?: string) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: section, exact: true })
    .click()
  if (subsection)
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: subsection, exact: true })
      .click()
}

async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
}

beforeAll(async () => {
  pki = createTestPki()
  receiver = await startReceiver(pki.issue(['localhost']))
  const caFile = path.join(tmpdir(), `walkthrough-ca-${process.pid}.pem`)
  writeFileSync(caFile, pki.caCert)
  app = await startServerOnPostgres({
    // The receiver is on this machine with a certificate of the test's own CA.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: caFile,
  })
  browser = await launchChromium()
  dashboard = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await dashboard.newPage()
  page.on('console', (message) => {
    // The replay rebuilds the customer's page, <script> tags included, in rrweb's sandboxed
    // iframe without allow-scripts: Chromium reports each one it refused to run. That refusal
    // is the protection working, not a fault of ours.
    if (message.type() === 'error' && !SANDBOXED_REPLAY_SCRIPT.test(message.text()))
      consoleProblems.push(`${page.url()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => consoleProblems.push(`${page.url()}: ${error.message}`))
})

afterAll(async () => {
  await demo?.stop()
  await browser?.close()
  await app?.stop()
  await receiver?.close()
  pki?.dispose()
})

describe('a new user from sign-up to a webhook test, in Chromium', () => {
  it('signs up and lands on an overview that says how to start', async () => {
    await signUpOwner(page, app.server.baseUrl)
    await page.getByRole('heading', { name: 'Start recording sessions' }).waitFor()
    await shot('overview-new')
  })

  it('creates an ingest key and gets the recorder snippet with it', async () => {
    await navigate('Settings', 'Keys')
    await page.waitForURL(url('/settings/keys'))
    const form = page.getByRole('form', { name: 'Create an ingest key' })
    await form.getByLabel('Key name').fill('Demo shop')
    await form.getByRole('button', { name: 'Create ingest key' }).click()
    const created = page.getByTestId('created-ingest-key')
    await created.waitFor()
    ingestKey = await page.getByTestId('new-ingest-key').inputValue()
    expect(ingestKey).toMatch(/^svc_pk_/)
    secrets.push(ingestKey)
    expect(await created.textContent()).toContain(`${app.server.baseUrl}/sdk.js`)
    await shot('ingest-key-created')
  })

  it('records a session on a demo site carrying the recorder, where the user hits an error', async () => {
    demo = await startDemoSite({ serviceUrl: app.server.baseUrl, apiKey: ingestKey })
    const visitor = await browser.newContext()
    const shop = await visitor.newPage()
    await shop.goto(demo.url)
    await shop.waitForFunction(() => typeof window.SessionReplay !== 'undefined')
    await shop.click('#add-item')
    await shop.click('#add-item')
    await shop.click('#apply-coupon')
    await shop.waitForTimeout(500)
    await screenshot(shop, `walkthrough-${String(++shots).padStart(2, '0')}-demo-site`)
    // The user leaves: the recorder's last batch is final and the session is processed.
    await shop.evaluate(() => window.SessionReplay!.stop())
    await visitor.close()
  })

  it('sees the issue appear in the list', async () => {
    await navigate('Issues')
    await page.waitForURL(url('/issues'))
    const row = await eventually('the TypeError issue', async () => {
      await page.reload()
      const candidate = page.getByTestId('issue-row').filter({ hasText: 'TypeError' })
      return (await candidate.count()) > 0 ? candidate.first() : undefined
    })
    await shot('issues-list')
    await row.getByRole('link').first().click()
    await page.waitForURL(/\/issues\/[0-9a-f-]{36}/)
    issueUrl = page.url()
    issueId = new URL(issueUrl).pathname.split('/').at(-1)!
  })

  it('opens the issue and watches the replay from the moment of the error', async () => {
    await page.getByTestId('evidence-headline').waitFor()
    expect(await page.getByTestId('evidence-headline').textContent()).toContain('TypeError')
    await page.locator('[data-testid="replay-player"][data-state="ready"]').waitFor({ timeout: 90_000 })
    const replayed = page.frameLocator('[data-testid="replay-player"] iframe')
    await replayed.getByText('Apply coupon').waitFor({ timeout: 30_000 })
    const player = page.getByTestId('replay-player')
    const before = Number(await player.getAttribute('data-time'))
    // Play: the replay moves on by itself.
    await player.getByRole('button', { name: 'Play', exact: true }).click()
    await eventually(
      'the replay to play',
      async () => (Number(await player.getAttribute('data-time')) !== before ? true : undefined),
      20_000,
    )
    await shot('issue-replay')
  })

  it('resolves the issue and sees it in the history', async () => {
    await page.getByRole('combobox', { name: 'Status' }).selectOption('resolved')
    await page.getByRole('button', { name: 'Save status' }).click()
    await eventually('the status to change', async () =>
      (await page.getByTestId('issue-status').textContent()) === 'Resolved' ? true : undefined,
    )
    await shot('issue-resolved')
  })

  it('creates a Data API key in the dashboard and reads the issue with it', async () => {
    await navigate('Settings', 'Keys')
    const form = page.getByRole('form', { name: 'Create a Data API key' })
    await form.getByLabel('Key name').fill('CI reader')
    await form.getByRole('button', { name: 'Create Data API key' }).click()
    await page.getByTestId('created-api-key').waitFor()
    const apiKey = await page.getByTestId('new-api-key').inputValue()
    expect(apiKey).toMatch(/^svc_api_/)
    secrets.push(apiKey)
    await shot('api-key-created')

    const response = await fetch(url(`/api/v1/issues/${issueId}`), {
      headers: { Authorization: `Bearer ${apiKey}` },
    })
    expect(response.status).toBe(200)
    const { issue } = (await response.json()) as {
      issue: { id: string; status: string; title: string; previewUrl: string }
    }
    expect(issue).toMatchObject({ id: issueId, status: 'resolved' })
    expect(issue.title).toContain('TypeError')
    expect(issue.previewUrl.startsWith(url(`/issues/${issueId}?session=`))).toBe(true)
    // Without "Allow issue status updates" the key reads but cannot write.
    const write = await fetch(url(`/api/v1/issues/${issueId}`), {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'unresolved' }),
    })
    expect(write.status).toBe(403)
  })

  it('creates a signal', async () => {
    await navigate('Signals')
    await page.waitForURL(url('/signals'))
    await page.getByLabel('Name').fill('Coupon failures')
    await page.getByLabel('Prompt').fill('Users who hit a TypeError when applying a coupon')
    await page.getByRole('button', { name: 'Create signal' }).click()
    await page.getByRole('link', { name: 'Coupon failures' }).waitFor()
    await shot('signal-created')
  })

  it('adds a webhook on the paid plan and sends it a test, signed', async () => {
    const [org] = await app.database.db
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.name, OWNER.org))
    await setOrganizationPlan(app.database.db, { organizationId: org!.id, plan: 'paid' })
    await navigate('Settings', 'Webhooks')
    await page.waitForURL(url('/settings/webhooks'))
    await page.getByLabel('Name').fill('Issue alerts')
    await page.getByLabel('URL (HTTPS)').fill(`https://localhost:${receiver.port}/hooks/session-replay`)
    await page.getByRole('button', { name: 'Create endpoint' }).click()
    const secretBox = page.getByTestId('webhook-secret')
    await secretBox.waitFor()
    const secret = (await secretBox.locator('code').textContent())!.trim()
    expect(secret).toMatch(/^whsec_/)
    secrets.push(secret)
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText(/Delivered: HTTP 200/).waitFor({ timeout: 30_000 })
    await shot('webhook-test-delivered')
    expect(receiver.received).toHaveLength(1)
    const [delivery] = receiver.received
    expect(delivery!.url).toBe('/hooks/session-replay')
    const header = delivery!.headers['service-signature']
    verifyWebhookSignature(delivery!.body, Array.isArray(header) ? header[0] : header, secret)
  })

  it('shows every dashboard page without errors, and saves each as a screenshot', async () => {
    const pages: [string, string][] = [
      ['overview', '/'],
      ['issues', '/issues'],
      ['issue', new URL(issueUrl).pathname],
      ['sessions', '/sessions'],
      ['signals', '/signals'],
      ['insights', '/insights'],
      ['settings-organization', '/settings'],
      ['settings-keys', '/settings/keys'],
      ['settings-mcp', '/settings/mcp'],
      ['settings-webhooks', '/settings/webhooks'],
      ['settings-connected-apps', '/settings/connected-apps'],
    ]
    await page.goto(url('/sessions'))
    const sessionLink = page
      .getByTestId('sessions-table')
      .locator('tbody tr')
      .first()
      .getByRole('link')
      .first()
    pages.push([
      'session',
      new URL(await sessionLink.evaluate((a) => (a as HTMLAnchorElement).href)).pathname,
    ])
    await page.goto(url('/signals'))
    const signalHref = await page.getByRole('link', { name: 'Coupon failures' }).getAttribute('href')
    pages.push(['signal', signalHref!])
    for (const [name, pathname] of pages) {
      const response = await page.goto(url(pathname))
      expect(response?.status(), pathname).toBe(200)
      await page.waitForLoadState('networkidle')
      await shot(`page-${name}`)
    }
    expect(consoleProblems, consoleProblems.join('\n')).toEqual([])
  })

  it('wrote no password, key or webhook secret to the server log', () => {
    const logs = app.server.logs()
    expect(logs.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(logs.includes(secret), 'a secret is in the server log').toBe(false)
  })
})
