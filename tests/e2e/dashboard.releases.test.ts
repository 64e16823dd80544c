import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, issueSessions, organizations, releases, replaySessions } from '@/db/schema'
import { isSemverVersion } from '@/lib/releases/order'
import { seedIssue } from '@/tests/helpers/seed'
import {
  axeViolations,
  hasHorizontalOverflow,
  phonePage,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { launchChromium } from './server'

/**
 * The Releases pages over a small fixture whose figures are worked out by hand below: the list
 * and a release's page must show exactly those, in the organization's order.
 */

let env: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let page: Page
let baseUrl: string
const consoleErrors: string[] = []

const db = () => env.database.db

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
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await env?.stop()
})

const DAY = 86_400_000
/** Semver, and as long as a release name may be (200 characters) with no place to break it. */
const LONG = `1.2.0-rc.${'x'.repeat(191)}`
/** Not semver: a `/`, a space and a `#`, which a page address must carry encoded. */
const ODD = 'web/2026.11 #5'
const LONG_TITLE = `TypeError: ${'undefinedIsNotAFunction'.repeat(12)}`

let orgId: string
let firstIssueId: string
let secondIssueId: string

/**
 * 1.0.0: sessions s1 (u1, no error), s2 (anonymous a1, 2 errors), s3 (u1, not analysed yet), and
 * an automated one with errors that never counts: 3 sessions, 1 with errors, 2 analysed, so 50%
 * crash-free; users u1 and a1: 2. Issue A first seen here (in s2): 1 new issue, 0 regressions.
 * 1.1.0: s5 (u2), s6 (u3) without errors, s7 (anonymous a2, 1 error): 3 sessions, 1 with errors,
 * 3 analysed, so 66.67%; 3 users. Issue B first seen here (in s7), and A came back in s7 after
 * it was resolved: 1 new issue, 1 regression; seen here: A and B.
 * LONG: declared by CI, no session: 0 everywhere and no crash-free figure.
 */
async function seedFixture() {
  const [organization] = await db().select().from(organizations)
  orgId = organization!.id
  const now = Date.now()
  await db()
    .insert(releases)
    .values([
      { organizationId: orgId, version: '1.0.0', semver: true, firstSeenAt: new Date(now - 3 * DAY) },
      {
        organizationId: orgId,
        version: '1.1.0',
        semver: true,
        firstSeenAt: new Date(now - 2 * DAY),
        deployedAt: new Date(now - 2 * DAY - 3_600_000),
      },
      {
        organizationId: orgId,
        version: LONG,
        semver: isSemverVersion(LONG),
        firstSeenAt: new Date(now - DAY),
      },
    ])
  let n = 0
  const session = (
    release: string,
    who: { userId?: string; anonymousId: string },
    errorCount: number | null,
    automation?: 'webdriver',
  ) => {
    n++
    const startedAt = new Date(now - 60 * 60_000 + n * 1000)
    return {
      organizationId: orgId,
      externalId: `release-session-${n}`,
      status: errorCount === null ? ('receiving' as const) : ('processed' as const),
      startedAt,
      lastActivityAt: startedAt,
      entryUrl: 'https://shop.example/',
      anonymousId: who.anonymousId,
      userId: who.userId ?? null,
      release,
      errorCount,
      automation: automation ?? null,
    }
  }
  const rows = await db()
    .insert(replaySessions)
    .values([
      session('1.0.0', { userId: 'u1', anonymousId: 'a-u1-phone' }, 0),
      session('1.0.0', { anonymousId: 'a1' }, 2),
      session('1.0.0', { userId: 'u1', anonymousId: 'a-u1-laptop' }, null),
      session('1.0.0', { anonymousId: 'bot' }, 5, 'webdriver'),
      session('1.1.0', { userId: 'u2', anonymousId: 'a-u2' }, 0),
      session('1.1.0', { userId: 'u3', anonymousId: 'a-u3' }, 0),
      session('1.1.0', { anonymousId: 'a2' }, 1),
    ])
    .returning({ id: replaySessions.id, externalId: replaySessions.externalId })
  const id = (k: number) => rows.find((row) => row.externalId === `release-session-${k}`)!.id
  const a = await seedIssue(db(), orgId, { title: LONG_TITLE, firstRelease: '1.0.0', priority: 'critical' })
  const b = await seedIssue(db(), orgId, { title: 'Checkout button does nothing', firstRelease: '1.1.0' })
  firstIssueId = a.id
  secondIssueId = b.id
  const at = new Date(now - 30 * 60_000)
  await db()
    .insert(issueSessions)
    .values([
      { issueId: a.id, sessionId: id(2), organizationId: orgId, firstOccurrenceAt: at },
      { issueId: b.id, sessionId: id(7), organizationId: orgId, firstOccurrenceAt: at },
      { issueId: a.id, sessionId: id(7), organizationId: orgId, firstOccurrenceAt: at },
    ])
  await db()
    .insert(issueActivities)
    .values({
      issueId: a.id,
      organizationId: orgId,
      kind: 'regressed',
      fromStatus: 'resolved',
      toStatus: 'unresolved',
      actorType: 'system',
      metadata: { sessionId: id(7), offsetMs: 1200, release: '1.1.0', resolvedInRelease: null },
    })
}

const rowTexts = async () =>
  page.getByTestId('release-row').evaluateAll((rows) =>
    rows.map((row) => {
      const cell = (id: string) => row.querySelector(`[data-testid="${id}"]`)?.textContent?.trim()
      return {
        version: row.querySelector('a')?.textContent,
        sessions: cell('release-sessions'),
        crashFree: cell('release-crash-free'),
        users: cell('release-users'),
        newIssues: cell('release-new-issues'),
        regressions: cell('release-regressions'),
      }
    }),
  )

async function expectNoOverflowOnPhone(path: string, name: string) {
  const phone = await phonePage(context)
  await phone.goto(`${baseUrl}${path}`)
  await phone.locator('h1').first().waitFor()
  expect(await hasHorizontalOverflow(phone), `${path} overflows at 390 px`).toBe(false)
  await screenshot(phone, name)
  return phone
}

describe('the Releases pages in Chromium', () => {
  it('says how releases appear when there are none', async () => {
    await signUpOwner(page, baseUrl)
    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: 'Releases' }).click()
    await page.waitForURL(`${baseUrl}/releases`)
    expect(await nav.getByRole('link', { name: 'Releases' }).getAttribute('aria-current')).toBe('page')
    const empty = page.getByTestId('releases-empty')
    await empty.waitFor()
    const text = (await empty.textContent()) ?? ''
    expect(text).toContain('metadata.release')
    expect(text).toContain('POST /api/v1/releases')
    expect(text).toContain('docs/releases.md')
    await screenshot(page, 'releases-01-empty')
  })

  it('lists the releases latest first with the exact figures of the fixture', async () => {
    await seedFixture()
    await page.reload()
    expect(await page.getByTestId('release-order').textContent()).toContain('Ordered by semver')
    expect(await rowTexts()).toEqual([
      { version: LONG, sessions: '0', crashFree: '–', users: '0', newIssues: '0', regressions: '0' },
      { version: '1.1.0', sessions: '3', crashFree: '66.67%', users: '3', newIssues: '1', regressions: '1' },
      { version: '1.0.0', sessions: '3', crashFree: '50%', users: '2', newIssues: '1', regressions: '0' },
    ])
    expect(await page.getByTestId('release-row').nth(1).textContent()).toContain('deployed')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'releases-02-list')
    const phone = await expectNoOverflowOnPhone('/releases', 'releases-03-list-phone')
    // The phone's menu leads here too.
    await phone.getByRole('button', { name: 'Menu' }).click()
    expect(
      await phone
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Releases' })
        .getAttribute('aria-current'),
    ).toBe('page')
    await phone.close()
    // Seven sections in the header: one row without sideways scrolling on either side of the
    // width where the Menu button takes over, and where the e-mail gives way.
    for (const width of [1041, 1240, 1241]) {
      await page.setViewportSize({ width, height: 900 })
      expect(await hasHorizontalOverflow(page), `the header overflows at ${width} px`).toBe(false)
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("shows a release's figures, adoption and issue lists, linking to the issues", async () => {
    await page.getByTestId('release-row').filter({ hasText: '1.1.0' }).getByRole('link').click()
    await page.waitForURL(`${baseUrl}/releases/1.1.0`)
    expect(await page.getByTestId('release-version').textContent()).toBe('1.1.0')
    const figure = (id: string) => page.getByTestId(id).textContent()
    expect(await figure('figure-sessions')).toBe('3')
    expect(await figure('figure-crash-free')).toBe('66.67%')
    expect(await figure('figure-sessions-with-errors')).toBe('1')
    expect(await figure('figure-users')).toBe('3')
    expect(await figure('figure-new-issues')).toBe('1')
    expect(await figure('figure-regressions')).toBe('1')

    // Every session of the fixture was received today: the adoption figures add up to 3.
    const perDay = await page
      .getByTestId('adoption-table')
      .locator('tbody tr td:nth-child(2)')
      .allTextContents()
    expect(perDay).toHaveLength(30)
    expect(perDay.reduce((sum, cell) => sum + Number(cell), 0)).toBe(3)
    expect(await page.getByTestId('adoption-chart').getAttribute('aria-label')).toContain(
      '3 sessions in the last 30 days',
    )

    const titles = async (list: string) =>
      page.getByTestId(list).getByTestId('release-issue').getByRole('link').allTextContents()
    expect(await titles('issues-new')).toEqual(['Checkout button does nothing'])
    expect(await titles('issues-regressed')).toEqual([LONG_TITLE])
    expect((await titles('issues-seen')).sort()).toEqual(['Checkout button does nothing', LONG_TITLE].sort())
    expect(
      await page.getByTestId('issues-regressed').getByRole('link', { name: LONG_TITLE }).getAttribute('href'),
    ).toBe(`/issues/${firstIssueId}`)
    expect(
      await page
        .getByTestId('issues-new')
        .getByRole('link', { name: 'Checkout button does nothing' })
        .getAttribute('href'),
    ).toBe(`/issues/${secondIssueId}`)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'releases-04-release')
    await (await expectNoOverflowOnPhone('/releases/1.1.0', 'releases-05-release-phone')).close()
    await (
      await expectNoOverflowOnPhone(`/releases/${encodeURIComponent(LONG)}`, 'releases-06-long-release-phone')
    ).close()
  })

  it('names the other order once a release is not semver, and opens a release whose name needs encoding', async () => {
    await db()
      .insert(releases)
      .values({ organizationId: orgId, version: ODD, semver: isSemverVersion(ODD), firstSeenAt: new Date() })
    await page.goto(`${baseUrl}/releases`)
    expect(await page.getByTestId('release-order').textContent()).toContain(
      'Ordered by deploy or first-seen time',
    )
    // By deploy time, else first seen: ODD (now), LONG (a day ago), 1.1.0 (deployed two days ago), 1.0.0.
    expect((await rowTexts()).map((row) => row.version)).toEqual([ODD, LONG, '1.1.0', '1.0.0'])
    await page.getByRole('link', { name: ODD }).click()
    await page.waitForURL(`${baseUrl}/releases/${encodeURIComponent(ODD)}`)
    expect(await page.getByTestId('release-version').textContent()).toBe(ODD)
    expect(await page.getByTestId('figure-crash-free').textContent()).toBe('–')

    for (const path of ['/releases/9.9.9', `/releases/${'9'.repeat(300)}`]) {
      // The page streams behind the dashboard's loading state, so the answer is already 200: the
      // not-found page is what says it, as for an unknown issue or session.
      await page.goto(`${baseUrl}${path}`)
      await page.getByRole('heading', { name: 'Not found' }).waitFor()
    }
    expect(consoleErrors.filter((line) => !/status of 404/.test(line))).toEqual([])
  })
})
