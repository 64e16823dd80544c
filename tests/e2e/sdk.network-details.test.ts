/**
 * Network details (docs/network-details.md) in Chromium against the built server: a page
 * that loads /sdk.js with `networkDetails` gets the part /sdk-network.js, and what reaches
 * the server holds allowlisted headers and redacted bodies of the listed URLs only — never a
 * credential header, a cookie, a token or a password, whatever the options say.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { and, asc, eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { setNetworkPolicy } from '@/lib/orgs/network-policy'
import { createBlobStore } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { launchChromium, openServerBatch, type RunningServer, startBuiltServer } from './server'

const SECRETS = {
  authorization: 'Bearer e2e-auth-secret',
  cookie: 'cookie-secret-123',
  token: 'tok-e2e-secret',
  password: 'pw-e2e-secret',
  form: 'e2e-form-secret',
  request: 'e2e-request-secret',
}

let database: TestDatabase
let server: RunningServer
let browser: Browser
let blobs: BlobStore
let site: Server
let siteUrl: string
let organizationId: string
let apiKey: string
/** Tenants whose network policy is stricter than what the recorder is told (`?tenant=`). */
const strict: Record<string, { organizationId: string; apiKey: string }> = {}

const PAGE_JS = `
window.runCalls = async function () {
  const password = document.getElementById('pw').value;
  // What the page itself reads must be intact with capture on.
  const intact = (window.intact = {});
  const login = await fetch('/api/login', {
    method: 'POST',
    headers: { Authorization: '${SECRETS.authorization}', 'Content-Type': 'application/json', 'X-Request-Id': 'req-login' },
    body: JSON.stringify({ user: 'ada', token: '${SECRETS.token}', password }),
  }).then((r) => r.json());
  intact.login = login.ok === true && login.access_token === '${SECRETS.token}';
  await new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.addEventListener('load', () => {
      intact.xhr = xhr.response.saved === true && xhr.response.session === '${SECRETS.cookie}';
    });
    xhr.open('POST', '/api/xhr');
    xhr.setRequestHeader('Authorization', '${SECRETS.authorization}');
    xhr.setRequestHeader('Content-Type', 'application/json');
    xhr.setRequestHeader('X-Request-Id', 'req-xhr');
    xhr.responseType = 'json';
    xhr.onloadend = resolve;
    xhr.send(JSON.stringify({ password, card_number: '4111 1111 1111 1111', note: 'hello' }));
  });
  await fetch('/other/data', { method: 'POST', body: 'note=not-listed' }).then((r) => r.text());
  intact.fail = (await fetch('/api/fail').then((r) => r.text())) === '{"error":"report service unavailable"}';
  // A Request object with its own body, and a form body with a space and a quote in the password.
  const sent = await fetch(new Request('/api/request', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret: '${SECRETS.request}', tokens: ['${SECRETS.request}'], n: 1 }),
  })).then((r) => r.json());
  intact.request = sent.ok === true;
  await fetch('/api/form', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'user=ada lovelace&password=a b"c ${SECRETS.form}',
  }).then((r) => r.text());
  await fetch('/api/ok').then((r) => r.text());
  // The part reads its own copy of each body after the page has read it: let the last one land.
  await new Promise((resolve) => setTimeout(resolve, 500));
};
`

function page(options: Record<string, unknown>, key = apiKey): string {
  const init = JSON.stringify({ apiKey: key, ingestUrl: server.baseUrl, flushIntervalMs: 1000, ...options })
  return `<!doctype html><html><head>
<script src="${server.baseUrl}/sdk.js" crossorigin="anonymous"></script>
<script>SessionReplay.init(${init.replaceAll('<', '\\u003c')}); fetch('/api/boot', { headers: { 'X-Request-Id': 'req-boot' } })</script>
<script src="/app.js"></script>
</head><body><form><label>Password <input type="password" id="pw"></label></form>
<script>document.cookie = 'sid=${SECRETS.cookie}; path=/'</script></body></html>`
}

function startSite(): Promise<void> {
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site')
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(body))
    }
    req.resume()
    if (url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      return res.end(PAGE_JS)
    }
    if (url.pathname === '/api/login')
      return json(
        200,
        { ok: true, access_token: SECRETS.token },
        { 'x-request-id': 'resp-login', 'set-cookie': `sid=${SECRETS.cookie}; Path=/` },
      )
    if (url.pathname === '/api/xhr') return json(200, { saved: true, session: SECRETS.cookie })
    if (url.pathname === '/api/fail') return json(500, { error: 'report service unavailable' })
    if (url.pathname.startsWith('/api/') || url.pathname === '/other/data') return json(200, { ok: true })
    const options = url.searchParams.get('failuresOnly') === '1' ? { failuresOnly: true } : {}
    const tenant = strict[url.searchParams.get('tenant') ?? '']
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(
      page(
        {
          networkDetails: {
            urls: ['/api/'],
            headers: ['authorization', 'cookie', 'set-cookie', 'content-type', 'x-request-id'],
            ...options,
          },
        },
        tenant?.apiKey,
      ),
    )
  })
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
      resolve()
    })
  })
}

beforeAll(async () => {
  process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres'
  database = await createTestDatabase()
  server = await startBuiltServer({ DATABASE_URL: database.url! })
  blobs = createBlobStore({ kind: 'local', root: path.join(server.dataDir, 'blobs') })
  browser = await launchChromium()
  organizationId = (await createOrganization(database.db, { name: 'Network details' })).id
  apiKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  // Set before their keys are first used, so the server's credential cache reads them.
  for (const [name, policy] of [
    ['words', { redactKeys: 'user, note' }],
    ['drop', { policy: 'drop' }],
  ] as const) {
    const org = await createOrganization(database.db, { name: `Network policy ${name}`, plan: 'free' })
    await setNetworkPolicy(database.db, { organizationId: org.id, ...policy })
    strict[name] = {
      organizationId: org.id,
      apiKey: (await createKey(database.db, { organizationId: org.id, type: 'ingest' })).key,
    }
  }
  await startSite()
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => site?.close(resolve))
  await server?.stop()
  await database?.close()
})

type Request = Record<string, unknown> & { url: string }

/** The stored bytes of a session's batches once its final batch is in. */
async function storedTexts(sessionId: string, tenantId = organizationId): Promise<string[]> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const [session] = await database.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(and(eq(replaySessions.organizationId, tenantId), eq(replaySessions.externalId, sessionId)))
    const rows = session
      ? await database.db
          .select()
          .from(replayBatches)
          .where(eq(replayBatches.sessionId, session.id))
          .orderBy(asc(replayBatches.sequence))
      : []
    if (rows.some((row) => row.flush === 'final') && rows.every((row, i) => row.sequence === i))
      return Promise.all(
        rows.map(async (row) =>
          Buffer.from(
            await openServerBatch(database.db, row.blobKey, (await blobs.get(row.blobKey))!),
          ).toString('utf8'),
        ),
      )
    if (Date.now() > deadline) throw new Error(`no final batch for ${sessionId}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

function requestsIn(texts: string[]): Request[] {
  return texts.flatMap((text) =>
    (
      JSON.parse(text) as { replay: { events: { type: number; data: Record<string, unknown> }[] } }
    ).replay.events
      .filter((e) => e.type === 6 && e.data.plugin === 'rrweb/network@1')
      .flatMap((e) => (e.data.payload as { requests: Request[] }).requests),
  )
}

const DETAIL_FIELDS = ['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody']
const byPath = (requests: Request[], pathname: string) => {
  const found = requests.filter((r) => new URL(r.url).pathname === pathname)
  expect(found, pathname).toHaveLength(1)
  return found[0]!
}

/** Opens the page, waits for the part, runs the calls, stops the recorder: the stored batches. */
async function record(query: string, tenantId = organizationId): Promise<string[]> {
  const context = await browser.newContext()
  const tab: Page = await context.newPage()
  await tab.goto(`${siteUrl}/${query}`)
  // The part has loaded and registered: requests from now on get details.
  await tab.waitForFunction(() => '__sessionReplayNetworkDetails' in window)
  await tab.fill('#pw', SECRETS.password)
  await tab.evaluate(() => (window as unknown as { runCalls(): Promise<void> }).runCalls())
  // The page's own reads (r.json(), r.text(), xhr.response) saw the server's bodies whole.
  expect(await tab.evaluate(() => (window as unknown as { intact: Record<string, boolean> }).intact)).toEqual(
    {
      login: true,
      xhr: true,
      fail: true,
      request: true,
    },
  )
  const sessionId = await tab.evaluate(
    () => (JSON.parse(sessionStorage.getItem('svc_replay:session')!) as { id: string }).id,
  )
  await tab.evaluate(() => window.SessionReplay!.stop())
  await context.close()
  return storedTexts(sessionId, tenantId)
}

describe('network details in Chromium', () => {
  it('serves the part like /sdk.js', async () => {
    const response = await fetch(`${server.baseUrl}/sdk-network.js`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const etag = response.headers.get('etag')!
    expect(await response.text()).toContain('__sessionReplayNetworkDetails')
    expect(
      (await fetch(`${server.baseUrl}/sdk-network.js`, { headers: { 'If-None-Match': etag } })).status,
    ).toBe(304)
  })

  it('captures allowlisted headers and redacted bodies of listed URLs only, and never a credential', async () => {
    const texts = await record('')
    const all = texts.join('\n')
    for (const [what, secret] of Object.entries(SECRETS)) expect(all.includes(secret), what).toBe(false)
    expect(all.includes('e2e-auth-secret')).toBe(false)
    expect(all.includes('4111 1111 1111 1111')).toBe(false)

    const requests = requestsIn(texts)
    const login = byPath(requests, '/api/login')
    expect(login.requestHeaders).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-login' })
    expect(login.responseHeaders).toEqual({
      'content-type': 'application/json',
      'x-request-id': 'resp-login',
    })
    expect(JSON.parse(login.requestBody as string)).toEqual({
      user: 'ada',
      token: '[redacted]',
      password: '[redacted]',
    })
    expect(JSON.parse(login.responseBody as string)).toEqual({ ok: true, access_token: '[redacted]' })

    const xhr = byPath(requests, '/api/xhr')
    expect(xhr.initiatorType).toBe('xmlhttprequest')
    expect(xhr.requestHeaders).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-xhr' })
    expect(JSON.parse(xhr.requestBody as string)).toEqual({
      password: '[redacted]',
      card_number: '[redacted]',
      note: 'hello',
    })
    expect(JSON.parse(xhr.responseBody as string)).toEqual({ saved: true, session: '[redacted]' })
    expect(xhr.responseHeaders).toEqual({ 'content-type': 'application/json' })

    // Not on the list: the request as without the option.
    const other = byPath(requests, '/other/data')
    for (const field of DETAIL_FIELDS) expect(other).not.toHaveProperty(field)
    // Started before the part had loaded: recorded without details.
    const boot = byPath(requests, '/api/boot')
    for (const field of DETAIL_FIELDS) expect(boot).not.toHaveProperty(field)
    expect(byPath(requests, '/api/fail').responseBody).toBe('{"error":"report service unavailable"}')

    const fromRequest = byPath(requests, '/api/request')
    expect(JSON.parse(fromRequest.requestBody as string)).toEqual({
      secret: '[redacted]',
      tokens: '[redacted]',
      n: 1,
    })
    expect(byPath(requests, '/api/form').requestBody).toBe('user=ada lovelace&password=[redacted]')
  })

  it('with failuresOnly, captures details of failed requests only', async () => {
    const requests = requestsIn(await record('?failuresOnly=1'))
    for (const pathname of ['/api/login', '/api/ok'])
      for (const field of DETAIL_FIELDS) expect(byPath(requests, pathname)).not.toHaveProperty(field)
    const failed = byPath(requests, '/api/fail')
    expect(failed.status).toBe(500)
    expect(failed.responseHeaders).toEqual({ 'content-type': 'application/json' })
    expect(failed.responseBody).toBe('{"error":"report service unavailable"}')
  })

  it("redacts at ingest what the organization's policy adds to a recorder that was told less", async () => {
    // The recorder keeps `user` and `note`; the organization's own key words redact them.
    const words = requestsIn(await record('?tenant=words', strict.words!.organizationId))
    expect(JSON.parse(byPath(words, '/api/login').requestBody as string)).toEqual({
      user: '[redacted]',
      token: '[redacted]',
      password: '[redacted]',
    })
    expect(JSON.parse(byPath(words, '/api/xhr').requestBody as string)).toMatchObject({ note: '[redacted]' })
    // `drop`: the recorder captured details, ingest stored none of them.
    const dropped = requestsIn(await record('?tenant=drop', strict.drop!.organizationId))
    expect(byPath(dropped, '/api/login').status).toBe(200)
    for (const request of dropped)
      for (const field of [...DETAIL_FIELDS, 'requestBodyOmitted', 'responseBodyOmitted'])
        expect(request).not.toHaveProperty(field)
  })
})
