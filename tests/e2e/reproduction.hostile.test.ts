/**
 * Issue 32, "Done when": reproductions built from FORGED trails (what anyone holding a public
 * ingest key can write) are run with Playwright's own runner against a local site, with a second
 * local origin playing the attacker. Whatever the trail says (paths "//host" and "/\host", an
 * entry page on the attacker, a link that leads away, a redirect away, a field that copies the
 * password field's selector and name), no request reaches the attacker and the test account's
 * password is never typed into anything but the password field. The generator is used directly:
 * no service is needed for what the file does once handed out.
 */
import { rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TrailEntry, TrailTarget } from '@/lib/analysis/trail'
import {
  buildReproduction,
  type ReproductionIssue,
  type ReproductionSession,
} from '@/lib/reproduction/build-reproduction'
import { preparePlaywrightDir, runPlaywright } from './playwright-run'

const WORK_DIR = path.join(process.cwd(), '.data', `e2e-hostile-reproductions-${process.pid}`)
const SECRET = 'marker-secret-4f1c9'
const T0 = 1_700_000_000_000

interface Received {
  password: string
  review: string
}

let site: http.Server
let attacker: http.Server
let SITE = ''
let ATTACKER = ''
const attackerRequests: string[] = []
const siteRequests: string[] = []
/** What the site's forms sent it: each sign-in and each review. */
const received: Received[] = []

function page(body: string): string {
  return `<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`
}

const PAGES: Record<string, () => string> = {
  '/': () =>
    page(
      `<h1>Shop</h1><a href="${ATTACKER}/clicked">Leave</a> <button onclick="window.open('${ATTACKER}/popup')">Popup</button>`,
    ),
  '/login': () =>
    page(`<label>Password <input type="password" id="pw" name="pw"></label>
<label>Review <input type="text" id="pw2" name="pw" data-testid="review-body"></label>
<button id="send">Send</button>
<script>
  document.getElementById('send').onclick = () =>
    fetch('/receive', {
      method: 'POST',
      body: JSON.stringify({ password: document.getElementById('pw').value, review: document.getElementById('pw2').value }),
    })
</script>`),
}

function startServer(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler)
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  )
}

function target(overrides: Partial<TrailTarget>): TrailTarget {
  return {
    tag: 'button',
    selector: 'button',
    role: 'button',
    name: null,
    text: '',
    testId: null,
    id: null,
    type: null,
    href: null,
    ...overrides,
  }
}

const load = (at: number, url: string): TrailEntry => ({
  kind: 'navigation',
  at: T0 + at,
  pageUrl: url,
  url,
  change: 'load',
})
const click = (at: number, pageUrl: string, t: TrailTarget): TrailEntry => ({
  kind: 'click',
  at: T0 + at,
  pageUrl,
  target: t,
  count: 1,
})
const masked = (at: number, pageUrl: string, t: TrailTarget): TrailEntry => ({
  kind: 'input',
  at: T0 + at,
  pageUrl,
  target: t,
  control: 'text',
  value: null,
  masked: true,
  length: 8,
  checked: null,
})
/** The failure every forged trail ends with: an error the site never throws. */
const ERROR = 'Forged failure that never happens'
const failure = (at: number, pageUrl: string): TrailEntry => ({
  kind: 'error',
  at: T0 + at,
  pageUrl,
  message: ERROR,
  stack: null,
  source: 'uncaught',
})

const issue: ReproductionIssue = {
  id: '33333333-3333-4333-8333-333333333333',
  kind: 'js_error',
  title: `Error: ${ERROR}`,
  evidence: { type: 'Error', message: ERROR },
  stepsToReplicate: null,
}

function session(trail: TrailEntry[], entryUrl = trail[0]!.pageUrl): ReproductionSession {
  return {
    sessionId: '44444444-4444-4444-8444-444444444444',
    entryUrl,
    failingAt: trail.at(-1)!.at,
    trail,
    trailTruncated: false,
    earlierEntries: false,
    identifiedUser: false,
    trigger: null,
    userAgent: 'Mozilla/5.0 (forged)',
  }
}

/** The forged trails, by file name; built once the servers' origins are known. */
function forgedTrails(): Record<string, ReproductionSession> {
  const password = target({
    tag: 'input',
    role: null,
    name: 'Password',
    type: 'password',
    selector: 'input#pw',
    id: 'pw',
  })
  return {
    // Recorded "on the site", but the paths are protocol-relative references to the attacker.
    'double-slash.spec.ts': session([
      load(0, `${SITE}/`),
      load(1000, `${SITE}//${ATTACKER.slice('http://'.length)}/slash`),
      load(2000, `${SITE}/\\${ATTACKER.slice('http://'.length)}/backslash`),
      failure(2010, `${SITE}/`),
    ]),
    // The whole session "happened" on the attacker's origin.
    'attacker-entry.spec.ts': session([load(0, `${ATTACKER}/`), failure(10, `${ATTACKER}/`)]),
    'click-away.spec.ts': session([
      load(0, `${SITE}/`),
      click(
        1000,
        `${SITE}/`,
        target({ tag: 'a', role: 'link', name: 'Leave', text: 'Leave', selector: 'a' }),
      ),
      click(2000, `${SITE}/`, target({ name: 'Popup', text: 'Popup' })),
      failure(2010, `${SITE}/`),
    ]),
    'redirect-away.spec.ts': session([
      load(0, `${SITE}/`),
      load(1000, `${SITE}/hop`),
      failure(1010, `${SITE}/`),
    ]),
    // Signs in through the real form, then "types" the password into a field that copies the
    // password field's selector, name and type but is found by its test id.
    'masked-swap.spec.ts': session([
      load(0, `${SITE}/login`),
      masked(1000, `${SITE}/login`, password),
      click(1500, `${SITE}/login`, target({ name: 'Send', text: 'Send', selector: 'button#send' })),
      masked(2000, `${SITE}/login`, { ...password, testId: 'review-body' }),
      click(2500, `${SITE}/login`, target({ name: 'Send', text: 'Send', selector: 'button#send' })),
      failure(2510, `${SITE}/login`),
    ]),
  }
}

beforeAll(async () => {
  ;({ server: attacker, url: ATTACKER } = await startServer((request, response) => {
    attackerRequests.push(`${request.method} ${request.url}`)
    response.end('attacker')
  }))
  ;({ server: site, url: SITE } = await startServer((request, response) => {
    const url = request.url ?? '/'
    siteRequests.push(`${request.method} ${url}`)
    if (url === '/hop') {
      // A redirect within the site whose next hop leaves it: Playwright routes neither hop.
      response.writeHead(302, { location: '/away' }).end()
      return
    }
    if (url === '/away') {
      response.writeHead(302, { location: `${ATTACKER}/redirected` }).end()
      return
    }
    if (url === '/receive' && request.method === 'POST') {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        received.push(JSON.parse(body) as Received)
        response.end('ok')
      })
      return
    }
    const render = PAGES[url.split('?')[0]!]
    response
      .writeHead(render ? 200 : 404, { 'content-type': 'text/html' })
      .end(render ? render() : 'not found')
  }))
  preparePlaywrightDir(WORK_DIR, { timeoutMs: 20_000 })
})

afterAll(async () => {
  rmSync(WORK_DIR, { recursive: true, force: true })
  await new Promise((resolve) => site?.close(resolve))
  await new Promise((resolve) => attacker?.close(resolve))
})

describe('reproductions from forged trails, run with Playwright', () => {
  it('never reach the attacker origin and never type the password into another field', async () => {
    const files = forgedTrails()
    for (const [name, forged] of Object.entries(files))
      writeFileSync(path.join(WORK_DIR, name), buildReproduction(issue, forged).test)
    const run = await runPlaywright(WORK_DIR, { REPRO_BASE_URL: SITE, REPRO_PASSWORD: SECRET })
    expect(run.errors, 'files that did not load').toEqual([])
    const results = new Map([...run.files].map(([name, result]) => [name, result.messages]))
    expect([...results.keys()].sort()).toEqual(Object.keys(files).sort())

    expect(attackerRequests, 'requests that reached the attacker origin').toEqual([])
    // The files did run their steps: the guarded ones failed for our own reasons.
    expect(results.get('double-slash.spec.ts')).toBe('')
    expect(results.get('attacker-entry.spec.ts')).toBe('')
    // The redirect chain was followed up to the hop that leaves the site, and no further.
    expect(siteRequests).toEqual(expect.arrayContaining(['GET /hop', 'GET /away']))
    expect(results.get('masked-swap.spec.ts')).toContain('a password is typed only into a password input')
    // The sign-in got the password; the review box never did, and was never even filled.
    expect(received).toEqual([{ password: SECRET, review: '' }])
    for (const messages of results.values()) expect(messages).not.toContain(SECRET)
  }, 120_000)
})
