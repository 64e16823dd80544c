/**
 * Consent in the recorder (issue 33) in Chromium: with `consent: 'pending'` a page sends
 * nothing and keeps nothing of ours in cookies, localStorage or sessionStorage;
 * `setConsent('granted')` starts recording; the service's mask selectors in the ingest answer
 * restart it masked; withdrawal stops it and clears our storage; a second grant is a new
 * session. The recorder is what `sdk.js` is built from now (esbuild in memory, as
 * scripts/build-sdk.mjs builds it), served with a page and a stand-in for the ingest API by a
 * small server of the test's own, so no service has to start: what the recorder sends and
 * stores is all that is checked here.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { build } from 'esbuild'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './server'

interface Upload {
  session: { id: string }
  user: { anonymousId: string }
  replay: { events: { type: number; timestamp: number; data: unknown }[]; sequence: number }
}

const SECRET = 'Card of Ada Lovelace 4242'
let server: Server
let origin: string
let browser: Browser
const uploads: Upload[] = []
/** What the stand-in ingest answers: `{ok: true}`, plus mask settings once a test sets them. */
let maskSelectors: string[] = []

const pageHtml = (apiKey: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Consent shop</title>
<script src="/sdk.js"></script>
<script>SessionReplay.init(${JSON.stringify({ apiKey, ingestUrl: 'ORIGIN', consent: 'pending', flushIntervalMs: 200 })})</script>
</head><body>
<h1>Consent shop</h1>
<p id="card">${SECRET}</p>
<button id="add" type="button" onclick="document.getElementById('items').append(Object.assign(document.createElement('li'), {textContent: 'Item'}))">Add</button>
<ul id="items"></ul>
</body></html>`

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [path.join(process.cwd(), 'sdk', 'src', 'standalone.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    write: false,
    logLevel: 'warning',
  })
  const sdk = bundle.outputFiles[0]!.text
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop')
    if (req.method === 'POST' && url.pathname === '/api/sdk/replay') {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const raw = Buffer.concat(chunks)
        const gzip = raw[0] === 0x1f && raw[1] === 0x8b
        uploads.push(JSON.parse((gzip ? gunzipSync(raw) : raw).toString('utf8')) as Upload)
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end(
          JSON.stringify(
            maskSelectors.length ? { ok: true, mask: { selectors: maskSelectors } } : { ok: true },
          ),
        )
      })
      return
    }
    if (url.pathname === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' })
      return res.end(sdk)
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
    res.end(pageHtml('svc_pk_consent').replace('ORIGIN', origin))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
})

async function eventually(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Everything the site's origin holds in cookies and Web Storage (the page itself stores nothing). */
async function deviceState(context: BrowserContext, page: Page) {
  const storage = await page.evaluate(() => ({
    local: Object.keys(localStorage),
    session: Object.keys(sessionStorage),
  }))
  return { cookies: (await context.cookies()).map((c) => c.name), ...storage }
}

const EMPTY_DEVICE = { cookies: [], local: [], session: [] }
const fullSnapshots = () => uploads.flatMap((u) => u.replay.events).filter((e) => e.type === 2)

describe('consent', () => {
  it('sends and stores nothing while pending, records once granted, masks on the service’s word, and forgets on withdrawal', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const requests: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/sdk/')) requests.push(request.url())
    })

    // Pending: a visit with clicks, a reload (pagehide: the beacon path) and more clicks.
    await page.goto(origin)
    await page.click('#add')
    await page.reload()
    await page.click('#add')
    await page.mouse.move(100, 100)
    await pause(1000)
    expect(requests).toEqual([])
    expect(uploads).toEqual([])
    expect(await deviceState(context, page)).toEqual(EMPTY_DEVICE)

    // Granted: recording starts as init() would have, from a full snapshot.
    await page.evaluate(() => window.SessionReplay!.setConsent('granted'))
    await page.click('#add')
    await eventually(() => fullSnapshots().length === 1, 'the first batch')
    const first = uploads[0]!
    expect(first.replay.sequence).toBe(0)
    expect(JSON.stringify(first.replay.events)).toContain(SECRET)
    const granted = await deviceState(context, page)
    expect(granted.session).toContain('svc_replay:session')
    expect(granted.local).toContain('svc_replay:anonymous_id')

    // The service asks to mask #card: rrweb restarts once, and the new snapshot hides the text.
    maskSelectors = ['#card', 'div:is(.open', '#not valid!']
    await page.click('#add')
    await eventually(() => fullSnapshots().length === 2, 'the snapshot taken with the new mask')
    expect(JSON.stringify(fullSnapshots()[1])).not.toContain(SECRET)
    await page.click('#add')
    await pause(600)
    expect(fullSnapshots()).toHaveLength(2)

    // Withdrawn: nothing more is sent and our keys are gone.
    await page.evaluate(() => window.SessionReplay!.setConsent('denied'))
    const sentBefore = requests.length
    expect(await deviceState(context, page)).toEqual(EMPTY_DEVICE)
    await page.click('#add')
    await page.mouse.move(200, 200)
    await pause(800)
    expect(requests).toHaveLength(sentBefore)
    expect(await deviceState(context, page)).toEqual(EMPTY_DEVICE)

    // Granted again on the same page: a new session with new ids.
    await page.evaluate(() => window.SessionReplay!.setConsent('granted'))
    await page.click('#add')
    await eventually(() => uploads.some((u) => u.session.id !== first.session.id), 'the new session')
    const second = uploads.find((u) => u.session.id !== first.session.id)!
    expect(second.replay.sequence).toBe(0)
    expect(second.user.anonymousId).not.toBe(first.user.anonymousId)

    // Withdrawn again, then the page is left: no beacon goes, and nothing of ours is left.
    await page.evaluate(() => window.SessionReplay!.setConsent('denied'))
    const sentAtLeave = requests.length
    await page.click('#add')
    await page.reload()
    await pause(300)
    expect(requests).toHaveLength(sentAtLeave)
    expect(await deviceState(context, page)).toEqual(EMPTY_DEVICE)
    await context.close()
  })
})
