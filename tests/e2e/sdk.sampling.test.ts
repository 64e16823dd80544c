/**
 * Sampling and error-only capture (issue 20) in Chromium against the built server: what an
 * error-only session uploads and when, and pages kept out by allowPages/denyPages. What the
 * recorder sends is read from the requests themselves (each passed on to the server, whose
 * answer is checked), so the server runs on either engine: the embedded one by default,
 * Postgres when DATABASE_URL is set.
 */
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMigratedDatabase } from '@/db/migrate'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { type DemoSite, startDemoSite } from './demo-site'
import { createDataDir, launchChromium, type RunningServer, startBuiltServer } from './server'

interface RecordedEvent {
  type: number
  timestamp: number
  data: Record<string, unknown>
}

interface Upload {
  status: number
  body: {
    session: { id: string; startedAt: number; url: string }
    page: { url: string; referrer: string | null }
    replay: { events: RecordedEvent[]; sequence: number }
    flush: string
  }
}

let server: RunningServer
let browser: Browser
let postgres: TestDatabase | null = null
let apiKey: string
const sites: DemoSite[] = []

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    postgres = await createTestDatabase()
    apiKey = await newIngestKey(postgres.db)
    server = await startBuiltServer({ DATABASE_URL: postgres.url! })
  } else {
    // The embedded database is held by the server once it runs: the key is made before.
    const dataDir = createDataDir()
    const seed = await openMigratedDatabase(
      { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
      { holder: 'the sampling e2e seed' },
    )
    try {
      apiKey = await newIngestKey(seed.db)
    } finally {
      await seed.close()
    }
    server = await startBuiltServer({}, { dataDir })
  }
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await Promise.all(sites.map((site) => site.stop()))
  await server?.stop()
  await postgres?.close()
})

async function newIngestKey(db: TestDatabase['db']): Promise<string> {
  const org = await createOrganization(db, { name: 'Sampling shop' })
  return (await createKey(db, { organizationId: org.id, type: 'ingest' })).key
}

async function demo(recorderOptions: Record<string, unknown>): Promise<DemoSite> {
  const site = await startDemoSite({
    serviceUrl: server.baseUrl,
    apiKey,
    recorderOptions: { flushIntervalMs: 300, ...recorderOptions },
  })
  sites.push(site)
  return site
}

/** A tab whose every upload (fetch or beacon) is read, then passed on to the server. */
async function watchedTab(): Promise<{ context: BrowserContext; page: Page; uploads: Upload[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const uploads: Upload[] = []
  await context.route(`${server.baseUrl}/api/sdk/replay**`, async (route) => {
    const request = route.request()
    if (request.method() !== 'POST') return route.continue()
    const raw = request.postDataBuffer() ?? Buffer.alloc(0)
    const gzip = raw[0] === 0x1f && raw[1] === 0x8b
    const response = await route.fetch()
    uploads.push({
      status: response.status(),
      body: JSON.parse((gzip ? gunzipSync(raw) : raw).toString('utf8')) as Upload['body'],
    })
    await route.fulfill({ response })
  })
  return { context, page: await context.newPage(), uploads }
}

/**
 * Closes a watched tab. A beacon sent as the page goes away can still be in its route handler
 * (waiting on the server) when the test ends; dropping the routes first lets that handler fail
 * quietly instead of as an unhandled error on a loaded machine.
 */
async function closeTab(context: BrowserContext): Promise<void> {
  await context.unrouteAll({ behavior: 'ignoreErrors' })
  await context.close()
}

async function eventually(done: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function started(page: Page): Promise<{ id: string; sampling: string }> {
  await page.waitForFunction(
    () => window.SessionReplay !== undefined && sessionStorage.getItem('svc_replay:session') !== null,
  )
  return page.evaluate(() => JSON.parse(sessionStorage.getItem('svc_replay:session')!))
}

/** DOM changes every 100 ms and some pointer movement: what a person's page does, without clicks. */
async function activity(page: Page, ms: number): Promise<void> {
  await page.evaluate(() => {
    const list = document.getElementById('items')!
    const w = window as Window & { __activity?: number }
    w.__activity = window.setInterval(() => {
      const li = document.createElement('li')
      li.textContent = `Tick ${Date.now()}`
      list.appendChild(li)
      if (list.children.length > 20) list.firstElementChild!.remove()
    }, 100)
  })
  const until = Date.now() + ms
  for (let i = 0; Date.now() < until; i++) {
    await page.mouse.move(200 + (i % 10) * 20, 300 + (i % 7) * 10)
    await pause(150)
  }
  await page.evaluate(() => window.clearInterval((window as Window & { __activity?: number }).__activity))
}

const events = (uploads: Upload[]) =>
  [...uploads]
    .sort((a, b) => a.body.replay.sequence - b.body.replay.sequence)
    .flatMap((u) => u.body.replay.events)
const sequences = (uploads: Upload[]) => uploads.map((u) => u.body.replay.sequence).sort((a, b) => a - b)
const errorsIn = (list: RecordedEvent[]) => list.filter((e) => e.type === 5 && e.data.tag === 'error')

const BUFFER_MS = 2000

describe('error-only capture', () => {
  it('uploads nothing until an uncaught error, then the last errorBufferMs from a full snapshot, and records in full after it', async () => {
    const site = await demo({ sessionSampleRate: 0, errorSampleRate: 1, errorBufferMs: BUFFER_MS })
    const { context, page, uploads } = await watchedTab()
    await page.goto(site.url)
    expect((await started(page)).sampling).toBe('buffer')
    // Longer than two buffer windows: the page load's own snapshot must be gone by the error.
    await activity(page, 3 * BUFFER_MS)
    expect(uploads).toHaveLength(0)

    await page.click('#apply-coupon')
    await eventually(() => errorsIn(events(uploads)).length === 1, 'the error upload')
    const state = await started(page)
    expect(state.sampling).toBe('full')
    await page.click('#add-item')
    await page.getByText('Item', { exact: false }).first().waitFor()
    await page.evaluate(() => window.SessionReplay!.stop())
    await eventually(() => uploads.some((u) => u.body.flush === 'final'), 'the final batch')

    expect(uploads.every((u) => u.status >= 200 && u.status < 300)).toBe(true)
    expect(sequences(uploads)).toEqual(uploads.map((_, i) => i))
    const all = events(uploads)
    // Starts with a full snapshot (Meta, then FullSnapshot), as a replay must.
    expect(all.slice(0, 2).map((e) => e.type)).toEqual([4, 2])
    const [error] = errorsIn(all)
    expect(error!.data.payload).toMatchObject({ type: 'TypeError', mechanism: 'onerror' })
    const errorAt = error!.timestamp
    const first = all[0]!.timestamp
    // Reaches back at least errorBufferMs, at most a window more (one checkout interval), and
    // the page load's snapshot was trimmed away.
    expect(first).toBeLessThanOrEqual(errorAt - BUFFER_MS)
    expect(first).toBeGreaterThanOrEqual(errorAt - 2 * BUFFER_MS - 1000)
    const loadedAt = await page.evaluate(() => performance.timeOrigin)
    expect(first).toBeGreaterThan(loadedAt + BUFFER_MS / 2)
    // The session starts where the uploaded recording does; recording continued after the error.
    const firstBatch = uploads.find((u) => u.body.replay.sequence === 0)!
    expect(firstBatch.body.session.startedAt).toBe(first)
    expect(firstBatch.body.session.url).toBe(`${site.url}/`)
    expect(all.some((e) => e.timestamp > errorAt && e.type === 3)).toBe(true)
    expect(uploads.filter((u) => u.body.flush === 'final')).toHaveLength(1)
    await closeTab(context)
  })

  it('uploads nothing at all without a trigger, across a reload and stop(); a session sampled off neither', async () => {
    const site = await demo({ sessionSampleRate: 0, errorSampleRate: 1, errorBufferMs: BUFFER_MS })
    const { context, page, uploads } = await watchedTab()
    await page.goto(`${site.url}/checkout`)
    const first = await started(page)
    await activity(page, 1000)
    await page.click('#load-ok')
    await page.getByText('OK 200').waitFor()
    await page.reload()
    const second = await started(page)
    expect(second).toMatchObject({ id: first.id, sampling: 'buffer' })
    await activity(page, 1000)
    await page.evaluate(() => window.SessionReplay!.stop())
    await page.goto('about:blank')

    const off = await demo({ sessionSampleRate: 0, errorSampleRate: 0 })
    const offPage = await context.newPage()
    await offPage.goto(off.url)
    expect((await started(offPage)).sampling).toBe('off')
    await offPage.click('#apply-coupon')
    await offPage.click('#load-report')
    await offPage.getByText('Report failed (500)').waitFor()
    await offPage.close()
    // Several flush intervals: anything queued would have been sent by now.
    await pause(1500)
    expect(uploads).toHaveLength(0)
    await closeTab(context)
  })

  it('uploads on a failed request (500)', async () => {
    const site = await demo({ sessionSampleRate: 0, errorSampleRate: 1, errorBufferMs: BUFFER_MS })
    const { context, page, uploads } = await watchedTab()
    await page.goto(site.url)
    await started(page)
    await activity(page, 1000)
    expect(uploads).toHaveLength(0)
    await page.click('#load-report')
    const failed = () =>
      events(uploads).some(
        (e) =>
          e.type === 6 &&
          JSON.stringify(e.data.payload).includes('"status":500') &&
          JSON.stringify(e.data.payload).includes('/api/report'),
      )
    await eventually(failed, 'the failed request upload')
    const all = events(uploads)
    expect(all.slice(0, 2).map((e) => e.type)).toEqual([4, 2])
    expect(uploads.every((u) => u.status >= 200 && u.status < 300)).toBe(true)
    expect((await started(page)).sampling).toBe('full')
    await closeTab(context)
  })
  it('uploads on a rage click: 4 quick clicks on one spot', async () => {
    const site = await demo({ sessionSampleRate: 0, errorSampleRate: 1, errorBufferMs: BUFFER_MS })
    const { context, page, uploads } = await watchedTab()
    await page.goto(site.url)
    await started(page)
    const heading = await page.locator('h1').boundingBox()
    const x = heading!.x + 10
    const y = heading!.y + heading!.height / 2
    // Three clicks are not enough, whatever their pace.
    for (let i = 0; i < 3; i++) await page.mouse.click(x, y)
    await pause(1500)
    expect(uploads).toHaveLength(0)
    for (let i = 0; i < 4; i++) await page.mouse.click(x + i * 2, y)
    const clicks = () =>
      events(uploads).filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2)
    await eventually(() => clicks().length >= 4, 'the rage click upload')
    expect(
      events(uploads)
        .slice(0, 2)
        .map((e) => e.type),
    ).toEqual([4, 2])
    expect((await started(page)).sampling).toBe('full')
    await closeTab(context)
  })
})

describe('page rules', () => {
  it('sends nothing from a denied page, and records from a full snapshot once the page moves to an allowed address', async () => {
    const site = await demo({ denyPages: ['/checkout'] })
    const { context, page, uploads } = await watchedTab()
    await page.goto(`${site.url}/checkout`)
    await started(page)
    await page.fill('#name', 'Grace')
    await page.click('#apply-coupon')
    await page.click('#load-report')
    await page.getByText('Report failed (500)').waitFor()
    await pause(1000)
    expect(uploads).toHaveLength(0)

    // An SPA navigation to an allowed page starts the recording there.
    await page.click('#open-pricing')
    await page.waitForURL(/\/pricing$/)
    await page.click('#add-item')
    await eventually(() => events(uploads).some((e) => e.type === 3), 'the first recorded interaction')
    // Back to the denied page: nothing of it is kept.
    await page.goBack()
    await page.waitForURL(/\/checkout$/)
    await page.click('#add-item')
    await page.click('#apply-coupon')
    await pause(800)
    const sentBefore = uploads.length
    // Forward to the allowed page again: a new full snapshot comes before anything else.
    await page.goForward()
    await page.waitForURL(/\/pricing$/)
    await page.click('#add-item')
    await page.evaluate(() => window.SessionReplay!.stop())
    await eventually(() => uploads.some((u) => u.body.flush === 'final'), 'the final batch')

    expect(uploads.every((u) => u.status >= 200 && u.status < 300)).toBe(true)
    const all = events(uploads)
    expect(all[0]).toMatchObject({ type: 4, data: { href: `${site.url}/pricing` } })
    expect(all[1]!.type).toBe(2)
    // Nothing from the denied page: no error, no request, no address (its link in the
    // snapshots' DOM aside).
    expect(errorsIn(all)).toEqual([])
    expect(JSON.stringify(all.filter((e) => e.type === 6))).not.toContain('/api/report')
    const addresses = [
      ...uploads.flatMap((u) => [u.body.session.url, u.body.page.url, u.body.page.referrer]),
      ...all.filter((e) => e.type === 4).map((e) => e.data.href),
      ...all.filter((e) => e.type === 5 && e.data.tag === 'navigation').map((e) => JSON.stringify(e.data)),
    ]
    expect(addresses.filter((a) => String(a).includes('/checkout'))).toEqual([])
    // The return was recorded from a new snapshot.
    const later = uploads
      .filter((u) => u.body.replay.sequence >= sentBefore)
      .flatMap((u) => u.body.replay.events)
      .filter((e) => e.data.tag !== 'session_end')
    expect(later.length).toBeGreaterThan(0)
    expect(later.filter((e) => e.type === 4)).toHaveLength(1)
    expect(later[0]!.type).toBe(4)
    await closeTab(context)
  })
})

describe('page rules: what a denied page leaves for later', () => {
  it('keeps no request that started on a denied page, even when it answers on an allowed one', async () => {
    const site = await demo({ denyPages: ['/checkout'] })
    const { context, page, uploads } = await watchedTab()
    // The test answers /api/slow when it chooses: after the page has moved to an allowed address.
    const held: (() => void)[] = []
    await context.route(`${site.url}/api/slow**`, (route) => {
      held.push(() => void route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }))
    })
    const slow = (name: string) =>
      page.evaluate((n) => {
        const w = window as Window & { __slow?: Record<string, Promise<number>> }
        w.__slow = { ...w.__slow, [n]: fetch(`/api/slow?from=${n}`).then((r) => r.status) }
      }, name)
    const answer = async (name: string) => {
      held.shift()!()
      expect(
        await page.evaluate(
          (n) => (window as Window & { __slow?: Record<string, Promise<number>> }).__slow![n],
          name,
        ),
      ).toBe(200)
    }

    // Denied from the start: rrweb is not running when the request starts.
    await page.goto(`${site.url}/checkout`)
    await started(page)
    await slow('first-denied')
    await eventually(() => held.length === 1, 'the first slow request')
    await page.click('#open-pricing')
    await page.waitForURL(/\/pricing$/)
    await page.click('#add-item')
    await eventually(() => events(uploads).some((e) => e.type === 3), 'the first recorded interaction')
    await answer('first-denied')

    // Denied again while rrweb runs, back to the allowed page before the answer.
    await page.goBack()
    await page.waitForURL(/\/checkout$/)
    await slow('again-denied')
    await eventually(() => held.length === 1, 'the second slow request')
    await page.goForward()
    await page.waitForURL(/\/pricing$/)
    await page.click('#add-item')
    await answer('again-denied')

    // A request of the allowed page, answered after those: the recorder had them by then.
    await page.click('#load-ok')
    await page.getByText('OK 200').waitFor()
    await page.evaluate(() => window.SessionReplay!.stop())
    await eventually(() => uploads.some((u) => u.body.flush === 'final'), 'the final batch')

    const requests = JSON.stringify(events(uploads).filter((e) => e.type === 6))
    expect(requests).toContain('/api/ok')
    expect(requests).not.toContain('/api/slow')
    await closeTab(context)
  })

  it('keeps nothing the capture hooks saw on a denied page that turned allowed before rrweb could start', async () => {
    const site = await demo({ denyPages: ['/checkout'] })
    const { context, page, uploads } = await watchedTab()
    // rrweb starts at DOMContentLoaded: the test holds the page's last script back, and moves
    // the denied page to an allowed address meanwhile.
    let release: () => void = () => {}
    const requested = new Promise<void>((resolve) => {
      void context.route(`${site.url}/app.js`, (route) => {
        release = () => void route.continue()
        resolve()
      })
    })
    await page.goto(`${site.url}/checkout`, { waitUntil: 'commit' })
    await requested
    // The preload scanner asks for app.js early: the parser is at it once the body is there,
    // and the boot script in <head> has logged and fetched on the denied page.
    await page.waitForFunction(() => document.getElementById('add-item') !== null)
    await page.evaluate(() => {
      console.error('denied page error')
      history.replaceState(null, '', '/pricing')
    })
    // Several turns of the event loop on the allowed address before the document is parsed.
    await pause(300)
    release()
    await page.waitForFunction(() => document.readyState !== 'loading')
    await page.click('#add-item')
    await page.evaluate(() => window.SessionReplay!.stop())
    await eventually(() => uploads.some((u) => u.body.flush === 'final'), 'the final batch')

    expect(uploads.every((u) => u.status >= 200 && u.status < 300)).toBe(true)
    const all = events(uploads)
    // rrweb's own DomContentLoaded event may come first.
    expect(all.find((e) => e.type === 4)).toMatchObject({ data: { href: `${site.url}/pricing` } })
    expect(all.some((e) => e.type === 3 && e.data.source === 2)).toBe(true)
    // Console, requests, navigations and errors of the denied page: none.
    const captured = JSON.stringify(all.filter((e) => e.type === 5 || e.type === 6))
    expect(captured).not.toContain('demo shop starting')
    expect(captured).not.toContain('denied page error')
    expect(captured).not.toContain('boot=1')
    expect(captured).not.toContain('/checkout')
    const addresses = uploads.flatMap((u) => [u.body.session.url, u.body.page.url, u.body.page.referrer])
    expect(addresses.filter((a) => String(a).includes('/checkout'))).toEqual([])
    await closeTab(context)
  })
})
