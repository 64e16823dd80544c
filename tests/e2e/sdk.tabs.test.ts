/**
 * One visit across tabs (docs/recorder.md#one-visit-across-tabs) in Chromium standing for a
 * person: a second tab opened while the visit is live, and a copy opened by window.open, join
 * the first tab's session, each with its own window id and one shared sequence; the session
 * page replays the visit with a tab strip.
 */
import { and, asc, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { eventually } from '../helpers/wait'
import { type ServerOnPostgres, signUpOwner, startServerOnPostgres } from './dashboard'
import { type DemoSite, startDemoSite } from './demo-site'
import { launchChromium } from './server'

let running: ServerOnPostgres
let browser: Browser
let site: DemoSite
let organizationId: string

beforeAll(async () => {
  running = await startServerOnPostgres()
  browser = await launchChromium()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await site?.stop()
  await running?.stop()
})

interface TabIds {
  id: string
  windowId: string
  anonymousId: string
}

/** Waits until the recorder has run in this document, then reads its ids. */
async function recording(page: Page): Promise<TabIds> {
  // A page opened by window.open starts with a copy of its opener's sessionStorage.
  await page.waitForFunction(
    () =>
      window.SessionReplay !== undefined &&
      document.readyState !== 'loading' &&
      sessionStorage.getItem('svc_replay:session') !== null,
  )
  return page.evaluate(() => ({
    id: (JSON.parse(sessionStorage.getItem('svc_replay:session')!) as { id: string }).id,
    windowId: sessionStorage.getItem('svc_replay:window') ?? '',
    anonymousId: localStorage.getItem('svc_replay:anonymous_id') ?? '',
  }))
}

async function storedBatches(externalId: string) {
  const [session] = await running.database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  if (!session) return []
  return running.database.db
    .select({
      sequence: replayBatches.sequence,
      windowId: replayBatches.windowId,
      flush: replayBatches.flush,
    })
    .from(replayBatches)
    .where(eq(replayBatches.sessionId, session.id))
    .orderBy(asc(replayBatches.sequence))
}

describe('one visit across tabs', () => {
  it('records the tabs of a visit as one session and replays them on one timeline with a tab strip', async () => {
    const dashboard = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const member = await dashboard.newPage()
    await signUpOwner(member, running.server.baseUrl)
    const [organization] = await running.database.db.select().from(organizations)
    organizationId = organization!.id
    const { key } = await createKey(running.database.db, { organizationId, type: 'ingest' })
    site = await startDemoSite({
      serviceUrl: running.server.baseUrl,
      apiKey: key,
      recorderOptions: { flushIntervalMs: 500 },
    })

    const visitor: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const first = await visitor.newPage()
    await first.goto(site.url)
    const tab1 = await recording(first)
    await first.click('#add-item')
    // The flush timer marks the first page live (pages.ts) before the second tab opens.
    await eventually(
      () => storedBatches(tab1.id),
      (batches) => batches.length > 0,
    )

    const second = await visitor.newPage()
    await second.goto(`${site.url}/pricing`)
    const tab2 = await recording(second)
    expect(tab2).toMatchObject({ id: tab1.id, anonymousId: tab1.anonymousId })
    expect(tab2.windowId).not.toBe(tab1.windowId)
    await second.click('#add-item')

    // window.open copies sessionStorage: the copy takes a window of its own in the same visit.
    const [copy] = await Promise.all([
      visitor.waitForEvent('page'),
      first.evaluate((url) => void window.open(url, '_blank'), `${site.url}/checkout`),
    ])
    const tab3 = await recording(copy)
    expect(tab3.id).toBe(tab1.id)
    expect(new Set([tab1.windowId, tab2.windowId, tab3.windowId]).size).toBe(3)
    await copy.click('#add-item')
    await first.bringToFront()
    await first.click('#add-item')

    for (const page of [copy, second, first]) await page.evaluate(() => window.SessionReplay!.stop())
    // One sequence across the tabs: no gap, no number taken twice, every tab present.
    const batches = await eventually(
      () => storedBatches(tab1.id),
      (rows) =>
        rows.every((row, i) => row.sequence === i) &&
        rows.filter((row) => row.flush === 'final').length === 3 &&
        new Set(rows.map((row) => row.windowId)).size === 3,
      30_000,
    )
    expect(new Set(batches.map((row) => row.windowId))).toEqual(
      new Set([tab1.windowId, tab2.windowId, tab3.windowId]),
    )
    await visitor.close()

    const session = await eventually(
      async () =>
        (
          await running.database.db
            .select()
            .from(replaySessions)
            .where(eq(replaySessions.externalId, tab1.id))
        )[0],
      (row) => row?.status === 'processed' && row.processedThroughSequence === batches.at(-1)!.sequence,
      60_000,
    )
    // A page per tab: the home page, pricing and checkout.
    expect(session!.pageCount).toBe(3)

    const events = (await (
      await dashboard.request.get(`${running.server.baseUrl}/api/dashboard/sessions/${session!.id}/events`)
    ).json()) as { windowId?: string }[]
    expect(new Set(events.map((event) => event.windowId))).toEqual(
      new Set([tab1.windowId, tab2.windowId, tab3.windowId]),
    )

    await member.goto(`${running.server.baseUrl}/sessions/${session!.id}`)
    await member.locator('[data-testid="replay-player"][data-state="ready"]').waitFor({ timeout: 90_000 })
    const strip = member.getByTestId('replay-tabs')
    await expect.poll(() => strip.getByTestId('replay-tab').count()).toBe(3)
    expect(await strip.locator('[data-active="true"]').count()).toBe(1)
    // Picking another tab replays it at the same moment.
    await strip.getByRole('button', { name: /^Tab 2/ }).click()
    await expect
      .poll(() => strip.getByRole('button', { name: /^Tab 2/ }).getAttribute('aria-pressed'))
      .toBe('true')
    await member.locator('[data-testid="replay-player"][data-state="ready"]').waitFor()
    await dashboard.close()
  }, 300_000)
})
