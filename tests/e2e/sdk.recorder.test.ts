/**
 * The recorder (sdk/) in Chromium against the real server: a cross-origin demo site loads
 * /sdk.js, and what reaches the server is read back from the database and blob storage the
 * server writes to (Postgres, so this process can read while the server runs).
 */
import { createHash } from 'node:crypto'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { and, asc, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page, Request as PwRequest } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createBlobStore } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { eventually } from '../helpers/wait'
import { type DemoSite, startDemoSite } from './demo-site'
import { launchChromium, openServerBatch, type RunningServer, startBuiltServer } from './server'

interface StoredBatch {
  sequence: number
  windowId: string
  flush: string
  body: {
    session: { id: string; windowId: string; startedAt: number; lastActivityAt: number; url: string }
    user: { anonymousId: string; id: string | null; properties: Record<string, unknown> | null }
    page: { url: string }
    replay: { events: { type: number; timestamp: number; data: Record<string, unknown> }[]; sequence: number }
    flush: string
  }
}

let database: TestDatabase
let server: RunningServer
let browser: Browser
let blobs: BlobStore
const sites: DemoSite[] = []

beforeAll(async () => {
  // The server must share its database with this process: a fresh Postgres database.
  process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres'
  database = await createTestDatabase()
  server = await startBuiltServer({ DATABASE_URL: database.url! })
  blobs = createBlobStore({ kind: 'local', root: path.join(server.dataDir, 'blobs') })
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await Promise.all(sites.map((site) => site.stop()))
  await server?.stop()
  await database?.close()
})

/** An organization with its own ingest key, so scenarios neither share issues nor a rate limit. */
async function newTenant(name: string) {
  const org = await createOrganization(database.db, { name, plan: 'free' })
  const key = await createKey(database.db, { organizationId: org.id, type: 'ingest' })
  return { organizationId: org.id, apiKey: key.key }
}

async function demo(apiKey: string, recorderOptions?: Record<string, unknown>): Promise<DemoSite> {
  const site = await startDemoSite({ serviceUrl: server.baseUrl, apiKey, recorderOptions })
  sites.push(site)
  return site
}

async function storedBatches(organizationId: string, sessionId: string): Promise<StoredBatch[]> {
  const [session] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, sessionId)))
  if (!session) return []
  const rows = await database.db
    .select()
    .from(replayBatches)
    .where(eq(replayBatches.sessionId, session.id))
    .orderBy(asc(replayBatches.sequence))
  const out: StoredBatch[] = []
  for (const row of rows) {
    const bytes = await blobs.get(row.blobKey)
    if (!bytes) throw new Error(`blob missing: ${row.blobKey}`)
    out.push({
      sequence: row.sequence,
      windowId: row.windowId,
      flush: row.flush,
      body: JSON.parse(Buffer.from(await openServerBatch(database.db, row.blobKey, bytes)).toString('utf8')),
    })
  }
  return out
}

const hasFinal = (batches: StoredBatch[]) => batches.some((b) => b.flush === 'final')
/** Beacons are delivered asynchronously, so a later batch can land first: wait for no gaps too. */
const complete = (batches: StoredBatch[]) =>
  hasFinal(batches) && batches.every((b, i) => b.sequence === i) && batches.at(-1)!.flush === 'final'
const sequences = (batches: StoredBatch[]) => batches.map((b) => b.sequence)
const range = (n: number) => Array.from({ length: n }, (_, i) => i)

interface TabState {
  id: string
  windowId: string
  anonymousId: string
  nextSequence: number
}

async function tabState(page: Page): Promise<TabState | null> {
  return page.evaluate(() => {
    const session = sessionStorage.getItem('svc_replay:session')
    if (!session) return null
    const parsed = JSON.parse(session) as { id: string; nextSequence: number }
    return {
      id: parsed.id,
      nextSequence: parsed.nextSequence,
      windowId: sessionStorage.getItem('svc_replay:window') ?? '',
      anonymousId: localStorage.getItem('svc_replay:anonymous_id') ?? '',
    }
  })
}

async function recording(page: Page): Promise<TabState> {
  // The recorder has run in this document: a page opened by window.open starts with a copy of
  // its opener's sessionStorage (and at about:blank), so a stored session alone proves nothing.
  await page.waitForFunction(
    () =>
      window.SessionReplay !== undefined &&
      document.readyState !== 'loading' &&
      sessionStorage.getItem('svc_replay:session') !== null,
  )
  return (await tabState(page))!
}

const stopRecorder = (page: Page) => page.evaluate(() => window.SessionReplay!.stop())

function pluginEvents(batches: StoredBatch[], plugin: string) {
  return batches
    .flatMap((b) => b.body.replay.events)
    .filter((e) => e.type === 6 && e.data.plugin === plugin)
    .map((e) => e.data.payload as Record<string, unknown>)
}

function customEvents(batches: StoredBatch[], tag: string) {
  return batches
    .flatMap((b) => b.body.replay.events)
    .filter((e) => e.type === 5 && e.data.tag === tag)
    .map((e) => e.data.payload as Record<string, unknown>)
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  return { context, page: await context.newPage() }
}

describe('GET /sdk.js', () => {
  it('serves the built script cross-origin with an ETag, and 304 for a matching If-None-Match', async () => {
    const response = await fetch(`${server.baseUrl}/sdk.js`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
    const etag = response.headers.get('etag')
    expect(etag).toMatch(/^".+"$/)
    expect(await response.text()).toContain('SessionReplay')

    const again = await fetch(`${server.baseUrl}/sdk.js`, { headers: { 'If-None-Match': `W/${etag}` } })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(etag)
    const stale = await fetch(`${server.baseUrl}/sdk.js`, { headers: { 'If-None-Match': '"other"' } })
    expect(stale.status).toBe(200)
  })
})

describe('the recorder in Chromium', () => {
  it('records a session across a reload with the dashboard snippet, keeps private data out, and the finished session yields issues', async () => {
    const tenant = await newTenant('Snippet shop')
    const site = await demo(tenant.apiKey)
    const { context, page } = await newPage()
    const ingestRequests: PwRequest[] = []
    page.on('request', (request) => {
      if (request.url().startsWith(`${server.baseUrl}/api/sdk/replay`)) ingestRequests.push(request)
    })

    await page.goto(`${site.url}/checkout`)
    const first = await recording(page)
    await page.fill('#name', 'Grace')
    await page.fill('#email', site.secrets.email)
    await page.fill('#phone', site.secrets.phone)
    await page.fill('#password', site.secrets.password)
    await page.click('#apply-coupon')
    await page.click('#load-report')
    await page.getByText('Report failed (500)').waitFor()
    await page.click('#log-error')
    await page.click('#sync-cart')
    await page.click('#open-pricing')
    await page.waitForURL(/\/pricing$/)

    // A reload continues the session of the tab: same ids, later sequences.
    await page.reload()
    const second = await recording(page)
    expect(second.id).toBe(first.id)
    expect(second.windowId).toBe(first.windowId)
    await page.click('#add-item')
    // The site's own next page (a link): the visit goes on in this tab, so no final batch.
    await page.getByRole('link', { name: 'Home' }).click()
    await page.waitForURL(`${site.url}/`)
    expect((await recording(page)).id).toBe(first.id)
    await page.click('#load-ok')
    await page.getByText('OK 200').waitFor()
    await page.evaluate(() =>
      window.SessionReplay!.identify('user-42', { email: 'grace@example.com', name: 'Grace' }),
    )
    await page.click('#add-item')
    await stopRecorder(page)

    const batches = await eventually(() => storedBatches(tenant.organizationId, first.id), complete)
    // Sequences 0..n-1, each once, across both page loads; the final batch is the last one.
    // The reload left the session's only page, so that page flushed as final too (a reload from
    // the browser's own button is not told to the page): the server analysed what it had at
    // once and analyses the session again after the later batches. The link to the next page
    // of the site was told, and sent no final batch.
    expect(sequences(batches)).toEqual(range(batches.length))
    expect(batches.at(-1)!.flush).toBe('final')
    expect(batches.filter((b) => b.flush === 'final')).toHaveLength(2)
    expect(new Set(batches.map((b) => b.windowId))).toEqual(new Set([first.windowId]))
    expect(new Set(batches.map((b) => b.body.session.url))).toEqual(new Set([`${site.url}/checkout`]))
    const pageUrls = new Set(batches.map((b) => b.body.page.url))
    expect(pageUrls.has(`${site.url}/pricing`)).toBe(true)
    expect(pageUrls.has(`${site.url}/`)).toBe(true)
    // Three page loads (the first, the reload, the link): three full snapshots.
    expect(batches.flatMap((b) => b.body.replay.events).filter((e) => e.type === 2)).toHaveLength(3)
    expect(batches.at(-1)!.body.user).toMatchObject({
      id: 'user-42',
      properties: { email: 'grace@example.com', name: 'Grace' },
      anonymousId: first.anonymousId,
    })

    // Privacy: typed private values and blocked text are in no stored event.
    const everything = JSON.stringify(batches.map((b) => b.body))
    for (const secret of [
      site.secrets.email,
      site.secrets.password,
      site.secrets.phone,
      site.secrets.blockedText,
    ])
      expect(everything).not.toContain(secret)
    // maskAllInputs is on by default: even the plain name field is recorded as asterisks only.
    const inputs = batches
      .flatMap((b) => b.body.replay.events)
      .filter((e) => e.type === 3 && e.data.source === 5)
    expect(inputs.length).toBeGreaterThanOrEqual(4)
    for (const input of inputs) expect(String(input.data.text)).toMatch(/^\**$/)

    // Network capture: the page's calls, never the recorder's own uploads; secrets redacted.
    const requests = pluginEvents(batches, 'rrweb/network@1').flatMap(
      (p) => p.requests as Record<string, unknown>[],
    )
    expect(requests.some((r) => String(r.url).includes('/api/sdk/'))).toBe(false)
    const report = requests.find((r) => String(r.url).startsWith(`${site.url}/api/report`))
    expect(report).toMatchObject({ method: 'POST', status: 500 })
    expect(String(report!.url)).toContain('token=[redacted]')
    expect(requests.some((r) => r.url === `${site.url}/api/ok` && r.status === 200)).toBe(true)
    expect(ingestRequests.length).toBeGreaterThan(0)

    // The uncaught error is marked explicitly, without the recorder's frames in its stack.
    const [error, rejection] = customEvents(batches, 'error')
    expect(error).toMatchObject({ type: 'TypeError', handled: false, mechanism: 'onerror' })
    expect(String(error!.stack)).toContain('applyCoupon')
    // This one is created inside the recorder's fetch wrapper; its frame is taken out.
    expect(rejection).toMatchObject({ type: 'TypeError', mechanism: 'onunhandledrejection' })
    expect(String(rejection!.stack)).toContain('syncCart')
    for (const entry of [error, rejection]) expect(String(entry!.stack)).not.toContain('/sdk.js')
    expect(customEvents(batches, 'navigation')).toContainEqual(
      expect.objectContaining({ href: `${site.url}/pricing`, kind: 'push' }),
    )
    // Capture runs from script start: boot-time console and network activity of each of the
    // three page loads is kept.
    const consoleEntries = pluginEvents(batches, 'rrweb/console@1')
    expect(
      consoleEntries.filter(
        (p) => p.level === 'warn' && String(p.payload).includes('[boot] demo shop starting'),
      ),
    ).toHaveLength(3)
    expect(requests.filter((r) => r.url === `${site.url}/api/ok?boot=1`)).toHaveLength(3)
    const consoleErrors = consoleEntries.filter((p) => p.level === 'error')
    expect(
      consoleErrors.some((p) => String((p.payload as string[])[0]).includes('Cart total is negative')),
    ).toBe(true)
    for (const entry of consoleErrors) expect(JSON.stringify(entry.trace)).not.toContain('/sdk.js')

    // flush: 'final' starts processing; the analysis finds the error and the failed request.
    const found = await eventually(
      () =>
        database.db
          .select({ kind: issues.kind, title: issues.title })
          .from(issues)
          .where(eq(issues.organizationId, tenant.organizationId)),
      (rows) => rows.some((r) => r.kind === 'js_error') && rows.some((r) => r.kind === 'network_error'),
      60_000,
    )
    expect(found.find((r) => r.kind === 'js_error')!.title).toContain('TypeError')
    expect(found.find((r) => r.kind === 'network_error')!.title).toMatch(/report/i)
    await context.close()
  })

  it('ends a session after the idle timeout with a final batch and starts a new one at sequence 0', async () => {
    const tenant = await newTenant('Idle')
    const site = await demo(tenant.apiKey, { flushIntervalMs: 300, sessionIdleTimeoutMs: 1500 })
    const { context, page } = await newPage()
    await page.goto(site.url)
    const before = await recording(page)
    await page.click('#add-item')
    // No activity: the timer ends the session and sends its final batch.
    const ended = await eventually(() => storedBatches(tenant.organizationId, before.id), complete, 15_000)
    expect(sequences(ended)).toEqual(range(ended.length))
    expect(customEvents(ended, 'session_end')).toEqual([{ reason: 'idle' }])

    await page.click('#add-item')
    await page.waitForFunction((oldId) => {
      const s = sessionStorage.getItem('svc_replay:session')
      return s !== null && (JSON.parse(s) as { id: string }).id !== oldId
    }, before.id)
    const after = (await tabState(page))!
    expect(after.windowId).toBe(before.windowId)
    await page.click('#add-item')
    await stopRecorder(page)
    const next = await eventually(() => storedBatches(tenant.organizationId, after.id), complete)
    expect(sequences(next)).toEqual(range(next.length))
    // The new session starts with its own full snapshot, so it replays on its own.
    const types = next.flatMap((b) => b.body.replay.events).map((e) => e.type)
    expect(types[0]).toBe(4)
    expect(types[1]).toBe(2)
    expect(next[0]!.body.session.startedAt).toBeGreaterThan(ended[0]!.body.session.startedAt)
    await context.close()
  })

  it('retries a 500 and a 429 (after its Retry-After) with the identical body; nothing is lost or stored twice', async () => {
    const tenant = await newTenant('Flaky network')
    const site = await demo(tenant.apiKey, { flushIntervalMs: 500 })
    const { context, page } = await newPage()
    const attempts: {
      at: number
      sequence: number
      digest: string
      gzip: boolean
      answer: number | 'server'
    }[] = []
    await page.route(`${server.baseUrl}/api/sdk/replay**`, async (route) => {
      const request = route.request()
      if (request.method() !== 'POST') return route.continue()
      const raw = request.postDataBuffer() ?? Buffer.alloc(0)
      const gzip = request.headers()['content-encoding'] === 'gzip'
      const body = JSON.parse((gzip ? gunzipSync(raw) : raw).toString('utf8')) as {
        replay: { sequence: number }
      }
      const answer = attempts.length === 0 ? 500 : attempts.length === 1 ? 429 : 'server'
      attempts.push({
        at: Date.now(),
        sequence: body.replay.sequence,
        digest: createHash('sha256').update(raw).digest('hex'),
        gzip,
        answer,
      })
      const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Retry-After' }
      if (answer === 500)
        return route.fulfill({
          status: 500,
          headers: cors,
          contentType: 'application/json',
          body: '{"error":"boom"}',
        })
      if (answer === 429)
        return route.fulfill({
          status: 429,
          headers: { ...cors, 'Retry-After': '2' },
          contentType: 'application/json',
          body: '{"error":"Rate limit exceeded"}',
        })
      return route.continue()
    })
    await page.goto(site.url)
    const state = await recording(page)
    await eventually(
      async () => attempts.length,
      (n) => n >= 3,
      20_000,
    )
    // The first batch went three times, byte for byte the same; the third waited out Retry-After.
    expect(attempts.slice(0, 3).map((a) => a.sequence)).toEqual([0, 0, 0])
    expect(new Set(attempts.slice(0, 3).map((a) => a.digest)).size).toBe(1)
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(1900)
    expect(attempts[0]!.gzip).toBe(true)

    await page.click('#add-item')
    await page.click('#load-ok')
    await page.waitForTimeout(700)
    await page.click('#add-item')
    await stopRecorder(page)
    const batches = await eventually(() => storedBatches(tenant.organizationId, state.id), complete)
    expect(sequences(batches)).toEqual(range(batches.length))
    // Every sequence the browser delivered is stored once, and nothing it sent is missing.
    const delivered = new Set(attempts.filter((a) => a.answer === 'server').map((a) => a.sequence))
    expect([...delivered].sort((a, b) => a - b)).toEqual(range(batches.length))
    // In order: a later sequence was never sent before an earlier one was accepted.
    const order = attempts.map((a) => a.sequence)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    await context.close()
  })

  it('sends the pending events with sendBeacon when the page is left, the last one flushed as final', async () => {
    const tenant = await newTenant('Beacon')
    // No timed flush: only leaving the page can deliver these events.
    const site = await demo(tenant.apiKey, { flushIntervalMs: 600_000, maxBatchEvents: 5000 })
    const { context, page } = await newPage()
    let posts = 0
    page.on('request', (request) => {
      if (request.url().startsWith(`${server.baseUrl}/api/sdk/replay`) && request.method() === 'POST') posts++
    })
    // Playwright cannot see a request sent while its page unloads; the page keeps a log of its
    // beacons in its own origin's localStorage instead, read back from the next page.
    await page.addInitScript(() => {
      const original = navigator.sendBeacon.bind(navigator)
      navigator.sendBeacon = (url: string | URL, data?: BodyInit | null) => {
        const accepted = original(url, data)
        const log = JSON.parse(localStorage.getItem('beacon-log') ?? '[]') as unknown[]
        log.push({ url: String(url), type: data instanceof Blob ? data.type : typeof data, accepted })
        localStorage.setItem('beacon-log', JSON.stringify(log))
        return accepted
      }
    })
    await page.goto(site.url)
    const state = await recording(page)
    await page.click('#add-item')
    await page.click('#add-item')
    await page.click('#add-item')
    await page.getByText('Item 3').waitFor()
    expect(posts).toBe(0)
    await page.goto(`${site.url}/api/ok`)

    const batches = await eventually(
      () => storedBatches(tenant.organizationId, state.id),
      (b) => JSON.stringify(b).includes('Item 3') && hasFinal(b),
    )
    expect(sequences(batches)).toEqual(range(batches.length))
    // The session's only page was left: the visit is over as far as the recorder can tell.
    expect(batches.at(-1)!.flush).toBe('final')
    expect(batches.filter((b) => b.flush === 'final')).toHaveLength(1)
    const beacons = await page.evaluate(
      () =>
        JSON.parse(localStorage.getItem('beacon-log') ?? '[]') as {
          url: string
          type: string
          accepted: boolean
        }[],
    )
    expect(beacons).toHaveLength(batches.length)
    for (const beacon of beacons) {
      expect(beacon.url).toBe(`${server.baseUrl}/api/sdk/replay?api_key=${encodeURIComponent(tenant.apiKey)}`)
      expect(beacon.type).toBe('text/plain')
      expect(beacon.accepted).toBe(true)
    }
    await context.close()
  })

  it('stops after a 401 without retrying, and does not start with invalid options', async () => {
    const site = await demo('svc_pk_not-a-real-key', { flushIntervalMs: 300 })
    const { context, page } = await newPage()
    const warnings: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'warning' && message.text().startsWith('[session-replay]'))
        warnings.push(message.text())
    })
    let posts = 0
    page.on('request', (request) => {
      if (request.url().startsWith(`${server.baseUrl}/api/sdk/replay`) && request.method() === 'POST') posts++
    })
    await page.goto(site.url)
    await eventually(
      async () => warnings.length,
      (n) => n > 0,
      10_000,
    )
    await page.click('#add-item')
    await page.waitForTimeout(1500)
    expect(posts).toBe(1)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('401')

    const broken = await demo('svc_pk_whatever', { flushIntervalMs: 'often' })
    const page2 = await context.newPage()
    const warnings2: string[] = []
    page2.on('console', (message) => {
      if (message.type() === 'warning' && message.text().startsWith('[session-replay]'))
        warnings2.push(message.text())
    })
    const errors: string[] = []
    page2.on('pageerror', (error) => errors.push(error.message))
    await page2.goto(broken.url)
    await page2.click('#add-item')
    expect(warnings2).toEqual([
      '[session-replay] not started: flushIntervalMs must be a whole number from 100 to 600000',
    ])
    expect(await page2.evaluate(() => sessionStorage.getItem('svc_replay:session'))).toBeNull()
    // The page's own error (the coupon button) is the only one: init threw nothing into the page.
    expect(errors).toEqual([])
    await context.close()
  })
})
