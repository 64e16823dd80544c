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
 *     own busy time. Gate: under 5 % of the main thread.
 * Uploads go to a stub ingest endpoint in this process: the server's cost is not measured here.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
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
  return {
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

async function startBenchSite() {
  const sdk = readFileSync(path.join(root, 'sdk', 'dist', 'sdk.js'))
  const uploads = { count: 0, bytes: 0 }
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
      req.on('data', (chunk: Buffer) => {
        uploads.bytes += chunk.length
      })
      req.on('end', () => {
        uploads.count++
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end('{"ok":true}')
      })
      return
    }
    if (url.pathname === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk)
      return
    }
    if (url.pathname === '/api/data') {
      const items = Array.from({ length: 20 }, (_, i) => `item-${url.searchParams.get('page')}-${i}`)
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ items }))
      return
    }
    const recorder =
      url.searchParams.get('recorder') === '1'
        ? `<script src="${origin}/sdk.js" data-api-key="svc_pk_bench" data-ingest-url="${origin}"></script>`
        : ''
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pageHtml(recorder))
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

async function measure(origin: string, withRecorder: boolean, seconds: number) {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' })
    const metrics = async () => {
      const { metrics } = (await cdp.send('Performance.getMetrics')) as {
        metrics: { name: string; value: number }[]
      }
      const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0
      return { task: get('TaskDuration'), script: get('ScriptDuration') }
    }
    const before = await metrics()
    const started = Date.now()
    await page.goto(`${origin}/?recorder=${withRecorder ? 1 : 0}`)
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

async function main() {
  const sizes = await bundleSizes()
  const site = await startBenchSite()
  // Alternating order would be fairer on a noisy machine; one warm-up run levels the cold start.
  await measure(site.origin, false, 5)
  const without = await measure(site.origin, false, durationSeconds)
  const uploadsBefore = site.uploads.count
  const withRec = await measure(site.origin, true, durationSeconds)
  await site.close()

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
      'batches uploaded',
      `${site.uploads.count - uploadsBefore} (${(site.uploads.bytes / KB).toFixed(0)} KB on the wire)`,
    ],
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
      uploads: site.uploads.count - uploadsBefore,
      pass: ownOk && cpuOk,
    }),
  )
  process.exitCode = ownOk && cpuOk ? 0 : 1
}

await main()
