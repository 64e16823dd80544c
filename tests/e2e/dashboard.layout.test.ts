import { and, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, memberships, organizations, replaySessions } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { seedRule, seedSlackIntegration } from '@/tests/helpers/alerts'
import { recorderBatches } from '@/tests/helpers/batches'
import { endingNow, loadRecording } from '@/tests/helpers/pipeline'
import { seedInsight, seedSignal } from '@/tests/helpers/seed'
import {
  hasHorizontalOverflow,
  OWNER,
  phonePage,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { E2E_AUTH_SECRET, launchChromium } from './server'

/**
 * Every dashboard page, with data in it, at a desktop and a phone width: no page may be wider
 * than the window or log errors, and each leaves a full-page screenshot in
 * test-results/screenshots/layout-<page>-<width>.png. The checks know nothing of any page's
 * content, so pages can change without this file changing; a new page goes into `pages()`.
 * The data are long on purpose (issue 34): an organization name at the sign-up form's limit, an
 * issue title of 200 characters without a space, long URLs, user ids and e-mail addresses, a
 * stack with source lines of 300 characters, an alert rule with long text.
 * Also here, on the same server: deep links through sign-in, the operator's plan change, the
 * phone's menu and the not-found pages.
 */

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const

/** The next dev server compiles each page on its first visit: minutes, not seconds, for them all. */
const DEV = process.env.E2E_NEXT_DEV === '1'
const WAIT = DEV ? 120_000 : 30_000
const SLOW = DEV ? 900_000 : 120_000

/** One row of header, whatever the names in it: brand, navigation or Menu, organization. */
const HEADER_MAX_HEIGHT = 72

/** The sign-up form's limit (100), in words, as a real organization might be named. */
const LONG_ORG = 'The International Consortium of Remarkably Long Organization Names for Layout Tests Ltd'
const LONG_WORD = 'Cannot_read_properties_of_undefined_reading_checkoutTotal'
const LONG_TITLE = `TypeError:${LONG_WORD.repeat(4)}`.slice(0, 200)
const LONG_URL = `https://shop.example.com/products/${'a-very-long-path-segment-'.repeat(8)}42?campaign=${'x'.repeat(80)}`
const LONG_USER = {
  id: `customer-${'0123456789abcdef'.repeat(7)}`,
  properties: {
    email: `${'late.comer.with.a.long.address'.repeat(2)}@subsidiary.example-shop-international.com`,
    name: 'Late Comer',
  },
}
/** A minified bundle's line as a source map's sourcesContent holds it: one line, no break. */
const LONG_SOURCE_LINE = `export const checkout=(cart)=>${'cart.items.map((item)=>item.price*item.quantity).reduce((a,b)=>a+b,0)+'.repeat(4)}0`

let env: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let baseUrl: string
let orgId: string
let issue: typeof issues.$inferSelect
let sessionId: string
let signalId: string
let insightId: string
let ruleId: string
const consoleErrors: string[] = []

const db = () => env.database.db

beforeAll(async () => {
  env = await startServerOnPostgres()
  baseUrl = env.server.baseUrl
  // The Slack integration behind the alert rule is seeded encrypted under the server's AUTH_SECRET.
  const { BASE_URL: _viteBase, ...processEnv } = process.env
  setConfigForTests(parseConfig({ ...processEnv, AUTH_SECRET: E2E_AUTH_SECRET }))
  browser = await launchChromium()
  context = await browser.newContext()
  context.setDefaultTimeout(WAIT)
  context.setDefaultNavigationTimeout(WAIT)
}, SLOW)

afterAll(async () => {
  setConfigForTests(undefined)
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
    url: LONG_URL,
    user: LONG_USER,
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
  { name: 'releases', path: '/releases' },
  { name: 'settings-organization', path: '/settings' },
  { name: 'settings-keys', path: '/settings/keys' },
  { name: 'settings-mcp', path: '/settings/mcp' },
  { name: 'settings-webhooks', path: '/settings/webhooks' },
  { name: 'settings-integrations', path: '/settings/integrations' },
  { name: 'settings-alerts', path: '/settings/alerts' },
  { name: 'settings-alert', path: `/settings/alerts/${ruleId}` },
  { name: 'settings-source-maps', path: '/settings/source-maps' },
  { name: 'settings-connected-apps', path: '/settings/connected-apps' },
  { name: 'settings-privacy', path: '/settings/privacy' },
  { name: 'settings-masking', path: '/settings/masking' },
  { name: 'settings-audit', path: '/settings/audit' },
]

/** Source context of a mapped frame, every line too long for any column. */
const longContext = (at: number) => ({
  pre: [1, 2, 3].map((n) => `${LONG_SOURCE_LINE}//${at - 4 + n}`),
  line: `${LONG_SOURCE_LINE}//here`,
  post: [1, 2].map((n) => `${LONG_SOURCE_LINE}//${at + n}`),
})

/** The stack of the recorded error as symbolication stores it, with source (docs/source-maps.md). */
const symbolicatedStack = () => ({
  release: `shop@${'2026.11.29-'.repeat(6)}build`,
  frames: [
    {
      minified: { fn: 'a', url: `${LONG_URL}/static/chunks/app.min.js`, line: 1, column: 48_213 },
      original: {
        fn: LONG_WORD,
        source: `webpack://shop/./src/${'features/checkout/'.repeat(6)}total.ts`,
        line: 42,
        column: 7,
        context: longContext(42),
      },
      status: 'mapped',
    },
    {
      minified: { fn: 'b', url: `${LONG_URL}/static/chunks/app.min.js`, line: 1, column: 1_337 },
      original: { fn: null, source: 'src/cart.ts', line: 9, column: 3, context: longContext(9) },
      status: 'mapped',
    },
    {
      minified: { fn: '', url: `${LONG_URL}/vendor.js`, line: 3, column: 99 },
      original: null,
      status: 'no_map',
    },
  ],
})

/**
 * Sidebars (an `aside` or `nav` inside the main column, such as the issue page's triage column
 * and the settings menu) and every column beside them: no overlap, and no column's content wider
 * than the column (the column's own box keeps its place while its content runs on under the
 * sidebar, so comparing column boxes alone would miss it). Long code scrolls in its own box.
 */
function sidebarOverlaps(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = []
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.getAttribute('aria-label') ? `[${element.getAttribute('aria-label')}]` : ''}${element.className ? `.${String(element.className).split(' ')[0]}` : ''}`
    for (const sidebar of document.querySelectorAll('#main aside, #main nav')) {
      const parent = sidebar.parentElement
      // A sidebar stands beside another column: its parent is a grid of two columns or more.
      if (!parent || getComputedStyle(parent).gridTemplateColumns.split(' ').length < 2) continue
      const side = sidebar.getBoundingClientRect()
      for (const column of parent.children) {
        if (column === sidebar) continue
        const box = column.getBoundingClientRect()
        if (box.width === 0 || box.height === 0) continue
        const overlaps =
          box.left < side.right - 1 &&
          side.left < box.right - 1 &&
          box.top < side.bottom - 1 &&
          side.top < box.bottom - 1
        if (overlaps) found.push(`${describe(column)} overlaps ${describe(sidebar)}`)
        // A column that scrolls (or clips) keeps its content in its own box.
        if (getComputedStyle(column).overflowX === 'visible' && column.scrollWidth > column.clientWidth + 1)
          found.push(
            `${describe(column)} beside ${describe(sidebar)} holds content ${column.scrollWidth - column.clientWidth} px wider than itself`,
          )
      }
    }
    return found
  })
}

/** The header's height and how the organization's name is shown in it. */
function headerFacts(page: Page) {
  return page.evaluate(() => {
    const header = document.querySelector('header')!
    const name = document.querySelector<HTMLElement>('[data-testid="header-organization-name"]')!
    const style = getComputedStyle(name)
    return {
      headerHeight: header.getBoundingClientRect().height,
      text: name.textContent,
      title: name.title,
      visible: name.getBoundingClientRect().width > 0,
      ellipsis: style.textOverflow === 'ellipsis' && style.whiteSpace === 'nowrap',
      cut: name.scrollWidth > name.clientWidth,
      // 'normal' line height is about 1.2 font sizes: two lines would be at least 2.4.
      oneLine: name.getBoundingClientRect().height < 2 * Number.parseFloat(style.fontSize) * 1.2,
    }
  })
}

describe('every dashboard page', () => {
  it(
    'has data to show: a recorded session with an issue, a signal, an insight and an alert rule',
    async () => {
      const page = await context.newPage()
      watchConsole(page)
      await signUpOwner(page, baseUrl, { ...OWNER, org: LONG_ORG })
      await page.close()
      const [org] = await db().select().from(organizations)
      orgId = org!.id
      const { key } = await createKey(db(), { organizationId: orgId, type: 'ingest' })
      await ingestRecording(key)
      const recorded = await until('the recorded error to become an issue', async () => {
        const [row] = await db()
          .select()
          .from(issues)
          .where(and(eq(issues.organizationId, orgId), eq(issues.kind, 'js_error')))
        return row
      })
      // A title without a space and a stack with source, as symbolication would have stored them.
      const [updated] = await db()
        .update(issues)
        .set({
          title: LONG_TITLE,
          evidence: { ...recorded.evidence, pageUrl: LONG_URL, ...symbolicatedStack() },
        })
        .where(eq(issues.id, recorded.id))
        .returning()
      issue = updated!
      const [session] = await db()
        .select()
        .from(replaySessions)
        .where(eq(replaySessions.organizationId, orgId))
      sessionId = session!.id
      signalId = (
        await seedSignal(db(), orgId, {
          name: 'Errors after a click',
          prompt: 'a JavaScript error after a click',
        })
      ).id
      insightId = (await seedInsight(db(), orgId)).id
      const [membership] = await db().select().from(memberships)
      const slack = await seedSlackIntegration(db(), orgId, 'https://hooks.slack.com/services/T/B/x')
      ruleId = (
        await seedRule(db(), {
          organizationId: orgId,
          createdByUserId: membership!.userId,
          name: `Checkout_${'errors_'.repeat(8)}`.slice(0, 64),
          trigger: 'issue_created',
          filters: { priorities: ['critical', 'high'], urlContains: LONG_URL.slice(0, 200) },
          integrationId: slack.id,
          mode: 'immediate',
          windowMinutes: 15,
          maxPerWindow: 5,
          issueCooldownMinutes: 60,
        })
      ).id
    },
    SLOW,
  )

  for (const size of WIDTHS)
    it(
      `fits ${size.width} px, one header row and no column under a sidebar, without console errors`,
      async () => {
        const page = await context.newPage()
        watchConsole(page)
        await page.setViewportSize(size)
        const overflowing: string[] = []
        const overlapping: string[] = []
        const headers: string[] = []
        for (const { name, path } of pages()) {
          const response = await page.goto(`${baseUrl}${path}`)
          expect(response?.status(), path).toBe(200)
          await page.locator('h1').first().waitFor()
          if (await hasHorizontalOverflow(page)) overflowing.push(path)
          for (const overlap of await sidebarOverlaps(page)) overlapping.push(`${path}: ${overlap}`)
          const header = await headerFacts(page)
          if (header.headerHeight > HEADER_MAX_HEIGHT) headers.push(`${path}: ${header.headerHeight} px`)
          await screenshot(page, `layout-${name}-${size.width}`)
        }

        // The organization's whole name is there for the title tooltip and screen readers; on the
        // screen it is one line cut with an ellipsis.
        const header = await headerFacts(page)
        expect(header).toEqual({
          headerHeight: header.headerHeight,
          text: LONG_ORG,
          title: LONG_ORG,
          visible: true,
          ellipsis: true,
          cut: true,
          oneLine: true,
        })
        await page.close()
        expect(overflowing, `pages wider than ${size.width} px`).toEqual([])
        expect(overlapping, 'columns under a sidebar').toEqual([])
        expect(headers, `headers taller than ${HEADER_MAX_HEIGHT} px`).toEqual([])
        expect(consoleErrors).toEqual([])
      },
      SLOW,
    )

  it(
    'shows the stack with source on the issue page, its long lines scrolling inside their own box',
    async () => {
      const page = await context.newPage()
      watchConsole(page)
      await page.setViewportSize(WIDTHS[0])
      await page.goto(`${baseUrl}/issues/${issue.id}`)
      const source = page.getByTestId('frame-context').first()
      await source.waitFor()
      const box = await source.evaluate((pre) => ({
        scrolls: pre.scrollWidth > pre.clientWidth,
        overflowX: getComputedStyle(pre).overflowX,
      }))
      expect(box).toEqual({ scrolls: true, overflowX: 'auto' })
      const [column, triage] = await Promise.all([
        source.evaluate((pre) => pre.closest('section')!.getBoundingClientRect().right),
        page
          .getByRole('complementary', { name: 'Triage' })
          .evaluate((aside) => aside.getBoundingClientRect().left),
      ])
      expect(column).toBeLessThanOrEqual(triage)
      await page.close()
      expect(consoleErrors).toEqual([])
    },
    SLOW,
  )
})

describe('the header on a phone', () => {
  it(
    'keeps the navigation behind a Menu button that opens and closes from the keyboard',
    async () => {
      const page = await phonePage(context)
      watchConsole(page)
      await page.goto(`${baseUrl}/issues`)
      const menu = page.getByRole('button', { name: 'Menu' })
      const nav = page.getByRole('navigation', { name: 'Main' })
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await nav.isVisible()).toBe(false)

      await menu.focus()
      await page.keyboard.press('Enter')
      expect(await menu.getAttribute('aria-expanded')).toBe('true')
      expect(await nav.getByRole('link', { name: 'Issues' }).getAttribute('aria-current')).toBe('page')
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Overview')
      await page.keyboard.press('Escape')
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Menu')

      // A link in the menu leads to its page, and the menu is closed there.
      await menu.click()
      await nav.getByRole('link', { name: 'Sessions' }).click()
      await page.waitForURL(`${baseUrl}/sessions`)
      await page.locator('h1').first().waitFor()
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      const height = await page
        .locator('header')
        .evaluate((header: HTMLElement) => header.getBoundingClientRect().height)
      expect(height).toBeLessThanOrEqual(HEADER_MAX_HEIGHT)
      await page.close()
      expect(consoleErrors).toEqual([])
    },
    SLOW,
  )
})

describe('pages that do not exist', () => {
  it(
    'an unknown address answers 404 with the branded page, signed in or not',
    async () => {
      const plain = await fetch(`${baseUrl}/no-such-page/at-all`)
      expect(plain.status).toBe(404)
      expect(await plain.text()).toContain('Session Replay Issues')
      // A path Next cannot decode is the client's error, never Next's bare 500.
      for (const path of ['/issues/%zz', '/releases/%E0%A4%A', '/api/v1/issues/%zz'])
        expect((await fetch(`${baseUrl}${path}`)).status, path).toBe(400)

      const page = await context.newPage()
      // Not watchConsole: Chromium logs the 404 document itself as a failed resource.
      page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`))
      const response = await page.goto(`${baseUrl}/no-such-page`)
      expect(response?.status()).toBe(404)
      await page.getByRole('heading', { name: 'Page not found' }).waitFor()
      expect(await page.getByRole('link', { name: 'Session Replay Issues' }).getAttribute('href')).toBe('/')
      expect(await page.getByRole('link', { name: 'Go to issues' }).getAttribute('href')).toBe('/issues')
      await page.setViewportSize(WIDTHS[1])
      expect(await hasHorizontalOverflow(page)).toBe(false)
      await screenshot(page, 'layout-not-found-390')
      await page.close()
      expect(consoleErrors).toEqual([])
    },
    SLOW,
  )

  it(
    "an unknown issue or session inside the dashboard shows the dashboard's not-found page",
    async () => {
      const page = await context.newPage()
      watchConsole(page)
      for (const path of ['/issues/unknown-id', '/sessions/nope']) {
        await page.goto(`${baseUrl}${path}`)
        await page.getByRole('heading', { name: 'Not found' }).waitFor()
        expect(await page.getByRole('link', { name: 'Go to issues' }).getAttribute('href')).toBe('/issues')
      }
      await page.close()
      expect(consoleErrors).toEqual([])
    },
    SLOW,
  )
})

describe('deep links', () => {
  it(
    "a signed-out issue link (the issue's previewUrl) lands on that issue after sign-in",
    async () => {
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
    },
    SLOW,
  )
})

describe('plans', () => {
  it(
    'the instance operator changes the plan on the organization page, which unlocks webhooks',
    async () => {
      // The installation's first organization starts on the highest plan (issue 34); this one is
      // set back to free, as a later organization on the default plan would start.
      await db().update(organizations).set({ plan: 'free' }).where(eq(organizations.id, orgId))
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
    },
    SLOW,
  )
})
