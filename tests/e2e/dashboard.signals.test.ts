import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, replaySessions, signalMatches, signals } from '@/db/schema'
import type { SessionDigest } from '@/lib/analysis/types'
import { seedInsight } from '@/tests/helpers/seed'
import {
  hasHorizontalOverflow,
  phonePage,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { launchChromium } from './server'

let env: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let page: Page
let baseUrl: string
const consoleErrors: string[] = []

beforeAll(async () => {
  env = await startServerOnPostgres()
  baseUrl = env.server.baseUrl
  browser = await launchChromium()
  context = await browser.newContext()
  page = await context.newPage()
  await page.setViewportSize({ width: 1280, height: 900 })
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`))
})

afterAll(async () => {
  await browser?.close()
  await env?.stop()
})

const db = () => env.database.db
// Not getByRole('alert'): Next's route announcer is an alert region too.
const createError = () => page.getByTestId('create-signal-error')

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

async function expectNoOverflowOnPhone(path: string, name: string) {
  const phone = await phonePage(context)
  await phone.goto(`${baseUrl}${path}`)
  await phone.locator('h1').first().waitFor()
  await screenshot(phone, name)
  expect(await hasHorizontalOverflow(phone), `${path} overflows at 390 px`).toBe(false)
  await phone.close()
}

describe('signals and insights in the dashboard', () => {
  let signalId: string

  it('explains signals when there are none, and refuses an empty prompt', async () => {
    await signUpOwner(page, baseUrl)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signals' }).click()
    await page.waitForURL(`${baseUrl}/signals`)
    await page.getByTestId('signals-empty').waitFor()
    expect(await page.getByTestId('signals-empty').textContent()).toContain('failed request on /checkout')
    await screenshot(page, 'signals-01-empty')

    await page.getByLabel('Name').fill('Checkout failures')
    // Only spaces: the browser's `required` accepts it, the server's validation does not.
    await page.getByLabel('Prompt').fill('   ')
    await page.getByRole('button', { name: 'Create signal' }).click()
    await createError().waitFor()
    expect(await createError().textContent()).toBe('Signal prompt must be at least 3 characters')
    // What was typed stays for the user to fix; nothing was created.
    expect(await page.getByLabel('Name').inputValue()).toBe('Checkout failures')
    expect(await db().select().from(signals)).toHaveLength(0)
    await screenshot(page, 'signals-02-validation-error')
  })

  it('creates a signal from an example and shows its scan of past sessions', async () => {
    await page.getByRole('button', { name: 'Use example: failed request on /checkout' }).click()
    expect(await page.getByLabel('Prompt').inputValue()).toBe('failed request on /checkout')
    await page.getByLabel('Name').fill('Checkout failures')
    await page.getByRole('button', { name: 'Create signal' }).click()
    await page.getByText('Signal “Checkout failures” created').waitFor()
    const row = page.getByTestId('signal-row').filter({ hasText: 'Checkout failures' })
    await row.waitFor()
    expect(['Scanning soon…', 'Scanning past sessions…', 'Past 30 days scanned']).toContain(
      await row.getByTestId('backfill-status').textContent(),
    )
    const [created] = await db().select().from(signals)
    expect(created).toMatchObject({ name: 'Checkout failures', prompt: 'failed request on /checkout' })
    signalId = created!.id
    // The backfill is handed to the jobs engine at once, not left for the next sweep.
    await until('the backfill to complete', async () => {
      const [row] = await db().select().from(signals).where(eq(signals.id, signalId))
      return row?.backfillStatus === 'completed'
    })
    await page.reload()
    expect(await row.getByTestId('backfill-status').textContent()).toBe('Past 30 days scanned')
    await screenshot(page, 'signals-03-listed')
  })

  it('pauses and resumes a signal from the list', async () => {
    const row = page.getByTestId('signal-row').filter({ hasText: 'Checkout failures' })
    await row.getByRole('button', { name: 'Pause Checkout failures' }).click()
    await row.getByText('paused', { exact: true }).waitFor()
    await row.getByRole('button', { name: 'Resume Checkout failures' }).waitFor()
    expect((await db().select().from(signals).where(eq(signals.id, signalId)))[0]!.status).toBe('paused')
    await screenshot(page, 'signals-04-paused')
    await row.getByRole('button', { name: 'Resume Checkout failures' }).click()
    await row.getByText('active', { exact: true }).waitFor()
    expect((await db().select().from(signals).where(eq(signals.id, signalId)))[0]!.status).toBe('active')
    await expectNoOverflowOnPhone('/signals', 'signals-05-list-phone')
  })

  it('opens a signal with its matched sessions and evidence', async () => {
    const [organization] = await db().select().from(organizations)
    const startedAt = new Date(Date.now() - 5 * 60_000)
    const [session] = await db()
      .insert(replaySessions)
      .values({
        organizationId: organization!.id,
        externalId: 'e2e-session',
        status: 'processed',
        startedAt,
        lastActivityAt: startedAt,
        entryUrl: 'https://shop.example/checkout?step=pay',
        anonymousId: 'anon-e2e',
        userEmail: 'grace@example.com',
        durationMs: 95_000,
        errorCount: 1,
      })
      .returning()
    await db()
      .insert(signalMatches)
      .values({
        organizationId: organization!.id,
        signalId,
        sessionId: session!.id,
        evidence: { matcher: 'deterministic', conditions: ['network'], paths: ['/checkout'], keywords: [] },
      })
    await db().update(signals).set({ matchCount: 1, lastMatchAt: new Date() }).where(eq(signals.id, signalId))

    await page.goto(`${baseUrl}/signals`)
    await page.getByRole('link', { name: 'Checkout failures' }).click()
    await page.waitForURL(`${baseUrl}/signals/${signalId}`)
    await page.getByRole('heading', { name: 'Checkout failures', level: 1 }).waitFor()
    expect(await page.getByTestId('signal-match-count').textContent()).toBe('1')
    const match = page.getByTestId('match-row')
    expect(await match.count()).toBe(1)
    expect(await match.textContent()).toContain('Session had a failed request; visited /checkout')
    expect(await match.getByRole('link', { name: 'grace@example.com' }).getAttribute('href')).toBe(
      `/sessions/${session!.id}`,
    )
    await screenshot(page, 'signals-06-detail')
    await expectNoOverflowOnPhone(`/signals/${signalId}`, 'signals-07-detail-phone')
  })

  it('deletes a signal only after confirmation, with its matches', async () => {
    await page.getByRole('button', { name: 'Delete Checkout failures' }).click()
    const confirm = page.getByRole('group', { name: 'Confirm deleting Checkout failures' })
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain(
      'Delete Checkout failures and its 1 match? This cannot be undone.',
    )
    await screenshot(page, 'signals-08-confirm-delete')
    // Cancel (here with Escape) changes nothing and gives the focus back.
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Delete Checkout failures' }).waitFor()
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Delete Checkout failures',
    )
    expect(await db().select().from(signals)).toHaveLength(1)

    await page.getByRole('button', { name: 'Delete Checkout failures' }).click()
    await page.getByRole('button', { name: 'Delete signal' }).click()
    await page.waitForURL(`${baseUrl}/signals?deleted=1`)
    await page.getByText('The signal and its matches were deleted.').waitFor()
    await page.getByTestId('signals-empty').waitFor()
    expect(await db().select().from(signals)).toHaveLength(0)
    expect(await db().select().from(signalMatches)).toHaveLength(0)
    // The deleted signal's page is gone (the status is already sent when the page streams).
    await page.goto(`${baseUrl}/signals/${signalId}`)
    await page.getByRole('heading', { name: 'Not found' }).waitFor()
  })

  it('previews how a prompt is read and how many recent sessions it matches, before saving', async () => {
    // An analysed session whose only trace of /api/pay is a failed request (issue 15 #7).
    const [organization] = await db().select().from(organizations)
    const at = Date.now() - 60_000
    const digest: SessionDigest = {
      durationMs: 30_000,
      pages: [{ url: 'https://shop.example/cart', pathPattern: '/cart', at }],
      clicks: [{ text: 'Pay', selector: 'button#pay', url: 'https://shop.example/cart', at }],
      inputs: [],
      errors: [],
      networkFailures: [{ method: 'POST', url: 'https://shop.example/api/pay', status: 502, at }],
      rageClicks: [],
      deadClicks: [],
    }
    await db()
      .insert(replaySessions)
      .values({
        organizationId: organization!.id,
        externalId: 'e2e-preview',
        status: 'processed',
        startedAt: new Date(at),
        lastActivityAt: new Date(at),
        entryUrl: 'https://shop.example/cart',
        anonymousId: 'anon-preview',
        digest: digest as unknown as Record<string, unknown>,
      })
    await page.goto(`${baseUrl}/signals`)
    const previewButton = page.getByRole('button', { name: 'Preview matches' })
    expect(await previewButton.isDisabled()).toBe(true)
    await page.getByLabel('Prompt').fill('failed request on /api/pay')
    await previewButton.click()
    const count = page.getByTestId('signal-preview-count')
    await count.waitFor()
    expect(await page.getByTestId('signal-preview-reading').locator('li').allTextContents()).toEqual([
      'a request failed',
      'the user visited /api/pay or a page below it, or a request to it failed',
    ])
    expect(await count.textContent()).toBe('Matches 1 of the latest 1 analysed session of the last 7 days.')
    await screenshot(page, 'signals-09-preview')

    // Editing the prompt says the preview is stale until it is run again.
    await page.getByLabel('Prompt').fill('failed request on /api/refund')
    await page.getByText('The prompt changed since this preview').waitFor()
    await previewButton.click()
    await page.getByText('Matches 0 of the latest 1 analysed session of the last 7 days.').waitFor()
    await page.getByLabel('Prompt').fill('why do they go')
    await previewButton.click()
    await page.getByText('Nothing in this prompt can be checked by the keyword rules').waitFor()
    // A preview saves nothing.
    expect(await db().select().from(signals)).toHaveLength(0)

    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, 'signals-10-preview-phone')
    expect(await hasHorizontalOverflow(page), '/signals with a preview overflows at 390 px').toBe(false)
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it('lists insights and renders one from its Markdown, without raw HTML', async () => {
    await page.goto(`${baseUrl}/insights`)
    await page.getByTestId('insights-empty').waitFor()
    expect(await page.getByTestId('insights-empty').textContent()).toContain('every 24 hours')
    await screenshot(page, 'insights-01-empty')

    const [organization] = await db().select().from(organizations)
    const start = new Date('2026-11-20T00:00:00.000Z')
    const insight = await seedInsight(db(), organization!.id, {
      intervalStart: start,
      intervalEnd: new Date(start.getTime() + 86_400_000),
      sessionsCount: 128,
      content: [
        '# 128 sessions from 90 users',
        '',
        '**What changed:** failed requests on /checkout rose 4×.',
        '',
        '## Friction',
        '- JavaScript errors in 3% of sessions',
        '- Failed requests in 12% of sessions',
        '',
        'See [the status page](https://status.example.com) and <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>',
      ].join('\n'),
      contentPreview: '128 sessions from 90 users What changed: failed requests on /checkout rose 4×.',
    })
    await page.reload()
    const item = page.getByTestId('insight-item')
    expect(await item.count()).toBe(1)
    expect(await item.textContent()).toContain('128 sessions')
    await screenshot(page, 'insights-02-list')
    await item.getByRole('link', { name: '2026-11-20 00:00 – 2026-11-21 00:00 UTC' }).click()
    await page.waitForURL(`${baseUrl}/insights/${insight.id}`)
    const content = page.getByTestId('insight-content')
    await content.getByRole('heading', { name: '128 sessions from 90 users', level: 2 }).waitFor()
    await content.getByRole('heading', { name: 'Friction', level: 3 }).waitFor()
    expect(await content.getByRole('listitem').allTextContents()).toEqual([
      'JavaScript errors in 3% of sessions',
      'Failed requests in 12% of sessions',
    ])
    const link = content.getByRole('link', { name: 'the status page' })
    expect(await link.getAttribute('target')).toBe('_blank')
    expect(await link.getAttribute('rel')).toContain('noopener')
    expect(await content.locator('img, script').count()).toBe(0)
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined()
    await page.getByText('This insight names no issues.').waitFor()
    await screenshot(page, 'insights-03-detail')
    await expectNoOverflowOnPhone('/insights', 'insights-04-list-phone')
    await expectNoOverflowOnPhone(`/insights/${insight.id}`, 'insights-05-detail-phone')
  })

  it('rendered and hydrated every page without errors in the browser console', () => {
    // A missing favicon is the only resource the dashboard may fail to load. A screenshot taken
    // before hydration finishes makes Playwright's caret hiding (an inline caret-color on the
    // inputs) show up as a mismatch; that one is the test's own doing.
    const onlyCaret = (e: string) => {
      const diff = e.split('\n').filter((line) => /^[-+]\s{2,}/.test(line))
      return diff.length > 0 && diff.every((line) => line.includes('caret-color'))
    }
    const real = consoleErrors.filter((e) => !e.includes('Failed to load resource') && !onlyCaret(e))
    expect(real).toEqual([])
  })
})
