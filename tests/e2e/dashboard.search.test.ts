import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { recorderBatches } from '../helpers/batches'
import { endingNow, loadRecording } from '../helpers/pipeline'
import {
  axeViolations,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { launchChromium } from './server'

/**
 * Searching sessions by what happened in them (docs/dashboard.md#searching-sessions): the text
 * form, the builder, the moments each result shows and the replay each opens at.
 */

let running: ServerOnPostgres
let browser: Browser
let context: BrowserContext

/** Recorded fixtures, each under a person's name so the list's rows are told apart. */
const SEEDED = [
  { recording: 'js-error-after-click', name: 'Bea Buyer', url: 'http://shop.example/products/42' },
  { recording: 'network-500', name: 'Otto Orderer', url: 'http://shop.example/checkout' },
  { recording: 'dead-click', name: 'Cora Comparer', url: 'http://shop.example/pricing' },
] as const
const sessionIds = new Map<string, string>()

async function record(baseUrl: string, key: string, seed: (typeof SEEDED)[number]): Promise<void> {
  const batches = recorderBatches({
    sessionId: `e2e-search-${seed.recording}`,
    events: endingNow(loadRecording(seed.recording).events),
    perBatch: 50,
    url: seed.url,
    user: { anonymousId: `anon-${seed.recording}`, properties: { name: seed.name } },
  })
  for (const batch of batches) {
    const response = await fetch(`${baseUrl}/api/sdk/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': key },
      body: JSON.stringify(batch),
    })
    expect(response.status, await response.clone().text()).toBe(200)
  }
}

async function processed(externalId: string): Promise<string> {
  const deadline = Date.now() + 90_000
  for (;;) {
    const [row] = await running.database.db
      .select({ id: replaySessions.id, status: replaySessions.status })
      .from(replaySessions)
      .where(eq(replaySessions.externalId, externalId))
    if (row?.status === 'processed') return row.id
    if (Date.now() > deadline) throw new Error(`${externalId} not processed: ${row?.status}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

beforeAll(async () => {
  running = await startServerOnPostgres()
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(90_000)
  const page = await context.newPage()
  await signUpOwner(page, running.server.baseUrl)
  await page.close()
  const [organization] = await running.database.db.select().from(organizations)
  const { key } = await createKey(running.database.db, { organizationId: organization!.id, type: 'ingest' })
  for (const seed of SEEDED) await record(running.server.baseUrl, key, seed)
  for (const seed of SEEDED) sessionIds.set(seed.name, await processed(`e2e-search-${seed.recording}`))
}, 300_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await running?.stop()
})

const table = (page: Page) => page.getByTestId('sessions-table')
const problem = (page: Page) =>
  page.getByRole('status').filter({ has: page.getByTestId('query-error-message') })

/** The names of the people whose sessions the list shows. */
async function listedNames(page: Page): Promise<string[]> {
  await table(page).waitFor()
  const names = await table(page).locator('tbody tr td:first-child > div > a').allTextContents()
  return names.sort()
}

describe('searching sessions by what happened', () => {
  it('finds the sessions of a sequence, shows their moments and opens the replay at one', async () => {
    const page = await context.newPage()
    await page.goto(`${running.server.baseUrl}/sessions`)
    const query = page.getByLabel('Query', { exact: true })
    await query.fill('click.text = "Buy now" then error within 60s')
    // Enter submits: the query box is a plain form.
    await query.press('Enter')
    await page.waitForURL(/[?&]q=click\.text/)
    expect(await listedNames(page)).toEqual(['Bea Buyer'])
    // The search is a link: the address holds the query, and the box shows it again.
    expect(new URL(page.url()).searchParams.get('q')).toBe('click.text = "Buy now" then error within 60s')
    expect(await query.inputValue()).toBe('click.text = "Buy now" then error within 60s')

    const moments = page.getByRole('list', { name: 'Matching moments of Bea Buyer' })
    const links = moments.getByRole('link')
    expect(await links.count()).toBeGreaterThanOrEqual(2)
    const texts = await links.allTextContents()
    expect(
      texts.some((text) => /Click.*Buy now/.test(text)),
      texts.join(' | '),
    ).toBe(true)
    const errorLink = links.filter({ hasText: /Error/ }).first()
    const href = (await errorLink.getAttribute('href')) ?? ''
    const sessionId = sessionIds.get('Bea Buyer')
    expect(href).toMatch(new RegExp(`^/sessions/${sessionId}\\?t=\\d+$`))
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'sessions-search-results')

    // The moment opens the replay at its time (the recording starts with the session).
    const offset = Number(href.split('t=')[1])
    await errorLink.click()
    await page.waitForURL(`${running.server.baseUrl}${href}`)
    await page.locator('[data-testid="replay-player"][data-state="ready"]').waitFor()
    const time = Number(await page.getByTestId('replay-player').getAttribute('data-time'))
    expect(Math.abs(time - offset)).toBeLessThan(1500)
    await page.close()
  }, 240_000)

  it('builds a query from rows, and keeps it when switching to the text form', async () => {
    const page = await context.newPage()
    await page.goto(`${running.server.baseUrl}/sessions`)
    await page.getByRole('button', { name: 'Builder' }).click()
    const row = page.getByRole('group', { name: 'Row 1' })
    await row.getByLabel('Kind').selectOption('request')
    await row.getByRole('button', { name: 'Add condition to moment 1' }).click()
    await row.getByLabel('Field').fill('status')
    await row.getByLabel('Operator').selectOption('>=')
    await row.getByLabel('Value').fill('500')
    expect(await page.getByTestId('builder-text').textContent()).toBe('request.status >= 500')

    // A second row, "not", joined by "any": the text follows.
    await page.getByRole('button', { name: 'Add row' }).click()
    const second = page.getByRole('group', { name: 'Row 2' })
    await second.getByLabel('Kind').selectOption('dead_click')
    expect(await page.getByTestId('builder-text').textContent()).toBe('request.status >= 500 and dead_click')
    await page.getByLabel('Sessions where').selectOption('or')
    expect(await page.getByTestId('builder-text').textContent()).toBe('request.status >= 500 or dead_click')
    await second.getByRole('button', { name: 'Remove row 2' }).click()

    await page.getByRole('button', { name: 'Find sessions' }).click()
    await page.waitForURL(/[?&]q=request\.status/)
    expect(await listedNames(page)).toEqual(['Otto Orderer'])
    expect(
      await page.getByRole('list', { name: 'Matching moments of Otto Orderer' }).textContent(),
    ).toContain('Request')

    // The found query opens in the builder as rows, and goes back to text unchanged.
    await page.getByRole('button', { name: 'Builder' }).click()
    expect(await page.getByRole('group', { name: 'Row 1' }).getByLabel('Value').inputValue()).toBe('500')
    await page.getByRole('button', { name: 'Text' }).click()
    expect(await page.getByLabel('Query', { exact: true }).inputValue()).toBe('request.status >= 500')
    await page.close()
  }, 240_000)

  it('says where a malformed query is wrong, and keeps old text-search links working', async () => {
    const page = await context.newPage()
    await page.goto(`${running.server.baseUrl}/sessions`)
    const query = page.getByLabel('Query', { exact: true })
    await query.fill('click.text = Pay then')
    await page.getByRole('button', { name: 'Find sessions' }).click()
    // Refused in the page: the address does not change, the error names its place.
    await problem(page).waitFor()
    expect(page.url()).toBe(`${running.server.baseUrl}/sessions`)
    expect(await problem(page).textContent()).toContain('(at character 22)')
    expect(await query.getAttribute('aria-invalid')).toBe('true')
    await screenshot(page, 'sessions-search-error')

    // A link from before the query language (q was the text search) is not silently empty.
    await page.goto(`${running.server.baseUrl}/sessions?q=${encodeURIComponent('Otto')}`)
    await problem(page).waitFor()
    await page.getByRole('link', { name: 'Search for “Otto” as text' }).click()
    await page.waitForURL(/[?&]search=Otto/)
    expect(await listedNames(page)).toEqual(['Otto Orderer'])
    await page.close()
  }, 240_000)
})
