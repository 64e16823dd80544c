/**
 * Recorder benchmark (`npx tsx tests/bench/sdk.ts [--duration 60]`):
 *  1. Bundle size, gzipped: the script tag build (sdk/dist/sdk.js), our own code without rrweb
 *     (the same entry built with rrweb external) and rrweb's share (the difference).
 *     Gate: own code under 60 KB gzipped.
 *  2. CPU overhead: one scripted browsing session in Chromium on a busy demo page (timer-driven
 *     DOM updates, clicks, typing, scrolling, fetches, SPA navigations), run without and with
 *     the recorder. Main-thread busy time comes from CDP `Performance.getMetrics`
 *     (TaskDuration: all main-thread tasks incl. script, style, layout; ScriptDuration: script
 *     only). Overhead = extra main-thread time with the recorder, as a share of the session's
 *     wall time (how much of the main thread the recorder takes) and relative to the page's
 *     own busy time. Gate: under 5 % of the main thread. The same session again with network
 *     capture on (`networkDetails: { urls: ['/'] }`), when the built recorder supports it.
 *  3. A busy page (`--busy-duration`, default 10 s): a ticker making 10,000 DOM changes a
 *     second in one subtree, beside a quiet clock. Main-thread busy time without the recorder,
 *     with it and the mutation guard off, and with the guard on; and whether the page stays
 *     responsive: the worst delay of a 50 ms interval timer and the long tasks (> 50 ms) it
 *     had. The same three runs on a second busy page: 10,000 styled elements a second inserted
 *     as prebuilt subtrees (one appendChild per 100 elements), where the recorder without the
 *     guard falls behind. No gate: the figures are for docs/recorder.md.
 *  Sizes: gzipped, sdk.js and every other script in sdk/dist that is loaded as a separate part.
 * Uploads go to a stub ingest endpoint in this process: the server's cost is not measured here.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import type { Page } from 'playwright-core'
import { launchChromium } from '../e2e/server'

const root = process.cwd()
const durationArg = process.argv.indexOf('--duration')
const durationSeconds = durationArg > 0 ? Number(process.argv[durationArg + 1]) : 60
if (!Number.isFinite(durationSeconds) || durationSeconds < 5) {
  console.error('--duration must be a number of seconds, at least 5')
  process.exit(2)
}
const busyArg = process.argv.indexOf('--busy-duration')
const busySeconds = busyArg > 0 ? Number(process.argv[busyArg + 1]) : 10
if (!Number.isFinite(busySeconds) || busySeconds < 3) {
  console.error('--busy-duration must be a number of seconds, at least 3')
  process.exit(2)
}
const KB = 1024
const OWN_CODE_LIMIT_KB = 60
const CPU_LIMIT_PERCENT = 5

async function bundleSizes() {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-sdk.mjs')], { stdio: 'ignore' })
  const full = readFileSync(path.join(root, 'sdk', 'dist', 'sdk.js'))
  const meta = JSON.parse(readFileSync(path.join(root, 'sdk', 'dist', 'meta.json'), 'utf8')) as {
    inputs: Record<string, { bytes: number }>
  }
  // Unminified source bytes by origin: our sdk/ sources versus rrweb and its dependencies.
  let dependencyInputBytes = 0
  let ownInputBytes = 0
  for (const [input, { bytes }] of Object.entries(meta.inputs)) {
    if (input.includes('node_modules/')) dependencyInputBytes += bytes
    else ownInputBytes += bytes
  }
  // Our code alone, minified the same way, with rrweb left as an import.
  const own = await build({
    entryPoints: [path.join(root, 'sdk', 'src', 'standalone.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    write: false,
    external: ['rrweb', '@rrweb/*'],
    legalComments: 'none',
  })
  const ownBytes = own.outputFiles[0]!.contents
  const fullGzip = gzipSync(full, { level: 9 }).length
  const ownGzip = gzipSync(ownBytes, { level: 9 }).length
  // Parts loaded on their own (sdk-network.js…): every browser script in dist but the two builds.
  const parts: Record<string, number> = {}
  for (const name of readdirSync(path.join(root, 'sdk', 'dist')).sort()) {
    if (!name.endsWith('.js') || name === 'sdk.js') continue
    parts[name] = gzipSync(readFileSync(path.join(root, 'sdk', 'dist', name)), { level: 9 }).length
  }
  return {
    parts,
    sdkJsBytes: full.length,
    sdkJsGzip: fullGzip,
    ownGzip,
    rrwebGzip: fullGzip - ownGzip,
    ownInputBytes,
    dependencyInputBytes,
  }
}

const APP = `
const rows = document.getElementById('rows');
for (let i = 0; i < 100; i++) {
  const tr = document.createElement('tr');
  tr.innerHTML = '<td>SKU-' + i + '</td><td class="qty">' + (i % 7) + '</td><td>' + (i * 3.5).toFixed(2) + '</td>';
  rows.appendChild(tr);
}
setInterval(() => {
  document.getElementById('clock').textContent = new Date().toISOString();
  const cells = document.querySelectorAll('.qty');
  cells[Math.floor(Math.random() * cells.length)].textContent = String(Math.floor(Math.random() * 50));
}, 250);
document.getElementById('add').addEventListener('click', () => {
  const li = document.createElement('li');
  li.className = 'note';
  li.textContent = 'Note ' + document.querySelectorAll('.note').length;
  document.getElementById('notes').prepend(li);
});
document.getElementById('load').addEventListener('click', async () => {
  const data = await (await fetch('/api/data?page=' + Math.floor(Math.random() * 10))).json();
  document.getElementById('result').textContent = data.items.join(', ');
});
document.getElementById('search').addEventListener('input', (e) => {
  const q = e.target.value.toLowerCase();
  for (const tr of rows.children) tr.style.display = tr.textContent.toLowerCase().includes(q) ? '' : 'none';
});
document.getElementById('nav').addEventListener('click', () => {
  const next = location.pathname === '/' ? '/catalog' : '/';
  history.pushState({}, '', next);
  document.getElementById('title').textContent = next === '/' ? 'Home' : 'Catalog';
});
`

function pageHtml(recorder: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>${recorder}
<style>body{font-family:sans-serif} td{padding:2px 8px} .tall{height:3000px}</style></head><body>
<h1 id="title">Home</h1><p id="clock"></p>
<button id="add">Add note</button><button id="load">Load data</button><button id="nav">Navigate</button>
<label>Search <input id="search" type="search"></label>
<p id="result"></p><ul id="notes"></ul>
<table><tbody id="rows"></tbody></table><div class="tall"></div>
<script>${APP}</script></body></html>`
}

/** Both busy pages measure how late a 50 ms timer fires and the long tasks they had. */
const RESPONSIVENESS_PROBE = `let last = performance.now();
setInterval(() => {
  const now = performance.now();
  probe.maxDelayMs = Math.max(probe.maxDelayMs, now - last - 50);
  last = now;
}, 50);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) { probe.longTasks++; probe.longTaskMs += entry.duration; }
}).observe({ type: 'longtask' });
`

// 100 cell changes every 10 ms in #ticker (10,000 DOM changes a second), a clock beside it, and
// the probe: how late a 50 ms interval timer fires at worst, and the long tasks the page had.
const BUSY_APP = `
const quotes = document.getElementById('quotes');
for (let i = 0; i < 200; i++) {
  const tr = document.createElement('tr');
  tr.innerHTML = '<td>SYM' + i + '</td><td class="px">0</td>';
  quotes.appendChild(tr);
}
const cells = quotes.querySelectorAll('.px');
const probe = { changes: 0, maxDelayMs: 0, longTasks: 0, longTaskMs: 0, startedAt: performance.now() };
window.__probe = probe;
let next = 0;
setInterval(() => {
  for (let i = 0; i < 100; i++) cells[(next + i) % cells.length].textContent = (Math.random() * 100).toFixed(2);
  next += 100;
  probe.changes += 100;
}, 10);
setInterval(() => { document.getElementById('clock').textContent = new Date().toISOString(); }, 250);
${RESPONSIVENESS_PROBE}`

// The second busy page: 10,000 elements a second inserted into #feed as prebuilt subtrees (ten
// cards of 100 styled elements every 100 ms, each one appendChild), the oldest cards removed so
// the DOM stays the same size. One MutationObserver record per card, but one rrweb entry per
// node, each serialised with its attributes and inline style: the recorder without the guard
// falls behind here, where the text ticker above did not make it. The same probe.
const INSERTS_APP = `
const feed = document.getElementById('feed');
const probe = { changes: 0, maxDelayMs: 0, longTasks: 0, longTaskMs: 0, startedAt: performance.now() };
window.__probe = probe;
let n = 0;
const card = () => {
  const div = document.createElement('div');
  div.className = 'card';
  div.setAttribute('data-id', String(n++));
  for (let i = 0; i < 99; i++) {
    const span = document.createElement('span');
    span.className = 'cell c' + (i % 7);
    span.setAttribute('data-col', String(i));
    span.setAttribute('title', 'cell ' + i);
    span.style.cssText = 'color: rgb(' + (i * 2) + ',40,80); padding: 1px; margin-left: ' + (i % 5) + 'px';
    span.textContent = String(i);
    div.appendChild(span);
  }
  return div;
};
setInterval(() => {
  for (let i = 0; i < 10; i++) {
    feed.appendChild(card());
    if (feed.childElementCount > 30) feed.firstElementChild.remove();
  }
  probe.changes += 1000;
}, 100);
${RESPONSIVENESS_PROBE}`

function insertsPageHtml(recorder: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Inserts bench</title>${recorder}</head><body>
<h1>Feed</h1><div id="feed"></div>
<script>${INSERTS_APP}</script></body></html>`
}

function busyPageHtml(recorder: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Busy bench</title>${recorder}</head><body>
<h1>Quotes</h1><p id="clock"></p><div id="ticker"><table><tbody id="quotes"></tbody></table></div>
<script>${BUSY_APP}</script></body></html>`
}

/** What every bench upload said, read back from its gzipped body. */
interface UploadStats {
  count: number
  bytes: number
  guardEvents: number
  degradedBatches: number
  /** Separately loaded parts (sdk-network.js…) the pages asked for. */
  partsServed: number
}

async function startBenchSite() {
  const sdk = readFileSync(path.join(root, 'sdk', 'dist', 'sdk.js'))
  const uploads: UploadStats = { count: 0, bytes: 0, guardEvents: 0, degradedBatches: 0, partsServed: 0 }
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Content-Type, Content-Encoding, X-Service-Api-Key',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Max-Age': '86400',
  }
  let origin = ''
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench')
    if (url.pathname === '/api/sdk/replay') {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors).end()
        return
      }
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => {
        uploads.bytes += chunk.length
        chunks.push(chunk)
      })
      req.on('end', () => {
        uploads.count++
        const raw = Buffer.concat(chunks)
        try {
          const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
          uploads.guardEvents += text.split('"tag":"svc.guard"').length - 1
          if (text.includes('"degraded":true')) uploads.degradedBatches++
        } catch {
          // A body the stub cannot read is still counted as an upload.
        }
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end('{"ok":true}')
      })
      return
    }
    if (url.pathname === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk)
      return
    }
    // Parts the recorder loads on its own (sdk-network.js…), from the same folder as sdk.js.
    const part = /^\/(sdk-[a-z0-9-]{1,40}\.js)$/.exec(url.pathname)?.[1]
    if (part && existsSync(path.join(root, 'sdk', 'dist', part))) {
      uploads.partsServed++
      res
        .writeHead(200, { 'Content-Type': 'text/javascript' })
        .end(readFileSync(path.join(root, 'sdk', 'dist', part)))
      return
    }
    if (url.pathname === '/api/data') {
      const items = Array.from({ length: 20 }, (_, i) => `item-${url.searchParams.get('page')}-${i}`)
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ items }))
      return
    }
    const options = url.searchParams.get('options')
    const recorder =
      url.searchParams.get('recorder') !== '1'
        ? ''
        : options === null
          ? `<script src="${origin}/sdk.js" data-api-key="svc_pk_bench" data-ingest-url="${origin}"></script>`
          : // Options beyond the data attributes need an explicit init(); its answer tells whether the build took them.
            `<script src="${origin}/sdk.js"></script><script>window.__recorderInit = SessionReplay.init(${JSON.stringify(
              {
                apiKey: 'svc_pk_bench',
                ingestUrl: origin,
                ...(JSON.parse(options) as Record<string, unknown>),
              },
            ).replaceAll('<', '\\u003c')})</script>`
    const html =
      url.pathname === '/busy'
        ? busyPageHtml(recorder)
        : url.pathname === '/inserts'
          ? insertsPageHtml(recorder)
          : pageHtml(recorder)
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, uploads, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The same scripted session every time: one round of actions per second of wall time. */
async function browse(page: Page, seconds: number): Promise<void> {
  const end = Date.now() + seconds * 1000
  let round = 0
  while (Date.now() < end) {
    round++
    const started = Date.now()
    for (let i = 0; i < 4; i++)
      await page.mouse.move(100 + ((round * 37 + i * 90) % 600), 100 + ((i * 53) % 300), { steps: 4 })
    await page.click('#add')
    if (round % 2 === 0) await page.click('#load')
    if (round % 3 === 0) {
      await page.fill('#search', '')
      await page.type('#search', `sku-${round % 10}`, { delay: 20 })
    }
    await page.mouse.wheel(0, round % 2 === 0 ? 600 : -600)
    if (round % 5 === 0) await page.click('#nav')
    const left = 1000 - (Date.now() - started)
    if (left > 0) await page.waitForTimeout(left)
  }
}

async function openMeasured(page: Page) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' })
  return async () => {
    const { metrics } = (await cdp.send('Performance.getMetrics')) as {
      metrics: { name: string; value: number }[]
    }
    const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0
    return { task: get('TaskDuration'), script: get('ScriptDuration') }
  }
}

const recorderQuery = (withRecorder: boolean, options?: Record<string, unknown>) =>
  `recorder=${withRecorder ? 1 : 0}${options ? `&options=${encodeURIComponent(JSON.stringify(options))}` : ''}`

async function measure(
  origin: string,
  withRecorder: boolean,
  seconds: number,
  options?: Record<string, unknown>,
) {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const metrics = await openMeasured(page)
    const before = await metrics()
    const started = Date.now()
    await page.goto(`${origin}/?${recorderQuery(withRecorder, options)}`)
    if (options && !(await page.evaluate(() => (window as { __recorderInit?: boolean }).__recorderInit)))
      return null
    if (withRecorder) await page.waitForFunction(() => sessionStorage.getItem('svc_replay:session') !== null)
    await browse(page, seconds)
    const after = await metrics()
    const wallMs = Date.now() - started
    return {
      taskMs: (after.task - before.task) * 1000,
      scriptMs: (after.script - before.script) * 1000,
      wallMs,
    }
  } finally {
    await browser.close()
  }
}

type BusyMode = 'none' | 'guard-off' | 'guard-on'

interface Probe {
  changes: number
  maxDelayMs: number
  longTasks: number
  longTaskMs: number
  startedAt: number
}

/** The busy page for `seconds`: main-thread time, the responsiveness probe and what was uploaded. */
async function measureBusy(
  origin: string,
  uploads: UploadStats,
  mode: BusyMode,
  seconds: number,
  pagePath: '/busy' | '/inserts' = '/busy',
) {
  const browser = await launchChromium()
  const before = { ...uploads }
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const metrics = await openMeasured(page)
    const start = await metrics()
    const started = Date.now()
    const options =
      mode === 'none' ? undefined : { mutationGuard: mode === 'guard-on', flushIntervalMs: 1000 }
    await page.goto(`${origin}${pagePath}?${recorderQuery(mode !== 'none', options)}`)
    await page.waitForTimeout(seconds * 1000)
    const probe = (await page.evaluate(
      () => (window as unknown as { __probe: Probe & { now: number } }).__probe,
    )) as Probe
    const elapsed = await page.evaluate((since) => performance.now() - since, probe.startedAt)
    const end = await metrics()
    // Time for the last batches to arrive before the counts are read.
    await page.waitForTimeout(1500)
    return {
      taskMs: (end.task - start.task) * 1000,
      scriptMs: (end.script - start.script) * 1000,
      wallMs: Date.now() - started,
      changesPerSecond: Math.round((probe.changes / elapsed) * 1000),
      maxTimerDelayMs: Math.round(probe.maxDelayMs),
      longTasks: probe.longTasks,
      longTaskMs: Math.round(probe.longTaskMs),
      uploads: uploads.count - before.count,
      uploadKB: Math.round((uploads.bytes - before.bytes) / KB),
      guardEvents: uploads.guardEvents - before.guardEvents,
      degradedBatches: uploads.degradedBatches - before.degradedBatches,
    }
  } finally {
    await browser.close()
  }
}

async function main() {
  const sizes = await bundleSizes()
  const site = await startBenchSite()
  // Alternating order would be fairer on a noisy machine; one warm-up run levels the cold start.
  await measure(site.origin, false, 5)
  const without = await measure(site.origin, false, durationSeconds)
  const uploadsBefore = site.uploads.count
  const withRec = await measure(site.origin, true, durationSeconds)
  if (!withRec) throw new Error('the recorder did not start')
  const recorded = { count: site.uploads.count - uploadsBefore, bytes: site.uploads.bytes }
  // Network capture on every request of the page, if this build of the recorder has it.
  const partsBefore = site.uploads.partsServed
  const withNetwork = await measure(site.origin, true, durationSeconds, { networkDetails: { urls: ['/'] } })
  const networkPartLoaded = site.uploads.partsServed > partsBefore
  const busy = {
    none: await measureBusy(site.origin, site.uploads, 'none', busySeconds),
    guardOff: await measureBusy(site.origin, site.uploads, 'guard-off', busySeconds),
    guardOn: await measureBusy(site.origin, site.uploads, 'guard-on', busySeconds),
  }
  const inserts = {
    none: await measureBusy(site.origin, site.uploads, 'none', busySeconds, '/inserts'),
    guardOff: await measureBusy(site.origin, site.uploads, 'guard-off', busySeconds, '/inserts'),
    guardOn: await measureBusy(site.origin, site.uploads, 'guard-on', busySeconds, '/inserts'),
  }
  await site.close()
  if (!without) throw new Error('the page did not load')

  const extraTaskMs = withRec.taskMs - without.taskMs
  const extraScriptMs = withRec.scriptMs - without.scriptMs
  const overheadOfWallPercent = (extraTaskMs / withRec.wallMs) * 100
  const overheadOfBusyPercent = (extraTaskMs / without.taskMs) * 100
  const ownOk = sizes.ownGzip < OWN_CODE_LIMIT_KB * KB
  const cpuOk = overheadOfWallPercent < CPU_LIMIT_PERCENT

  const rows: [string, string][] = [
    ['sdk.js (minified)', `${(sizes.sdkJsBytes / KB).toFixed(1)} KB`],
    ['sdk.js gzipped', `${(sizes.sdkJsGzip / KB).toFixed(1)} KB`],
    ['  rrweb share, gzipped', `${(sizes.rrwebGzip / KB).toFixed(1)} KB`],
    [
      `  own code, gzipped (limit ${OWN_CODE_LIMIT_KB} KB)`,
      `${(sizes.ownGzip / KB).toFixed(1)} KB ${ownOk ? 'ok' : 'OVER'}`,
    ],
    ['session length', `${durationSeconds} s`],
    [
      'main-thread busy without recorder',
      `${without.taskMs.toFixed(0)} ms (script ${without.scriptMs.toFixed(0)} ms)`,
    ],
    [
      'main-thread busy with recorder',
      `${withRec.taskMs.toFixed(0)} ms (script ${withRec.scriptMs.toFixed(0)} ms)`,
    ],
    ['recorder main-thread time', `${extraTaskMs.toFixed(0)} ms (script ${extraScriptMs.toFixed(0)} ms)`],
    [
      `overhead, share of the main thread (limit ${CPU_LIMIT_PERCENT} %)`,
      `${overheadOfWallPercent.toFixed(2)} % ${cpuOk ? 'ok' : 'OVER'}`,
    ],
    ['overhead, relative to the page’s own busy time', `${overheadOfBusyPercent.toFixed(1)} %`],
    [
      'with network capture on (networkDetails: every URL)',
      withNetwork
        ? `${withNetwork.taskMs.toFixed(0)} ms busy, ${(((withNetwork.taskMs - without.taskMs) / withNetwork.wallMs) * 100).toFixed(2)} % of the main thread${networkPartLoaded ? '' : ' (no separate part was loaded: this build may not capture details yet)'}`
        : 'not supported by this build (init refused networkDetails)',
    ],
    ...Object.entries(sizes.parts).map(([name, bytes]): [string, string] => [
      `${name} gzipped (separately loaded part)`,
      `${(bytes / KB).toFixed(1)} KB`,
    ]),
    ...(
      [
        [`busy page (10,000 DOM changes/s in one subtree), ${busySeconds} s`, busy],
        [`inserts page (10,000 styled elements/s as prebuilt subtrees), ${busySeconds} s`, inserts],
      ] as const
    ).flatMap(
      ([title, runs]): Array<[string, string]> => [
        [title, ''],
        ...(
          [
            ['  without recorder', runs.none],
            ['  recorder, guard off', runs.guardOff],
            ['  recorder, guard on', runs.guardOn],
          ] as const
        ).map(([label, run]): [string, string] => [
          label,
          `${run.taskMs.toFixed(0)} ms busy (script ${run.scriptMs.toFixed(0)} ms) · ${run.changesPerSecond} changes/s done · timer late ≤ ${run.maxTimerDelayMs} ms · ${run.longTasks} long tasks (${run.longTaskMs} ms) · ${run.uploads} batches, ${run.uploadKB} KB${run !== runs.none ? ` · guard events ${run.guardEvents}, degraded batches ${run.degradedBatches}` : ''}`,
        ]),
      ],
    ),
    ['batches uploaded', `${recorded.count} (${(recorded.bytes / KB).toFixed(0)} KB on the wire)`],
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`)
  console.log(
    JSON.stringify({
      bench: 'sdk',
      sizes,
      cpu: {
        method: 'CDP Performance.getMetrics TaskDuration (threadTicks)',
        durationSeconds,
        withoutTaskMs: Math.round(without.taskMs),
        withTaskMs: Math.round(withRec.taskMs),
        extraTaskMs: Math.round(extraTaskMs),
        extraScriptMs: Math.round(extraScriptMs),
        overheadOfWallPercent: Number(overheadOfWallPercent.toFixed(2)),
        overheadOfBusyPercent: Number(overheadOfBusyPercent.toFixed(1)),
      },
      network: withNetwork
        ? {
            taskMs: Math.round(withNetwork.taskMs),
            extraTaskMs: Math.round(withNetwork.taskMs - without.taskMs),
            partLoaded: networkPartLoaded,
          }
        : null,
      busy: { durationSeconds: busySeconds, ...busy },
      inserts: { durationSeconds: busySeconds, ...inserts },
      uploads: recorded.count,
      pass: ownOk && cpuOk,
    }),
  )
  process.exitCode = ownOk && cpuOk ? 0 : 1
}

await main()
