/**
 * Issue 19, "Done when": a small app built by esbuild into a minified bundle with a map; the
 * map is uploaded over HTTP; a session recorded in Chromium throws in the bundle, and the
 * issue shows the original file, line, function and source line. The same app rebuilt with a
 * change that moves the minified columns, deployed as a new release and throwing the same
 * error, joins the same issue.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { organizations, sourcemapFiles } from '@/db/schema'
import type { SymbolicatedFrame } from '@/lib/analysis/frames'
import { createKey } from '@/lib/credentials/create-key'
import { waitFor } from '../helpers/wait'
import { type ServerOnPostgres, signUpOwner, startServerOnPostgres } from './dashboard'
import { launchChromium } from './server'

const CHECKOUT_TS = (extra: string) => `export interface Cart {
  coupon?: { code: string }
}
${extra}
export function applyDiscount(cart: Cart): string {
  const code = cart.coupon!.code
  return code.trim().toUpperCase()
}
`

const MAIN_TS = (extra: string) => `import * as checkout from './checkout'
import { applyDiscount, type Cart } from './checkout'
${extra}
const cart: Cart = (window as unknown as { __cart: Cart }).__cart ?? {}
document.getElementById('pay')!.addEventListener('click', () => {
  document.getElementById('status')!.textContent = 'Paid with ' + applyDiscount(cart)
})
`

// Release 2 adds a function ahead of the one that throws, and uses it: every minified column
// after it moves, and so does the original line of the throw.
const RELEASE_2 = {
  checkout: `
export function formatPrice(cents: number): string {
  return (cents / 100).toFixed(2) + ' EUR'
}
`,
  main: `const banner = document.createElement('p')
banner.textContent = 'Free shipping over ' + (checkout as { formatPrice?: (c: number) => string }).formatPrice?.(5000)
document.body.prepend(banner)
`,
}

interface Bundle {
  js: string
  map: string
}

async function buildApp(workDir: string, extra = { checkout: '', main: '' }): Promise<Bundle> {
  const src = path.join(workDir, 'src')
  writeFileSync(path.join(src, 'checkout.ts'), CHECKOUT_TS(extra.checkout))
  writeFileSync(path.join(src, 'main.ts'), MAIN_TS(extra.main))
  const outfile = path.join(workDir, 'dist', 'app.js')
  await build({
    entryPoints: [path.join(src, 'main.ts')],
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    format: 'iife',
    outfile,
    logLevel: 'silent',
  })
  return { js: readFileSync(outfile, 'utf8'), map: readFileSync(`${outfile}.map`, 'utf8') }
}

let env: ServerOnPostgres
let browser: Browser
let site: Server
let siteUrl: string
let apiKey: string
let uploadKey: string
let workDir: string
let dashboard: BrowserContext
const deployed: { release: string; bundle: Bundle | null } = { release: '', bundle: null }

function page(ingestKey: string): string {
  const init = JSON.stringify({
    apiKey: ingestKey,
    ingestUrl: env.server.baseUrl,
    flushIntervalMs: 500,
    release: deployed.release,
  }).replaceAll('<', '\\u003c')
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Checkout</title>
<script src="${env.server.baseUrl}/sdk.js" crossorigin="anonymous"></script>
<script>SessionReplay.init(${init})</script>
</head>
<body>
<h1>Checkout</h1>
<button id="pay" type="button">Pay</button>
<p id="status"></p>
<script src="/assets/app.js"></script>
</body>
</html>`
}

async function dataApi<T>(pathname: string): Promise<T> {
  const response = await fetch(`${env.server.baseUrl}${pathname}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  })
  expect(response.status, pathname).toBe(200)
  return (await response.json()) as T
}

/** The curl one-liner's request: the release and each file under its path on the site. */
async function upload(release: string, bundle: Bundle): Promise<Response> {
  const form = new FormData()
  form.set('release', release)
  form.append('file', new Blob([bundle.js], { type: 'text/javascript' }), 'assets/app.js')
  form.append('file', new Blob([bundle.map], { type: 'application/json' }), 'assets/app.js.map')
  return fetch(`${env.server.baseUrl}/api/v1/sourcemaps`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${uploadKey}` },
    body: form,
  })
}

async function recordCheckout(): Promise<void> {
  const context = await browser.newContext()
  const shop = await context.newPage()
  await shop.goto(siteUrl)
  await shop.waitForFunction(() => typeof window.SessionReplay !== 'undefined')
  await shop.getByRole('button', { name: 'Pay' }).click()
  await shop.waitForTimeout(1_500)
  await shop.evaluate(() => window.SessionReplay!.stop())
  await context.close()
}

interface IssueJson {
  id: string
  title: string
  sessionCount: number
  description: string | null
  stepsToReplicate: string | null
  firstRelease?: string | null
  lastRelease?: string | null
  originalStack: { release: string; frames: SymbolicatedFrame[] } | null
}

/** The column of the throwing expression in a bundle: where the two releases must differ. */
function throwColumn(bundle: Bundle): number {
  return bundle.js.indexOf('.coupon.code')
}

beforeAll(async () => {
  env = await startServerOnPostgres()
  browser = await launchChromium()
  // The owner signs up in the browser: the issue page is checked as they see it.
  dashboard = await browser.newContext()
  const ownerPage = await dashboard.newPage()
  await signUpOwner(ownerPage, env.server.baseUrl)
  await ownerPage.close()
  const [org] = await env.database.db.select({ id: organizations.id }).from(organizations)
  const db = env.database.db
  const ingest = await createKey(db, { organizationId: org!.id, type: 'ingest' })
  apiKey = (await createKey(db, { organizationId: org!.id, type: 'api' })).key
  uploadKey = (
    await createKey(db, { organizationId: org!.id, type: 'api', sourcemaps: true, name: 'CI upload' })
  ).key
  workDir = mkdtempSync(path.join(tmpdir(), 'sourcemaps-e2e-'))
  mkdirSync(path.join(workDir, 'src'))
  site = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://site').pathname
    if (pathname === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      return res.end(page(ingest.key))
    }
    if (pathname === '/assets/app.js' && deployed.bundle) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' })
      // The map stays private to the service: the site serves the bundle without it.
      return res.end(deployed.bundle.js.replace(/\/\/# sourceMappingURL=\S+\s*$/, ''))
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`
})

afterAll(async () => {
  await browser?.close()
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()))
  await env?.stop()
  if (workDir) rmSync(workDir, { recursive: true, force: true })
})

describe('source maps from an esbuild bundle to the issue', () => {
  let issueId = ''
  let release1: Bundle

  it('uploads release 1 over HTTP and records a session that throws in the bundle', async () => {
    release1 = await buildApp(workDir)
    const response = await upload('shop@1.0.0', release1)
    expect(response.status, await response.clone().text()).toBe(201)
    deployed.release = 'shop@1.0.0'
    deployed.bundle = release1
    await recordCheckout()
  })

  it('shows the original file, line, function and source line', async () => {
    const issue = await waitFor(
      'the symbolicated issue',
      async () => {
        const { issues } = await dataApi<{ issues: { id: string; title: string }[] }>(
          '/api/v1/issues?limit=50',
        )
        const found = issues.find((candidate) => /TypeError/.test(candidate.title))
        if (!found) return undefined
        const { issue } = await dataApi<{ issue: IssueJson }>(`/api/v1/issues/${found.id}`)
        return issue.originalStack ? issue : undefined
      },
      90_000,
      1_000,
    )
    issueId = issue.id
    const top = issue.originalStack!.frames[0]!
    expect(top.status).toBe('mapped')
    expect(top.minified.url).toBe(`${siteUrl}/assets/app.js`)
    expect(top.original).toMatchObject({ fn: 'applyDiscount', line: 6 })
    expect(top.original!.source).toMatch(/(?:^|\/)src\/checkout\.ts$/)
    expect(top.original!.context?.line).toContain('const code = cart.coupon!.code')
    expect(issue.originalStack!.release).toBe('shop@1.0.0')
    expect(issue.description).toContain('applyDiscount')
    expect(issue.firstRelease).toBe('shop@1.0.0')
  })

  it('the issue page shows the original frame first, the minified one on demand', async () => {
    const issuePage = await dashboard.newPage()
    await issuePage.goto(`${env.server.baseUrl}/issues/${issueId}`)
    const frames = issuePage.getByTestId('original-frames')
    await expect.poll(() => frames.textContent()).toContain('applyDiscount')
    const text = (await frames.textContent()) ?? ''
    expect(text).toMatch(/src\/checkout\.ts:6/)
    expect(text).toContain('const code = cart.coupon!.code')
    expect(text.indexOf('applyDiscount')).toBeLessThan(text.indexOf('/assets/app.js'))
    await issuePage.close()
  })

  it('a rebuild with moved columns, deployed as release 2, joins the same issue', async () => {
    const release2 = await buildApp(workDir, RELEASE_2)
    expect(throwColumn(release2)).not.toBe(throwColumn(release1))
    const response = await upload('shop@1.1.0', release2)
    expect(response.status, await response.clone().text()).toBe(201)
    deployed.release = 'shop@1.1.0'
    deployed.bundle = release2
    await recordCheckout()

    const issue = await waitFor(
      'the second session on the same issue',
      async () => {
        const { issue } = await dataApi<{ issue: IssueJson }>(`/api/v1/issues/${issueId}`)
        return issue.sessionCount >= 2 ? issue : undefined
      },
      90_000,
      1_000,
    )
    expect(issue.sessionCount).toBe(2)
    expect(issue.lastRelease).toBe('shop@1.1.0')
    const { issues } = await dataApi<{ issues: { title: string }[] }>('/api/v1/issues?limit=50')
    expect(issues.filter((candidate) => /TypeError/.test(candidate.title))).toHaveLength(1)
  })

  it('Settings → Source maps pages back to the oldest release', async () => {
    // Enough older releases that the first page cannot hold them all.
    const [org] = await env.database.db.select({ id: organizations.id }).from(organizations)
    const year = Date.UTC(2026, 0, 1)
    await env.database.db.insert(sourcemapFiles).values(
      Array.from({ length: 120 }, (_, i) => ({
        organizationId: org!.id,
        release: `legacy-${String(i).padStart(3, '0')}`,
        url: '~/assets/app.js',
        blobKey: `sourcemaps/${org!.id}/${'0'.repeat(63)}${i % 10}.map`,
        sizeBytes: 10,
        uploadedAt: new Date(year + i * 60_000),
        lastUsedAt: new Date(),
      })),
    )
    const settings = await dashboard.newPage()
    await settings.goto(`${env.server.baseUrl}/settings/source-maps`)
    await settings.getByText('shop@1.1.0').first().waitFor()
    expect(await settings.getByText('legacy-000').count()).toBe(0)
    await settings.getByRole('link', { name: 'Show older releases' }).click()
    await settings.getByText('legacy-000').first().waitFor()
    expect(await settings.getByRole('link', { name: 'Most recent releases' }).count()).toBe(1)
    await settings.close()
  })
})
