/**
 * Canvas recording and cross-origin iframes (docs/recorder.md#canvas-and-iframes) in Chromium
 * against the real server: what the recorder stores, and what the dashboard's player shows.
 * Two small sites on two ports (two origins): a canvas page and a parent page on one, the
 * framed child page on the other.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { asc, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createBlobStore } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { makeBatch } from '../fixtures/replay-batch'
import { eventually } from '../helpers/wait'
import { type ServerOnPostgres, signUpOwner, startServerOnPostgres } from './dashboard'
import { launchChromium, openServerBatch } from './server'

interface StoredEvent {
  type: number
  timestamp: number
  data: Record<string, unknown>
}

let running: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let blobs: BlobStore
let apiKey: string
const sites: { url: string; stop(): Promise<void> }[] = []

/** A page of a test site: the recorder loaded with `options`, then `body`. */
function page(title: string, options: Record<string, unknown> | null, body: string): string {
  const recorder = options
    ? `<script src="${running.server.baseUrl}/sdk.js" crossorigin="anonymous"></script>
<script>SessionReplay.init(${JSON.stringify({ apiKey, ingestUrl: running.server.baseUrl, flushIntervalMs: 1000, ...options })})</script>`
    : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${recorder}</head>
<body>${body}</body></html>`
}

// An animation for the cost measurement, then a still picture of distinct colours to find in the replay.
const CANVAS_BODY = `<h1>Canvas</h1>
<canvas id="art" width="640" height="360"></canvas>
<button id="animate" type="button">Animate</button>
<script>
// Drawn before the page snapshot: the snapshot carries this picture, the frames what follows.
const early = document.getElementById('art').getContext('2d');
early.fillStyle = '#ffff00';
early.fillRect(0, 0, 640, 360);
document.getElementById('animate').addEventListener('click', () => {
  const ctx = document.getElementById('art').getContext('2d');
  const start = Date.now();
  window.__animation = { start };
  const frame = () => {
    const t = Date.now() - start;
    const gradient = ctx.createLinearGradient(0, 0, 640, 360);
    gradient.addColorStop(0, 'hsl(' + (t / 10 % 360) + ', 70%, 60%)');
    gradient.addColorStop(1, '#223');
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, 640, 360);
    for (let i = 0; i < 12; i++) {
      ctx.fillStyle = 'hsl(' + (i * 30) + ', 80%, 50%)';
      ctx.beginPath();
      ctx.arc(320 + Math.cos(t / 400 + i) * 200, 180 + Math.sin(t / 300 + i) * 120, 24, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.fillStyle = '#fff';
    ctx.font = '28px sans-serif';
    ctx.fillText('Frame at ' + t + ' ms', 20, 40);
    if (t < 4000) return requestAnimationFrame(frame);
    window.__animation.end = Date.now();
    ctx.fillStyle = '#ff0000';
    ctx.fillRect(0, 0, 320, 360);
    ctx.fillStyle = '#0000ff';
    ctx.fillRect(320, 0, 320, 360);
    ctx.fillStyle = '#00ff00';
    ctx.fillRect(0, 300, 640, 60);
    window.__drawn = true;
  };
  requestAnimationFrame(frame);
});
</script>`

const CHILD_BODY = `<p id="child-text">Hello from the child frame</p>
<button id="child-button" type="button">Child button</button>
<script>
document.getElementById('child-button').addEventListener('click', () => {
  document.getElementById('child-text').textContent = 'Child clicked';
  console.error('child frame error log');
});
</script>`

/** A frame without the recorder that posts forged rrweb events to its parent, as an ad could. */
const FORGER_BODY = `<script>
setInterval(() => {
  parent.postMessage({
    type: 'rrweb',
    origin: location.origin,
    isCheckout: false,
    event: { type: 5, timestamp: Date.now(), data: { tag: 'forged-by-frame', payload: { fake: 'error' } } },
  }, '*');
}, 200);
</script>`

// Pages are built per request, so a site's pages can name a site started after it.
async function startSite(routes: (url: string) => Record<string, string>): Promise<string> {
  let url = ''
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const body = routes(url)[new URL(req.url ?? '/', 'http://site').pathname]
    res.writeHead(body ? 200 : 404, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
    })
    res.end(body ?? 'Not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // localhost, not 127.0.0.1: another site than the service's, as on a customer's domain.
  url = `http://localhost:${(server.address() as AddressInfo).port}`
  sites.push({
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
  return url
}

let siteA: string
let siteB: string

beforeAll(async () => {
  running = await startServerOnPostgres()
  blobs = createBlobStore({ kind: 'local', root: path.join(running.server.dataDir, 'blobs') })
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(90_000)
  const owner = await context.newPage()
  await signUpOwner(owner, running.server.baseUrl)
  await owner.close()
  const [organization] = await running.database.db.select().from(organizations)
  apiKey = (await createKey(running.database.db, { organizationId: organization!.id, type: 'ingest' })).key
  siteB = await startSite(() => ({
    '/child': page('Child', { recordCrossOriginIframes: true, parentOrigins: [siteA] }, CHILD_BODY),
    // Trusts another site only: framed by site A it must keep its recording to itself.
    '/child-elsewhere': page(
      'Child for elsewhere',
      { recordCrossOriginIframes: true, parentOrigins: ['https://elsewhere.example'] },
      CHILD_BODY,
    ),
    '/forger': page('Forger', null, FORGER_BODY),
  }))
  siteA = await startSite(() => ({
    '/canvas': page('Canvas', { recordCanvas: true }, CANVAS_BODY),
    '/parent': page(
      'Parent',
      { recordCrossOriginIframes: true },
      `<h1>Parent page</h1><iframe id="child" src="${siteB}/child" width="600" height="200"></iframe>
<iframe id="forger" src="${siteB}/forger" width="10" height="10"></iframe>`,
    ),
    '/parent-untrusted': page(
      'Parent not trusted by its child',
      { recordCrossOriginIframes: true },
      `<h1>Parent page</h1><iframe id="child" src="${siteB}/child-elsewhere" width="600" height="200"></iframe>`,
    ),
    '/parent-without-option': page(
      'Parent without the option',
      {},
      `<h1>Parent page</h1><iframe id="child" src="${siteB}/child" width="600" height="200"></iframe>`,
    ),
  }))
})

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await Promise.all(sites.map((site) => site.stop()))
  await running?.stop()
})

/** The recorder's session id in a page or frame, once it records. */
async function sessionIdIn(target: Page | Frame): Promise<string> {
  await target.waitForFunction(() => sessionStorage.getItem('svc_replay:session') !== null)
  return target.evaluate(
    () => (JSON.parse(sessionStorage.getItem('svc_replay:session')!) as { id: string }).id,
  )
}

/** Every event stored so far for a session, in batch order; null before its first batch. */
async function storedEvents(
  externalId: string,
  final: boolean,
): Promise<{ id: string; events: StoredEvent[] } | null> {
  {
    const [session] = await running.database.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(eq(replaySessions.externalId, externalId))
    if (!session) return null
    const rows = await running.database.db
      .select()
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, session.id))
      .orderBy(asc(replayBatches.sequence))
    if (final && (!rows.some((row) => row.flush === 'final') || rows.some((row, i) => row.sequence !== i)))
      return null
    const events: StoredEvent[] = []
    for (const row of rows) {
      const bytes = await blobs.get(row.blobKey)
      if (!bytes) return null
      events.push(
        ...(
          JSON.parse(
            Buffer.from(await openServerBatch(running.database.db, row.blobKey, bytes)).toString('utf8'),
          ) as {
            replay: { events: StoredEvent[] }
          }
        ).replay.events,
      )
    }
    return { id: session.id, events }
  }
}

/** The stored session (internal id) and all its events once its final batch is in. */
async function storedSession(externalId: string): Promise<{ id: string; events: StoredEvent[] }> {
  return (await eventually(
    () => storedEvents(externalId, true),
    (value) => value !== null,
  ))!
}

/** Waits until the session's stored events so far satisfy `done`. */
async function untilStored(externalId: string, done: (events: StoredEvent[]) => boolean): Promise<void> {
  await eventually(
    () => storedEvents(externalId, false),
    (value) => value !== null && done(value.events),
  )
}

/** The session's replay, moved to its end. */
async function replayAtEnd(sessionId: string): Promise<Page> {
  const dashboard = await context.newPage()
  await dashboard.goto(`${running.server.baseUrl}/sessions/${sessionId}?t=86400000`)
  await dashboard.locator('[data-testid="replay-player"][data-state="ready"]').waitFor({ timeout: 90_000 })
  return dashboard
}

const isCanvasFrame = (event: StoredEvent) => event.type === 3 && event.data.source === 9
const frameBytes = (event: StoredEvent) => JSON.stringify(event).length

describe('canvas recording', () => {
  it('stores canvas frames as images and the player draws them without letting the replay run script', async () => {
    const shop = await context.newPage()
    await shop.goto(`${siteA}/canvas`)
    const externalId = await sessionIdIn(shop)
    await shop.click('#animate')
    await shop.waitForFunction(() => (window as unknown as { __drawn?: boolean }).__drawn === true)
    const animation = await shop.evaluate(
      () => (window as unknown as { __animation: { start: number; end: number } }).__animation,
    )
    // The still picture is taken at the next 2 fps tick and encoded in a worker; then sent. A
    // frame is stamped when its encoding is done, not when its picture was taken, and an
    // unchanged picture is not sent again: on a busy machine a picture of the animation's last
    // moments came out stamped after its end, and the final one followed later (seen with three
    // suites side by side). Two seconds (4 ticks) on, the final picture has been taken.
    // stop() then sends what is left; the session is read once nothing more has arrived for 1 s.
    await shop.waitForTimeout(2_000)
    await shop.evaluate(() => window.SessionReplay!.stop())
    await shop.close()
    let seen = { count: -1, since: Date.now() }
    await untilStored(externalId, (events) => {
      if (events.length !== seen.count) seen = { count: events.length, since: Date.now() }
      return (
        Date.now() - seen.since >= 1_000 &&
        events.some((event) => isCanvasFrame(event) && event.timestamp > animation.end)
      )
    })

    const { id, events } = await storedSession(externalId)
    const frames = events.filter(isCanvasFrame)
    expect(frames.length).toBeGreaterThan(0)
    const image = JSON.stringify(frames.at(-1)!.data)
    expect(image).toContain('"rr_type":"ImageBitmap"')
    expect(image).toContain('"type":"image/webp"')
    // The snapshot holds the yellow picture drawn before it; only the frames hold the last one.
    const snapshot = JSON.stringify(events.find((event) => event.type === 2)!.data)
    expect(snapshot).toContain('"tagName":"canvas"')
    expect(snapshot).toContain('"rr_dataURL":"data:image/webp;base64,')

    // What it costs: the frames of the 4 s animation, at the default 2 fps and quality 0.6.
    const during = frames.filter((f) => f.timestamp >= animation.start && f.timestamp <= animation.end + 600)
    const bytes = during.reduce((sum, f) => sum + frameBytes(f), 0)
    const seconds = (animation.end - animation.start) / 1000
    console.log(
      `canvas 640x360, 2 fps, quality 0.6: ${during.length} frames in ${seconds.toFixed(1)} s, ` +
        `${Math.round(bytes / during.length)} bytes a frame, ${Math.round(bytes / seconds)} bytes/s of JSON`,
    )

    const dashboard = await replayAtEnd(id)
    const iframe = dashboard.locator('[data-testid="replay-player"] iframe')
    expect(await iframe.getAttribute('sandbox')).not.toContain('allow-scripts')
    const pixel = (x: number, y: number) =>
      dashboard.evaluate(
        ([px, py]) => {
          const frame = document.querySelector<HTMLIFrameElement>('[data-testid="replay-player"] iframe')
          const canvas = frame?.contentDocument?.querySelector('canvas')
          const data = canvas?.getContext('2d')?.getImageData(px!, py!, 1, 1).data
          return data ? [data[0]!, data[1]!, data[2]!] : null
        },
        [x, y],
      )
    const near = (rgb: number[] | null, want: number[]) =>
      rgb?.every((value, i) => Math.abs(value - want[i]!) < 48) === true
    await eventually(
      () => pixel(100, 100),
      (rgb) => near(rgb, [255, 0, 0]),
    )
    expect(near(await pixel(500, 100), [0, 0, 255])).toBe(true)
    expect(near(await pixel(320, 340), [0, 255, 0])).toBe(true)
    await dashboard.close()
  }, 240_000)

  it('a forged recording of many 8K canvases is drawn only within the pixel budget, with a note', async () => {
    // Three 8K canvases and a frame for each: two fill the budget, the third is counted, not drawn.
    // The frames are bare PNG headers: nothing decodes them (the budget is charged first).
    const externalId = `forged-canvas-${Date.now()}`
    const batch = makeBatch({ sessionId: externalId, events: 2, flush: 'final', start: Date.now() - 60_000 })
    const [, snapshot] = batch.replay.events as {
      timestamp: number
      data: { node: { childNodes: unknown[] } }
    }[]
    const ids = [100, 101, 102]
    const body = (snapshot!.data.node.childNodes[1] as { childNodes: { childNodes: unknown[] }[] })
      .childNodes[0]!
    body.childNodes = ids.map((id) => ({
      type: 2,
      tagName: 'canvas',
      attributes: { width: '7680', height: '4320' },
      id,
      childNodes: [],
    }))
    const header = Buffer.alloc(33)
    header.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    header.writeUInt32BE(7680, 16)
    header.writeUInt32BE(4320, 20)
    const at = snapshot!.timestamp
    for (const [i, id] of ids.entries())
      batch.replay.events.push({
        type: 3,
        timestamp: at + 100 + i,
        data: {
          source: 9,
          id,
          type: 0,
          commands: [
            { property: 'clearRect', args: [0, 0, 7680, 4320] },
            {
              property: 'drawImage',
              args: [
                {
                  rr_type: 'ImageBitmap',
                  args: [
                    {
                      rr_type: 'Blob',
                      data: [{ rr_type: 'ArrayBuffer', base64: header.toString('base64') }],
                      type: 'image/png',
                    },
                  ],
                },
                0,
                0,
              ],
            },
          ],
        },
      })
    // A later event, so that the frames come before the moment the replay opens at.
    batch.replay.events.push({
      type: 3,
      timestamp: at + 1000,
      data: { source: 1, positions: [{ x: 10, y: 10, id: 100, timeOffset: 0 }] },
    })
    batch.session.startedAt = at
    batch.session.lastActivityAt = at + 1000
    const response = await fetch(`${running.server.baseUrl}/api/sdk/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
      body: JSON.stringify(batch),
    })
    expect(response.status).toBe(200)
    const { id } = await storedSession(externalId)
    const dashboard = await replayAtEnd(id)
    const note = dashboard.locator('[data-testid="replay-canvas-note"]')
    await note.waitFor({ timeout: 30_000 })
    expect(await note.textContent()).toContain('1 canvas of this recording is not drawn')
    await dashboard.close()
  }, 240_000)
})

describe('cross-origin iframes', () => {
  it("records the child frame into the parent's session, the child uploads nothing, and the player shows it", async () => {
    const parent = await context.newPage()
    const uploadsFromChild: string[] = []
    parent.on('request', (request) => {
      if (
        request.url().startsWith(`${running.server.baseUrl}/api/sdk/`) &&
        request.frame().url().startsWith(siteB)
      )
        uploadsFromChild.push(request.url())
    })
    await parent.goto(`${siteA}/parent`)
    const externalId = await sessionIdIn(parent)
    const child = parent.frames().find((frame) => frame.url().startsWith(`${siteB}/child`))!
    await child.waitForSelector('#child-text')
    // Once the parent's recorder has answered, the child's rrweb posts its snapshot through it.
    await untilStored(externalId, (events) => JSON.stringify(events).includes('Hello from the child frame'))
    await child.click('#child-button')
    await child.getByText('Child clicked').waitFor()
    // The player stops at the last event without applying that moment's events: later ones follow.
    await parent.click('h1')
    // The child kept nothing of its own: no session, no visitor id, no pending batches.
    expect(
      await child.evaluate(() => [
        sessionStorage.getItem('svc_replay:session'),
        localStorage.getItem('svc_replay:anonymous_id'),
      ]),
    ).toEqual([null, null])
    await parent.evaluate(() => window.SessionReplay!.stop())
    await parent.close()

    const { id, events } = await storedSession(externalId)
    const text = JSON.stringify(events)
    expect(text).toContain('Hello from the child frame')
    expect(text).toContain('Child clicked')
    // The child's console reached the parent's session through rrweb.
    expect(text).toContain('child frame error log')
    const clicks = events.filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2)
    expect(clicks.length).toBeGreaterThan(0)
    // The forging frame posted all along, but never said hello: the guard kept its events out.
    expect(text).not.toContain('forged-by-frame')
    expect(uploadsFromChild).toEqual([])
    const entries = await running.database.db.select({ url: replaySessions.entryUrl }).from(replaySessions)
    expect(entries.filter((s) => s.url.startsWith(siteB))).toEqual([])

    const dashboard = await replayAtEnd(id)
    // The child's document is rebuilt inside the replayed iframe element (read from this page:
    // the replay's frames run no script, so Playwright does not see them as frames).
    const childText = () =>
      dashboard.evaluate(() => {
        const replay = document.querySelector<HTMLIFrameElement>('[data-testid="replay-player"] iframe')
        const inner = replay?.contentDocument?.querySelector('iframe')
        return inner?.contentDocument?.body?.textContent ?? null
      })
    expect(await eventually(childText, (text) => text?.includes('Child clicked') === true)).toContain(
      'Child button',
    )
    await dashboard.close()
  }, 240_000)

  it("a child whose parentOrigins lacks the embedding page's origin records its own session and relays nothing", async () => {
    const parent = await context.newPage()
    await parent.goto(`${siteA}/parent-untrusted`)
    const parentSession = await sessionIdIn(parent)
    const child = parent.frames().find((frame) => frame.url().startsWith(`${siteB}/child`))!
    // The parent records with the option, but the child never says hello to its origin.
    const childSession = await sessionIdIn(child)
    expect(childSession).not.toBe(parentSession)
    await child.click('#child-button')
    await child.evaluate(() => window.SessionReplay!.stop())
    expect(JSON.stringify((await storedSession(childSession)).events)).toContain('Child clicked')
    await parent.click('h1')
    await parent.evaluate(() => window.SessionReplay!.stop())
    await parent.close()
    const parentText = JSON.stringify((await storedSession(parentSession)).events)
    expect(parentText).toContain('Parent page')
    expect(parentText).not.toContain('Hello from the child frame')
    expect(parentText).not.toContain('child frame error log')
  }, 120_000)

  it('a child whose parent records without the option records its own session, as without it', async () => {
    const parent = await context.newPage()
    await parent.goto(`${siteA}/parent-without-option`)
    const parentSession = await sessionIdIn(parent)
    const child = parent.frames().find((frame) => frame.url().startsWith(siteB))!
    // No answer from the parent: after its wait the child starts a session of its own.
    const childSession = await sessionIdIn(child)
    expect(childSession).not.toBe(parentSession)
    await child.click('#child-button')
    await child.evaluate(() => window.SessionReplay!.stop())
    const { events } = await storedSession(childSession)
    expect(JSON.stringify(events)).toContain('Child clicked')
    await parent.evaluate(() => window.SessionReplay!.stop())
    await parent.close()
  }, 120_000)
})
