/**
 * Issue 36, "Done when" (the browser test): a site ships releases 1.0.0 (a button throws a
 * TypeError), 2.0.0 (fixed) and 3.0.0 (the bug back), recorded in a person's Chromium (no
 * automation switch: sessions from automation never count, so they could not show any of this).
 *
 * - 1.0.0 throws: an issue. It is resolved "in the next release".
 * - A session still on 1.0.0 throws again: the issue stays resolved, the session is counted as
 *   an occurrence in an older release.
 * - 2.0.0 is visited: no occurrence, and 2.0.0, the first release seen after the resolution,
 *   becomes the release the fix is in.
 * - The reproduction suite downloaded from the API (as a CI step would fetch it) passes against
 *   2.0.0 and fails against 1.0.0; its reporter posts both results, and the issue shows them.
 * - 3.0.0 throws again: the issue reopens as a regression naming 3.0.0, and the issue page says so.
 *
 * The releases are named as semver ('1.0.0', not 'v1': semver needs major.minor.patch, see
 * isSemverVersion in lib/releases/order.ts). When every release of an organization is semver,
 * "later" is semver order (docs/releases.md#order), so 3.0.0 >= 2.0.0 > 1.0.0 holds by the names
 * alone; names like 'v1' would be ordered by when the server first saw each, which this story
 * would satisfy only through the order of its own steps.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { eventually, waitFor } from '../helpers/wait'
import { type ServerOnPostgres, screenshot, signUpOwner, startServerOnPostgres } from './dashboard'
import { spawnPlaywright } from './playwright-run'
import { type ReleaseSite, startReleaseSite } from './release-site'
import { CHROMIUM_PATH, launchChromium } from './server'

// Inside the checkout, so the bundle's files resolve @playwright/test from its node_modules; not
// under test-results/, which Playwright's runs may clear.
const BUNDLE_DIR = path.join(process.cwd(), '.data', `e2e-releases-${process.pid}`)
const WRAPPER_CONFIG = 'e2e-chromium.config.mjs'

let env: ServerOnPostgres
let browser: Browser
let dashboard: BrowserContext
let page: Page
let site: ReleaseSite
/** read:service + write:issues: what the story reads and how it resolves. */
let apiKey: string
/** write:verifications alone: the CI secret the bundle's reporter posts with. */
let verifyKey: string
let issueId: string
/** The extracted bundle's folder: its Playwright configuration, reporter, manifest and tests. */
let bundleRoot: string

interface OldReleaseOccurrence {
  release: string | null
  sessions: number
  lastSeenAt: string
}
interface Verification {
  id: string
  status: 'passed' | 'failed'
  release: string | null
  baseUrl: string
  summary: string | null
  durationMs: number | null
  runner: 'playwright' | 'agent'
  createdAt: string
}
interface IssueDetail {
  id: string
  title: string
  status: string
  sessionCount: number
  resolvedInRelease: string | null
  resolvedInNextRelease: boolean
  resolvedAt: string | null
  oldReleaseOccurrences: OldReleaseOccurrence[]
  regression: {
    release: string | null
    resolvedInRelease: string | null
    sessionId: string
    at: string
  } | null
  verifications: Verification[]
}
interface ListedSession {
  id: string
  status: string
  release: string | null
}

const api = (pathname: string) => `${env.server.baseUrl}/api/v1${pathname}`

async function dataApi<T>(pathname: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(api(pathname), {
    ...init,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...init.headers },
  })
  expect(response.status, `${init.method ?? 'GET'} ${pathname}: ${await response.clone().text()}`).toBe(200)
  return (await response.json()) as T
}

const issue = async () => (await dataApi<{ issue: IssueDetail }>(`/issues/${issueId}`)).issue

/** A person's sessions of one release (automated traffic is left out by default). */
const sessionsOf = async (release: string) =>
  (await dataApi<{ sessions: ListedSession[] }>(`/sessions?limit=100&release=${encodeURIComponent(release)}`))
    .sessions

/**
 * A person's visit to the release the site serves: a click on "Apply coupon", then the recorder
 * stopped, whose final batch has the server analyse the session at once. Waits until the
 * session is processed and answers its id.
 */
async function visit(release: string, build: { buggy: boolean }): Promise<string> {
  site.serve(release, build)
  const before = new Set((await sessionsOf(release)).map((session) => session.id))
  const context = await browser.newContext()
  const shop = await context.newPage()
  await shop.goto(site.url)
  await shop.waitForFunction(() => typeof window.SessionReplay !== 'undefined')
  const thrown = build.buggy ? shop.waitForEvent('pageerror') : null
  await shop.getByRole('button', { name: 'Apply coupon' }).click()
  if (thrown) expect((await thrown).message).toMatch(/TypeError|Cannot read properties of undefined/)
  else await shop.getByText('No coupon to apply').waitFor()
  // The visitor lingers on the page, so the recording has a moment after the click.
  await shop.waitForTimeout(1_000)
  await shop.evaluate(() => window.SessionReplay!.stop())
  await context.close()
  // Every session of the org as the API lists them, automated ones included, so a timeout says
  // what the server had (a session not yet processed, marked automated, or none at all).
  const all = async () =>
    (await dataApi<{ sessions: ListedSession[] }>('/sessions?limit=100&automation=include')).sessions
  try {
    await eventually(
      async () => (await sessionsOf(release)).filter((session) => !before.has(session.id)),
      (added) => added.length === 1 && added[0]!.status === 'processed',
      120_000,
    )
  } catch (error) {
    throw new Error(
      `${String(error)}\nall sessions: ${JSON.stringify(await all())}\nserver: ${env.server.logs().slice(-3000)}`,
    )
  }
  const processed = (await sessionsOf(release)).find((session) => !before.has(session.id))!
  return processed.id
}

/**
 * One run of the bundle as CI runs it (`npx playwright test`, the reporter posting each
 * result), against the site as it is now. The bundle's own configuration is used unchanged,
 * only told where this machine's Chromium is.
 */
async function runBundle(release: string) {
  return spawnPlaywright(bundleRoot, WRAPPER_CONFIG, {
    REPRO_BASE_URL: site.url,
    REPRO_RELEASE: release,
    REPRO_VERIFY_KEY: verifyKey,
    REPRO_API_URL: env.server.baseUrl,
  })
}

beforeAll(async () => {
  env = await startServerOnPostgres()
  browser = await launchChromium()
  dashboard = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await dashboard.newPage()
  await signUpOwner(page, env.server.baseUrl)
  const [org] = await env.database.db.select({ id: organizations.id }).from(organizations)
  const organizationId = org!.id
  const ingest = await createKey(env.database.db, { organizationId, type: 'ingest' })
  apiKey = (await createKey(env.database.db, { organizationId, type: 'api', write: true })).key
  verifyKey = (await createKey(env.database.db, { organizationId, type: 'api', verifications: true })).key
  site = await startReleaseSite({ serviceUrl: env.server.baseUrl, apiKey: ingest.key })
})

afterAll(async () => {
  rmSync(BUNDLE_DIR, { recursive: true, force: true })
  await browser?.close()
  await site?.stop()
  await env?.stop()
})

describe('an issue across three releases, in Chromium', () => {
  it('1.0.0 throws: the TypeError becomes an issue, resolved in the next release', async () => {
    const first = await visit('1.0.0', { buggy: true })
    const found = await waitFor(
      'the TypeError issue',
      async () => {
        const { issues } = await dataApi<{ issues: { id: string; title: string }[] }>('/issues?limit=50')
        return issues.find((listed) => /TypeError/.test(listed.title))
      },
      60_000,
      1_000,
    )
    issueId = found.id
    expect(await issue()).toMatchObject({
      status: 'unresolved',
      sessionCount: 1,
      resolvedInRelease: null,
      resolvedInNextRelease: false,
      resolvedAt: null,
      oldReleaseOccurrences: [],
      regression: null,
      verifications: [],
    })
    expect((await sessionsOf('1.0.0')).map((session) => session.id)).toEqual([first])

    const { issue: resolved } = await dataApi<{ issue: IssueDetail }>(`/issues/${issueId}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'resolved', inNextRelease: true }),
    })
    // Which release holds the fix is not known until a release new to the organization is seen.
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolvedInNextRelease: true,
      resolvedInRelease: null,
    })
    expect(Date.parse(resolved.resolvedAt ?? '')).not.toBeNaN()
  }, 180_000)

  it('a session still on 1.0.0 throws again: the issue stays resolved, counted as an old-release occurrence', async () => {
    await visit('1.0.0', { buggy: true })
    const seen = await eventually(issue, (now) => now.oldReleaseOccurrences.length > 0)
    expect(seen).toMatchObject({
      status: 'resolved',
      resolvedInNextRelease: true,
      resolvedInRelease: null,
      regression: null,
      oldReleaseOccurrences: [{ release: '1.0.0', sessions: 1 }],
    })
    expect(Date.parse(seen.oldReleaseOccurrences[0]!.lastSeenAt)).not.toBeNaN()
  }, 180_000)

  it('2.0.0 with the fix: no occurrence, and 2.0.0 becomes the release the fix is in', async () => {
    const before = await issue()
    await visit('2.0.0', { buggy: false })
    // The release is recorded in the same transaction that analyses the session.
    const after = await eventually(issue, (now) => now.resolvedInRelease !== null)
    expect(after).toMatchObject({
      status: 'resolved',
      resolvedInRelease: '2.0.0',
      sessionCount: before.sessionCount,
      oldReleaseOccurrences: before.oldReleaseOccurrences,
      regression: null,
    })
  }, 180_000)

  it('the reproduction suite from the API passes against 2.0.0 and fails against 1.0.0; the issue shows both results', async () => {
    const response = await fetch(api('/reproductions?status=resolved&format=tgz'), {
      headers: { Authorization: `Bearer ${apiKey}` },
    })
    expect(response.status, await response.clone().text()).toBe(200)
    rmSync(BUNDLE_DIR, { recursive: true, force: true })
    mkdirSync(BUNDLE_DIR, { recursive: true })
    const extracted = spawnSync('tar', ['-xzf', '-', '-C', BUNDLE_DIR], {
      input: Buffer.from(await response.arrayBuffer()),
    })
    expect(extracted.status, extracted.stderr.toString()).toBe(0)
    // What `curl … | tar -xz` leaves: one folder with the configuration, reporter and tests.
    bundleRoot = path.join(BUNDLE_DIR, 'reproductions')
    const manifest = JSON.parse(readFileSync(path.join(bundleRoot, 'reproductions.json'), 'utf8')) as {
      issueId: string
      file: string
    }[]
    // The one resolved issue, and its test.
    expect(manifest.map((entry) => entry.issueId)).toEqual([issueId])
    expect(readdirSync(bundleRoot).filter((file) => file.endsWith('.spec.ts'))).toEqual([manifest[0]!.file])
    writeFileSync(
      path.join(bundleRoot, WRAPPER_CONFIG),
      [
        "import bundle from './playwright.config.ts'",
        'export default {',
        '  ...bundle,',
        "  outputDir: 'e2e-out',",
        `  use: { ...bundle.use, launchOptions: { ...bundle.use?.launchOptions, executablePath: ${JSON.stringify(CHROMIUM_PATH)} } },`,
        '}',
        '',
      ].join('\n'),
    )

    // The site still serves 2.0.0, the fixed release.
    const fixed = await runBundle('2.0.0')
    expect(fixed.code, `against 2.0.0:\n${fixed.stdout.slice(-4000)}\n${fixed.stderr.slice(-4000)}`).toBe(0)
    // A staging copy still on 1.0.0: the reproduction fails, and the CI step with it.
    site.serve('1.0.0', { buggy: true })
    const buggy = await runBundle('1.0.0')
    expect(buggy.code, `against 1.0.0:\n${buggy.stdout.slice(-4000)}\n${buggy.stderr.slice(-4000)}`).not.toBe(
      0,
    )

    const verified = await eventually(issue, (now) => now.verifications.length >= 2)
    // Newest first.
    expect(verified.verifications).toMatchObject([
      { status: 'failed', release: '1.0.0', baseUrl: site.url, runner: 'playwright' },
      { status: 'passed', release: '2.0.0', baseUrl: site.url, runner: 'playwright' },
    ])
    expect(verified.verifications).toHaveLength(2)
    // The failure says which recorded check failed, in the runner's words; a pass needs no summary.
    expect(verified.verifications[0]!.summary).toContain('uncaught errors with the recorded message')
    expect(verified.verifications[1]!.summary).toBeNull()
    // Still resolved in 2.0.0: the failing run was on an older release, and automated traffic besides.
    expect(verified).toMatchObject({ status: 'resolved', resolvedInRelease: '2.0.0', regression: null })
  }, 240_000)

  it('3.0.0 brings the bug back: the issue reopens as a regression naming 3.0.0', async () => {
    const session = await visit('3.0.0', { buggy: true })
    const reopened = await eventually(issue, (now) => now.status !== 'resolved')
    expect(reopened).toMatchObject({
      status: 'unresolved',
      regression: { release: '3.0.0', resolvedInRelease: '2.0.0', sessionId: session },
      resolvedInRelease: null,
      resolvedInNextRelease: false,
      resolvedAt: null,
    })
    expect(Date.parse(reopened.regression!.at)).not.toBeNaN()
  }, 180_000)

  it('the issue page shows the regression naming 3.0.0 and both reproduction results', async () => {
    await page.goto(`${env.server.baseUrl}/issues/${issueId}`)
    const main = page.getByRole('main')
    await main.getByRole('heading', { level: 1, name: /TypeError/ }).waitFor()
    const regression = (await page.getByTestId('issue-regression').textContent()) ?? ''
    expect(regression).toContain('Regressed in 3.0.0 (fixed in 2.0.0)')
    // The history says the same, and holds each reproduction run with its release and site.
    const history = page.getByTestId('issue-history')
    const entry = async (text: string) => {
      const item = history.locator('li', { hasText: text })
      expect(await item.count(), text).toBe(1)
      return (await item.textContent()) ?? ''
    }
    expect(await entry('Seen again after it was resolved')).toContain('in 3.0.0 (fixed in 2.0.0)')
    expect(await entry('Reproduction passed')).toContain(`against ${site.url} (release 2.0.0)`)
    expect(await entry('Reproduction failed')).toContain(`against ${site.url} (release 1.0.0)`)
    await screenshot(page, 'releases-01-issue-regressed')
  }, 60_000)
})
