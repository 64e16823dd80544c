/**
 * Issue 18, "Done when": a session recorded in Chromium on a site with three real bugs (an
 * uncaught TypeError, a request answered 500, a button that does nothing) becomes three issues;
 * each issue's reproduction, fetched over HTTP, is run with Playwright against the site. While
 * the bugs are there every test fails, and for the recorded reason; once the same origin serves
 * the fixed site, the same tests pass.
 */
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { waitFor } from '../helpers/wait'
import { type BugSite, startBugSite } from './bug-site'
import { POSTGRES_URL } from './dashboard'
import { preparePlaywrightDir, runPlaywright } from './playwright-run'
import { launchChromium, type RunningServer, startBuiltServer } from './server'

// Inside the checkout, so the saved tests resolve @playwright/test from its node_modules; not
// under test-results/, which Playwright's runs may clear.
const WORK_DIR = path.join(process.cwd(), '.data', `e2e-reproductions-${process.pid}`)

let database: TestDatabase
let server: RunningServer
let browser: Browser
let site: BugSite
let apiKey: string

interface Reproduction {
  issueId: string
  sessionId: string | null
  filename: string
  test: string
  limitations: string[]
}

/**
 * What each bug's issue is called and what a failing run of its test must say: `reason` is in
 * the check's own label, so it shows which check failed; `observed` is what Playwright saw on
 * the page (the received value), so it shows the check failed because the bug happened again.
 * Labels are our own words and the received values counts or statuses: a failing run prints no
 * text the recorded page wrote (issue 32).
 */
const BUGS = [
  {
    name: 'TypeError',
    title: /TypeError/,
    reason: 'uncaught errors with the recorded message',
    // How many collected errors hold the recorded message: the thrown one, where none is expected.
    observed: /^Expected: 0\nReceived: 1$/m,
  },
  {
    name: 'failed request',
    title: /POST \/api\/report returns 500/,
    reason: 'POST request to the recorded path answered 500',
    observed: /^Expected: < 400\nReceived:\s+500$/m,
  },
  {
    name: 'dead click',
    title: /^Unresponsive .*Subscribe/,
    reason: 'produced no response',
    observed: /produced no response[^\n]*\n[\s\S]*^Expected: true\nReceived: false$/m,
  },
] as const

const reproductions = new Map<string, Reproduction>()

async function dataApi<T>(pathname: string): Promise<T> {
  const response = await fetch(`${server.baseUrl}${pathname}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  })
  expect(response.status, pathname).toBe(200)
  return (await response.json()) as T
}

/** One run of every saved file against the bug site. */
async function runReproductions() {
  // The files have no default site; this is the local copy they run against.
  return (await runPlaywright(WORK_DIR, { REPRO_BASE_URL: site.url })).files
}

beforeAll(async () => {
  process.env.DATABASE_URL ||= POSTGRES_URL
  database = await createTestDatabase()
  server = await startBuiltServer({ DATABASE_URL: database.url! })
  const org = await createOrganization(database.db, { name: 'Bug shop' })
  const ingest = await createKey(database.db, { organizationId: org.id, type: 'ingest' })
  apiKey = (await createKey(database.db, { organizationId: org.id, type: 'api' })).key
  site = await startBugSite({ serviceUrl: server.baseUrl, apiKey: ingest.key })
  browser = await launchChromium()
  preparePlaywrightDir(WORK_DIR, { timeoutMs: 30_000 })
})

afterAll(async () => {
  rmSync(WORK_DIR, { recursive: true, force: true })
  await browser?.close()
  await site?.stop()
  await server?.stop()
  await database?.close()
})

describe('a reproduction per bug, run with Playwright before and after the fix', () => {
  it('records one session in which the user meets all three bugs', async () => {
    const context = await browser.newContext()
    const shop = await context.newPage()
    await shop.goto(site.url)
    await shop.waitForFunction(() => typeof window.SessionReplay !== 'undefined')
    await shop.getByRole('button', { name: 'Apply coupon' }).click()
    await shop.waitForTimeout(1_000)
    await shop.getByRole('button', { name: 'Load report' }).click()
    await shop.getByText('Report 500').waitFor()
    await shop.waitForTimeout(1_000)
    await shop.getByRole('button', { name: 'Subscribe' }).click()
    // A dead click at the end of a session needs 3 s of silence after it to be decided.
    await shop.waitForTimeout(4_000)
    await shop.evaluate(() => window.SessionReplay!.stop())
    await context.close()
  })

  it('gets an issue for each bug and fetches its reproduction over HTTP', async () => {
    const issues = await waitFor(
      'the three issues',
      async () => {
        const { issues } = await dataApi<{ issues: { id: string; title: string }[] }>(
          '/api/v1/issues?limit=50',
        )
        const found = BUGS.map((bug) => issues.find((issue) => bug.title.test(issue.title)))
        return found.every(Boolean) ? (found as { id: string; title: string }[]) : undefined
      },
      90_000,
      1_000,
    )
    for (const [i, bug] of BUGS.entries()) {
      const { reproduction } = await dataApi<{ reproduction: Reproduction }>(
        `/api/v1/issues/${issues[i]!.id}/reproduction`,
      )
      expect(reproduction.sessionId, bug.name).not.toBeNull()
      // Built from the session's trail, not from the issue's written steps.
      expect(reproduction.test, bug.name).not.toContain('// Recorded step:')
      // The recorded site is named for reference only; the run goes where REPRO_BASE_URL says.
      expect(reproduction.test, bug.name).toContain(`// Recorded on ${JSON.stringify(site.url)}`)
      expect(reproduction.test, bug.name).toContain('siteUnderTest(process.env.REPRO_BASE_URL)')
      reproductions.set(bug.name, reproduction)
      writeFileSync(path.join(WORK_DIR, reproduction.filename), reproduction.test)
    }
  })

  it('each test fails against the buggy site, for the recorded reason', async () => {
    const results = await runReproductions()
    for (const bug of BUGS) {
      const reproduction = reproductions.get(bug.name)!
      const result = results.get(reproduction.filename)
      expect(result, `${bug.name}:\n${reproduction.test}`).toBeDefined()
      expect(result!.ok, `${bug.name} passed while the bug is there:\n${reproduction.test}`).toBe(false)
      expect(result!.output, `${bug.name}:\n${reproduction.test}`).toContain(
        JSON.stringify(bug.reason).slice(1, -1),
      )
      expect(result!.messages, `${bug.name}: what Playwright saw`).toMatch(bug.observed)
    }
  })

  it('the same tests pass once the same origin serves the fixed site', async () => {
    site.fix()
    const results = await runReproductions()
    for (const bug of BUGS) {
      const reproduction = reproductions.get(bug.name)!
      const result = results.get(reproduction.filename)
      expect(
        result?.ok,
        `${bug.name} still fails after the fix: ${result?.output.slice(0, 3000)}\n${reproduction.test}`,
      ).toBe(true)
    }
  })

  it('running the reproductions on a site that carries the recorder counts nothing, reopens nothing and replaces no replay (issue 32)', async () => {
    const { sql } = await import('drizzle-orm')
    type Issue = { id: string; status: string; sessionCount: number; previewUrl: string | null }
    type Listed = { id: string; status: string; automation: string | null }
    const sessions = async (query = '') =>
      (await dataApi<{ sessions: Listed[] }>(`/api/v1/sessions?limit=100${query}`)).sessions
    const typeError = reproductions.get('TypeError')!
    const [owner] = (await database.db.execute(
      sql`select organization_id from issues where id = ${typeError.issueId}`,
    )) as unknown as { organization_id: string }[]
    const write = (
      await createKey(database.db, { organizationId: owner!.organization_id, type: 'api', write: true })
    ).key
    const resolved = await fetch(`${server.baseUrl}/api/v1/issues/${typeError.issueId}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${write}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'resolved' }),
    })
    expect(resolved.status).toBe(200)
    // Users per issue as the dashboard counts them: distinct users of its sessions.
    const users = async (issueId: string) => {
      const [row] = (await database.db.execute(
        sql`select count(distinct coalesce(s.user_id, s.anonymous_id))::int as n from issue_sessions l
            join replay_sessions s on s.id = l.session_id where l.issue_id = ${issueId}`,
      )) as unknown as { n: number }[]
      return row!.n
    }
    const figures = async () =>
      Promise.all(
        BUGS.map(async (bug) => {
          const { issueId } = reproductions.get(bug.name)!
          const { issue } = await dataApi<{ issue: Issue }>(`/api/v1/issues/${issueId}`)
          const { reproduction } = await dataApi<{ reproduction: Reproduction }>(
            `/api/v1/issues/${issueId}/reproduction`,
          )
          return {
            status: issue.status,
            sessionCount: issue.sessionCount,
            users: await users(issueId),
            previewUrl: issue.previewUrl,
            reproducedFrom: reproduction.sessionId,
          }
        }),
      )
    // The person's session only: the runs above were automated traffic already.
    const people = await sessions()
    expect(people).toHaveLength(1)
    const before = await figures()
    expect(before[0]).toMatchObject({ status: 'resolved', sessionCount: 1, users: 1 })

    // Again against the still-buggy site (a verification run on staging): the TypeError's test fails.
    site.unfix()
    const runStarted = new Date(Date.now() - 1_000).toISOString()
    const results = await runReproductions()
    expect(results.get(typeError.filename)?.ok).toBe(false)
    // A headless browser as automation starts it, and a crawler's user agent in a person's browser.
    const automated = await launchChromium({ automated: true })
    const person = browser
    for (const [client, userAgent] of [
      [automated, undefined],
      [person, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
    ] as const) {
      const context = await client.newContext(userAgent ? { userAgent } : {})
      const shop = await context.newPage()
      await shop.goto(site.url)
      await shop.waitForFunction(() => typeof window.SessionReplay !== 'undefined')
      await shop.getByRole('button', { name: 'Apply coupon' }).click()
      await shop.waitForTimeout(1_000)
      await shop.evaluate(() => window.SessionReplay!.stop())
      await context.close()
    }
    await automated.close()

    // Every session processed (the runs' end when the finalizer finds them idle).
    const marked = await waitFor(
      "the runs' sessions to be processed",
      async () => {
        const all = await sessions(`&automation=include&from=${encodeURIComponent(runStarted)}`)
        const done = all.length >= 5 && all.every((s) => s.status === 'processed')
        return done ? all : undefined
      },
      180_000,
      2_000,
    )
    const kinds = new Set(marked.map((s) => s.automation))
    expect(
      [...kinds].every((kind) => kind === 'reproduction' || kind === 'webdriver' || kind === 'bot'),
    ).toBe(true)
    // The headless browser is marked as WebDriver, the crawler as a bot: both kept apart alike.
    expect(kinds.has('bot')).toBe(true)
    expect(kinds.has('webdriver') || kinds.has('reproduction')).toBe(true)
    const runs = await sessions('&automation=only')
    expect(
      runs.every(
        (s) => s.automation === 'reproduction' || s.automation === 'webdriver' || s.automation === 'bot',
      ),
    ).toBe(true)
    expect(runs.length).toBeGreaterThanOrEqual(marked.length)

    expect((await sessions()).map((s) => s.id)).toEqual(people.map((s) => s.id))
    expect(await figures()).toEqual(before)
  }, 300_000)
})
