// next-auth's route handler reads the request through next/headers, which only works inside
// Next's request scope. Next keeps that scope in AsyncLocalStorage and expects it on globalThis
// before any of its modules loads, as its own server entry arranges; so this comes first.
import 'next/dist/server/node-environment-baseline'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { AppRouteUserlandModule } from 'next/dist/server/route-modules/app-route/module.compiled'
import { NextRequest } from 'next/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createUser } from '@/lib/users/create-user'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { nextAuthRouteHandler } from '../helpers/next-auth-route'

/**
 * Every cookie the service sets, as a browser receives it. The service sets no cookie of its own
 * (the last test keeps it that way); next-auth sets three: the CSRF double-submit token, the
 * callback URL and the session JWT. They are exercised through the real next-auth route handler,
 * run by Next's own app-route module (the request scope, next/headers and cookie handling are
 * Next's), for a development installation on http and a production one behind https.
 *
 * SameSite=Lax, not Strict, on purpose: an MCP client on another site (claude.ai, an IDE's
 * loopback page) sends the user to /oauth/authorize in a top-level navigation, and the session
 * cookie must come along so a signed-in user sees the consent page instead of a sign-in form.
 * Strict would drop it on exactly that navigation. Lax still keeps the cookies off cross-site
 * POSTs (sign-in, sign-out, the consent form, server actions) and off cross-site subresource
 * requests, which is what CSRF needs.
 */

const PASSWORD = 'correct horse battery staple'
const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60

let database: TestDatabase
let email: string

beforeAll(async () => {
  database = await createTestDatabase()
  const org = await createOrganization(database.db, { name: 'Cookie jar' })
  email = `owner-${Date.now()}@example.com`
  await createUser(database.db, { email, password: PASSWORD, organizationId: org.id, role: 'owner' })
})
afterAll(async () => {
  vi.unstubAllEnvs()
  await database.close()
})

interface SetCookie {
  name: string
  value: string
  /** Attribute names lower-cased; flags (HttpOnly, Secure) map to ''. */
  attributes: Map<string, string>
}

function parseSetCookie(header: string): SetCookie {
  const [pair = '', ...parts] = header.split(';')
  const eq = pair.indexOf('=')
  const attributes = new Map<string, string>()
  for (const part of parts) {
    const [key = '', ...rest] = part.trim().split('=')
    attributes.set(key.toLowerCase(), rest.join('='))
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes }
}

const setCookies = (response: Response) => response.headers.getSetCookie().map(parseSetCookie)

/** `name=value` pairs for a Cookie request header, as a browser would send them back. */
const cookieHeader = (cookies: SetCookie[]) => cookies.map((c) => `${c.name}=${c.value}`).join('; ')

interface Setup {
  label: string
  env: Record<string, string>
  base: string
  secure: boolean
}

const SETUPS: Setup[] = [
  { label: 'development on http://localhost', env: {}, base: 'http://localhost:3000', secure: false },
  {
    label: 'production behind https',
    env: { NODE_ENV: 'production', BASE_URL: 'https://replay.example.com' },
    base: 'https://replay.example.com',
    secure: true,
  },
  {
    // next-auth would take its address, and so whether cookies are Secure, from NEXTAUTH_URL:
    // a value left over from another app's .env must not downgrade them. BASE_URL decides.
    label: 'production behind https with a stray http NEXTAUTH_URL',
    env: {
      NODE_ENV: 'production',
      BASE_URL: 'https://replay.example.com',
      NEXTAUTH_URL: 'http://replay.example.com/api/auth',
    },
    base: 'https://replay.example.com',
    secure: true,
  },
]

/** The app as one configuration sees it: fresh modules, so configuration and next-auth options are parsed anew. */
async function loadApp(setup: Setup) {
  vi.resetModules()
  vi.unstubAllEnvs()
  // getAuthOptions derives NEXTAUTH_URL from BASE_URL once; stubbing lets unstubAllEnvs drop it.
  vi.stubEnv('NEXTAUTH_URL', undefined)
  for (const [name, value] of Object.entries(setup.env)) vi.stubEnv(name, value)
  // Renamed: these install test doubles, they are not React hooks (which the linter assumes of use*).
  const { useDatabase: installDatabase } = await import('@/lib/db')
  installDatabase(database)
  const { createMemoryRateLimiter, useRateLimiter: installRateLimiter } = await import('@/lib/ratelimit')
  installRateLimiter(createMemoryRateLimiter())
  const nextAuthRoute = (await import('@/app/api/auth/[...nextauth]/route')) as AppRouteUserlandModule
  const authorizeRoute = await import('@/app/oauth/authorize/route')
  const { registerClient } = await import('@/lib/oauth/register-client')
  const { getConfig } = await import('@/lib/config')
  const { captureLogs } = await import('../helpers/logs')
  const { checkSignInRate } = await import('@/lib/auth/sign-in-rate')

  const handle = nextAuthRouteHandler(nextAuthRoute)

  /** One request to /api/auth/<action...> through Next's app-route module, as `next start` runs it. */
  const auth = (
    action: string[],
    init: { method?: 'GET' | 'POST'; cookies?: SetCookie[]; form?: Record<string, string>; ip?: string } = {},
  ) => {
    const headers = new Headers({ 'x-forwarded-for': init.ip ?? '198.51.100.7' })
    if (init.cookies?.length) headers.set('cookie', cookieHeader(init.cookies))
    if (init.form) headers.set('content-type', 'application/x-www-form-urlencoded')
    const request = new NextRequest(`${setup.base}/api/auth/${action.join('/')}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    })
    return handle(request, action)
  }

  const config = getConfig()
  return { auth, authorizeRoute, registerClient, config, captureLogs, checkSignInRate }
}

type App = Awaited<ReturnType<typeof loadApp>>

async function csrf(app: App) {
  const response = await app.auth(['csrf'])
  expect(response.status).toBe(200)
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  return { response, csrfToken, cookies: setCookies(response) }
}

async function signIn(app: App, password: string, options: { account?: string; ip?: string } = {}) {
  const account = options.account ?? email
  const first = await csrf(app)
  const response = await app.auth(['callback', 'credentials'], {
    method: 'POST',
    ip: options.ip,
    cookies: first.cookies,
    form: { csrfToken: first.csrfToken, email: account, password, callbackUrl: '/issues', json: 'true' },
  })
  return { response, cookies: setCookies(response), csrf: first }
}

describe.each(SETUPS)('cookies: $label', (setup) => {
  let app: App
  const prefix = setup.secure ? '__Secure-' : ''
  const names = {
    session: `${prefix}next-auth.session-token`,
    callback: `${prefix}next-auth.callback-url`,
    // __Host-: Secure, Path=/ and no Domain, so no sibling subdomain can plant or shadow it.
    csrf: `${setup.secure ? '__Host-' : ''}next-auth.csrf-token`,
  }

  beforeAll(async () => {
    app = await loadApp(setup)
    expect(app.config.baseUrl).toBe(setup.base)
    expect(app.config.nodeEnv).toBe(setup.env.NODE_ENV ?? 'test')
  })

  /** HttpOnly, SameSite=Lax, Path=/, no Domain; Secure exactly when the public address is https. */
  function expectHardened(cookie: SetCookie) {
    expect(cookie.attributes.has('httponly'), `${cookie.name} HttpOnly`).toBe(true)
    expect(cookie.attributes.get('samesite')?.toLowerCase(), `${cookie.name} SameSite`).toBe('lax')
    expect(cookie.attributes.get('path'), `${cookie.name} Path`).toBe('/')
    expect(cookie.attributes.has('domain'), `${cookie.name} has no Domain`).toBe(false)
    expect(cookie.attributes.has('secure'), `${cookie.name} Secure`).toBe(setup.secure)
  }

  it('sets the CSRF and callback cookies hardened, and the answer is not cached', async () => {
    const { response, cookies, csrfToken } = await csrf(app)
    expect(cookies.map((c) => c.name).sort()).toEqual([names.callback, names.csrf].sort())
    for (const cookie of cookies) expectHardened(cookie)
    // The double-submit token's cookie holds the token and its keyed hash, never the bare token alone.
    const csrfCookie = cookies.find((c) => c.name === names.csrf)!
    expect(decodeURIComponent(csrfCookie.value)).toMatch(new RegExp(`^${csrfToken}\\|[0-9a-f]{64}$`))
    expect(response.headers.get('cache-control')).toContain('no-store')
  })

  it('sets a hardened session cookie on a successful sign-in, and it is the session', async () => {
    const { response, cookies } = await signIn(app, PASSWORD)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { url: string }).url).toBe(`${setup.base}/issues`)
    const session = cookies.find((c) => c.name === names.session)
    expect(session, 'session cookie').toBeDefined()
    expectHardened(session!)
    // A 7-day lifetime (docs/dashboard.md, "Sign-in"), give or take the seconds this test takes.
    const expires = Date.parse(session!.attributes.get('expires') ?? '')
    expect(Math.abs(expires - (Date.now() + SESSION_MAX_AGE_SECONDS * 1000))).toBeLessThan(60_000)
    for (const cookie of cookies) expectHardened(cookie)

    const who = await app.auth(['session'], { cookies: [session!] })
    expect(((await who.json()) as { user?: { email?: string } }).user?.email).toBe(email)
    expect(who.headers.get('cache-control')).toContain('no-store')
  })

  it.each([
    ['a wrong password', () => signIn(app, 'not the password at all')],
    ['an unknown e-mail', () => signIn(app, PASSWORD, { account: `nobody-${Date.now()}@example.com` })],
  ])('sets no session cookie for %s', async (_case, attempt) => {
    const { response, cookies } = await attempt()
    expect(cookies.map((c) => c.name)).not.toContain(names.session)
    for (const cookie of cookies) expectHardened(cookie)
    const { url } = (await response.json()) as { url: string }
    expect(new URL(url).searchParams.get('error')).toBe('CredentialsSignin')
  })

  it('sets no session cookie when the CSRF token is missing or foreign', async () => {
    const mine = await csrf(app)
    const theirs = await csrf(app)
    for (const attempt of [
      { cookies: [], csrfToken: mine.csrfToken },
      { cookies: mine.cookies, csrfToken: theirs.csrfToken },
    ]) {
      const response = await app.auth(['callback', 'credentials'], {
        method: 'POST',
        cookies: attempt.cookies,
        form: { csrfToken: attempt.csrfToken, email, password: PASSWORD, json: 'true' },
      })
      expect(setCookies(response).map((c) => c.name)).not.toContain(names.session)
      expect(((await response.json()) as { url: string }).url).toContain('csrf=true')
    }
  })

  it('clears the session cookie on sign-out with the same attributes', async () => {
    const signedIn = await signIn(app, PASSWORD)
    const session = signedIn.cookies.find((c) => c.name === names.session)!
    const response = await app.auth(['signout'], {
      method: 'POST',
      cookies: [...signedIn.csrf.cookies, session],
      form: { csrfToken: signedIn.csrf.csrfToken, json: 'true' },
    })
    const cleared = setCookies(response).find((c) => c.name === names.session)
    expect(cleared, 'session cookie cleared').toBeDefined()
    expect(cleared!.value).toBe('')
    expect(cleared!.attributes.get('max-age')).toBe('0')
    expectHardened(cleared!)
  })

  it('writes neither the password nor the session or CSRF token to the log, nor to the console', async () => {
    // From an address of its own, whose per-account budget is then spent, so that the last
    // attempt is refused and logged as the sign-in path's one log line.
    const ip = '203.0.113.99'
    const wrong = 'a wrong password, logged nowhere'
    const logs = app.captureLogs('trace')
    const printed: unknown[] = []
    const consoles = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(...args)),
    )
    let secrets: string[]
    try {
      const good = await signIn(app, PASSWORD, { ip })
      await signIn(app, wrong, { ip })
      while ((await app.checkSignInRate(email, ip)).allowed) {}
      const limited = await signIn(app, PASSWORD, { ip })
      expect(
        new URL(((await limited.response.json()) as { url: string }).url).searchParams.get('error'),
      ).toBe('RateLimited')
      secrets = [PASSWORD, wrong, good.csrf.csrfToken, ...good.cookies.map((c) => c.value)]
    } finally {
      logs.restore()
      for (const spy of consoles) spy.mockRestore()
    }
    expect(logs.records().map((r) => r.msg)).toContain('sign-in rate limited')
    const written = [...logs.lines, ...printed.map((p) => (p instanceof Error ? p.stack : String(p)))].join(
      '\n',
    )
    for (const secret of secrets.filter((s) => s.length >= 16)) expect(written).not.toContain(secret)
  })

  it('replaces a callback-url cookie that is no URL with a hardened one of our own origin', async () => {
    // next-auth would answer every request carrying it with a 500; the route deletes it first,
    // and next-auth writes its default in its place.
    const planted: SetCookie = { name: names.callback, value: 'javascript:alert(1)', attributes: new Map() }
    const response = await app.auth(['session'], { cookies: [planted] })
    expect(response.status).toBe(200)
    const written = setCookies(response).filter((c) => c.name === names.callback)
    expect(written.length, 'the callback cookie is written').toBeGreaterThan(0)
    for (const cookie of written) expectHardened(cookie)
    expect(written.map((c) => decodeURIComponent(c.value))).toEqual([setup.base])
  })

  it('the OAuth authorize flow sets no cookie and recognises the session cookie sign-in set', async () => {
    const { cookies } = await signIn(app, PASSWORD)
    const session = cookies.find((c) => c.name === names.session)!
    const client = await app.registerClient(
      database.db,
      { redirect_uris: ['http://127.0.0.1:7777/callback'], client_name: 'Cookie test' },
      app.config,
    )
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'xyz',
    })
    const page = await app.authorizeRoute.GET(
      new Request(`${setup.base}/oauth/authorize?${query}`, { headers: { cookie: cookieHeader([session]) } }),
    )
    // The consent page, not a detour to /login: lib/http/oauth.ts reads the cookie by the same name.
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Cookie test')
    expect(page.headers.getSetCookie()).toEqual([])
    const form = new URLSearchParams()
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      form.append(name!, value!.replaceAll('&amp;', '&'))
    form.set('decision', 'approve')
    const approved = await app.authorizeRoute.POST(
      new Request(`${setup.base}/oauth/authorize`, {
        method: 'POST',
        headers: { cookie: cookieHeader([session]), 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      }),
    )
    expect(approved.status).toBe(303)
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toMatch(/^svc_oac_/)
    expect(approved.headers.getSetCookie()).toEqual([])
  })
})

describe('cookies the service sets itself', () => {
  /**
   * None: every cookie is next-auth's, covered above. A new Set-Cookie anywhere in app/, lib/ or
   * proxy.ts fails here, so that it gets its attributes checked above before it ships. Next's
   * cookie store is used in two places only: the dashboard reads the session from it, and the
   * next-auth route clears a broken callback-url cookie of next-auth's (its attributes are
   * checked above).
   */
  it('no source file outside next-auth sets a cookie', () => {
    const root = path.resolve(import.meta.dirname, '../..')
    const files: string[] = ['proxy.ts']
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const relative = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(relative)
        else if (/\.(ts|tsx)$/.test(entry.name)) files.push(relative)
      }
    }
    walk('app')
    walk('pages')
    walk('lib')
    expect(files.length).toBeGreaterThan(100)
    const source = (file: string) => readFileSync(path.join(root, file), 'utf8')
    const setters = /set-cookie|\.cookies\.(set|delete)\(|document\.cookie/i
    expect(files.filter((file) => setters.test(source(file)))).toEqual([])

    const cookieStore = /import\s*\{[^}]*\bcookies\b[^}]*\}\s*from\s*'next\/headers'/
    const nextAuthRoute = path.join('app', 'api', 'auth', '[...nextauth]', 'route.ts')
    const readers = path.join('lib', 'http', 'session.ts')
    expect(files.filter((file) => cookieStore.test(source(file))).sort()).toEqual(
      [nextAuthRoute, readers].sort(),
    )
    expect(source(readers)).not.toMatch(/\.(set|delete)\(/)
  })
})
