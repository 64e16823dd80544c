import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { oauthAuthorizationCodes, oauthClients, oauthConsents } from '@/db/schema'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  authorizeQuery,
  BASE,
  consentFields,
  ISSUER,
  oauth,
  pkce,
  RESOURCE,
  registerClient,
  signedInUser,
  type TestClient,
} from '../helpers/oauth'

let database: TestDatabase
let user: Awaited<ReturnType<typeof signedInUser>>
let client: TestClient
const { challenge } = pkce()

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  user = await signedInUser(database.db)
  client = await registerClient({ scope: 'read:service write:issues' })
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

function expectPageHeaders(response: Response) {
  for (const [name, value] of Object.entries(PAGE_HEADERS))
    expect(response.headers.get(name), name).toBe(value)
}

async function expectOpaqueError(response: Response) {
  expect(response.status).toBe(400)
  expect(response.headers.get('location')).toBeNull()
  expectPageHeaders(response)
  const html = await response.text()
  expect(html).toContain('This authorization request is invalid or has expired')
  return html
}

async function consentPage(query: Record<string, string | undefined>, cookie = user.cookie) {
  const response = await oauth.authorize(query, cookie)
  expect(response.status).toBe(200)
  return { response, html: await response.text() }
}

describe('RFC 6749 §4.1.1 / §4.1.2.1 request validation: one opaque page, never a redirect', () => {
  const faults: [string, () => Record<string, string | undefined> | URLSearchParams][] = [
    ['an unknown client', () => authorizeQuery({ ...client, client_id: 'svc_client_unknown' }, challenge)],
    ['a malformed client_id', () => authorizeQuery({ ...client, client_id: 'not-ours' }, challenge)],
    ['no client_id', () => ({ ...authorizeQuery(client, challenge), client_id: undefined })],
    [
      'an unregistered redirect_uri',
      () => authorizeQuery(client, challenge, { redirect_uri: 'https://claude.ai/cb' }),
    ],
    [
      'a redirect_uri differing by path',
      () => authorizeQuery(client, challenge, { redirect_uri: 'http://127.0.0.1:7777/other' }),
    ],
    ['no redirect_uri', () => authorizeQuery(client, challenge, { redirect_uri: undefined })],
    ['response_type token', () => authorizeQuery(client, challenge, { response_type: 'token' })],
    ['no response_type', () => authorizeQuery(client, challenge, { response_type: undefined })],
    ['no code_challenge', () => authorizeQuery(client, challenge, { code_challenge: undefined })],
    ['a 42-character code_challenge', () => authorizeQuery(client, 'a'.repeat(42))],
    ['a 129-character code_challenge', () => authorizeQuery(client, 'a'.repeat(129))],
    ['a code_challenge with non-base64url characters', () => authorizeQuery(client, `${'a'.repeat(42)}=`)],
    [
      'code_challenge_method plain',
      () => authorizeQuery(client, challenge, { code_challenge_method: 'plain' }),
    ],
    [
      'no code_challenge_method',
      () => authorizeQuery(client, challenge, { code_challenge_method: undefined }),
    ],
    ['an unknown scope', () => authorizeQuery(client, challenge, { scope: 'read:service admin' })],
    [
      'another resource',
      () => authorizeQuery(client, challenge, { resource: 'https://evil.example/api/mcp' }),
    ],
    ['a resource on another path', () => authorizeQuery(client, challenge, { resource: `${BASE}/api/v1` })],
    [
      'a repeated parameter',
      () => {
        const params = new URLSearchParams(authorizeQuery(client, challenge) as Record<string, string>)
        params.append('redirect_uri', 'https://evil.example/cb')
        return params
      },
    ],
  ]

  it.each(faults)('refuses %s (signed in)', async (_name, query) => {
    await expectOpaqueError(await oauth.authorize(query(), user.cookie))
  })

  it.each(faults)('refuses %s before asking anyone to sign in', async (_name, query) => {
    await expectOpaqueError(await oauth.authorize(query()))
  })

  it('refuses a revoked client', async () => {
    const revoked = await registerClient()
    await database.db
      .update(oauthClients)
      .set({ revokedAt: new Date() })
      .where(eq(oauthClients.clientId, revoked.client_id))
    await expectOpaqueError(await oauth.authorize(authorizeQuery(revoked, challenge), user.cookie))
  })

  it('shows the same page for every fault (nothing tells a prober which check failed)', async () => {
    const pages = new Set<string>()
    for (const [, query] of faults) pages.add(await (await oauth.authorize(query(), user.cookie)).text())
    expect(pages.size).toBe(1)
  })
})

describe('sign-in hop (spec: unauthenticated user → /login → back)', () => {
  it('redirects 302 to /login with the relative authorize URL as callbackUrl', async () => {
    const query = authorizeQuery(client, challenge)
    const response = await oauth.authorize(query)
    expect(response.status).toBe(302)
    expectPageHeaders(response)
    const location = new URL(response.headers.get('location')!, BASE)
    expect(location.pathname).toBe('/login')
    const callback = location.searchParams.get('callbackUrl')!
    expect(callback.startsWith('/oauth/authorize?')).toBe(true)
    // The login page accepts it unchanged (same-origin relative path).
    expect(safeCallbackPath(callback)).toBe(callback)
    expect(Object.fromEntries(new URL(callback, BASE).searchParams)).toEqual(query)
  })

  it('treats a forged or foreign session cookie as signed out', async () => {
    const response = await oauth.authorize(
      authorizeQuery(client, challenge),
      'next-auth.session-token=forged',
    )
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toMatch(/^\/login\?callbackUrl=/)
  })

  it('gives a background fetch (Next router after sign-in) a plain page and never a code', async () => {
    const query = new URLSearchParams(authorizeQuery(client, challenge) as Record<string, string>)
    const { GET } = await import('@/app/oauth/authorize/route')
    const fetches: Record<string, string>[] = [
      { rsc: '1' },
      { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' },
    ]
    for (const headers of fetches) {
      const response = await GET(
        new Request(`${BASE}/oauth/authorize?${query}`, { headers: { cookie: user.cookie, ...headers } }),
      )
      expect(response.status).toBe(200)
      expect(response.headers.get('location')).toBeNull()
      expect(response.headers.get('content-type')).toContain('text/html')
      expect(await response.text()).toContain('Continue to authorization')
    }
    // A top-level navigation carries Sec-Fetch-Dest: document and gets the consent page.
    const navigation = await GET(
      new Request(`${BASE}/oauth/authorize?${query}`, {
        headers: { cookie: user.cookie, 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' },
      }),
    )
    expect(await navigation.text()).toContain('csrf_token')
  })
})

describe('consent page (docs/design/oauth-mcp.md decisions 12 and 13)', () => {
  it('names the client, its redirect host and the scopes, with a CSRF token and the page headers', async () => {
    const { response, html } = await consentPage(authorizeQuery(client, challenge))
    expectPageHeaders(response)
    expect(html).toContain('Test client')
    expect(html).toContain('127.0.0.1:7777')
    expect(html).toContain('read:service')
    expect(html).not.toContain('write_issues')
    const fields = consentFields(html)
    expect(fields.get('csrf_token')).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/)
    expect(fields.get('client_id')).toBe(client.client_id)
    expect(fields.get('state')).toBe('state-123')
    expect(fields.get('resource')).toBe(RESOURCE)
  })

  it('shows write:issues as a separate choice when asked', async () => {
    const { html } = await consentPage(
      authorizeQuery(client, challenge, { scope: 'read:service write:issues' }),
    )
    expect(html).toMatch(/<input type="checkbox" name="write_issues" value="1" checked>/)
    expect(html).toContain('write:issues')
  })

  it('escapes the client name (untrusted registration text)', async () => {
    const hostile = await registerClient()
    await database.db
      .update(oauthClients)
      .set({ clientName: '<img src=x onerror=alert(1)>"&' })
      .where(eq(oauthClients.clientId, hostile.client_id))
    const { html } = await consentPage(authorizeQuery(hostile, challenge))
    expect(html).not.toContain('<img src=x')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&amp;')
  })

  it('lets a user in several organizations pick one', async () => {
    const multi = await signedInUser(database.db, ['First org', 'Second org'])
    const { html } = await consentPage(authorizeQuery(client, challenge), multi.cookie)
    expect(html).toContain('<select name="organization_id"')
    for (const org of multi.organizations)
      expect(html).toContain(`<option value="${org.id}">${org.name}</option>`)
  })
})

describe('RFC 6749 §4.1.2 / RFC 9207 authorization response after consent', () => {
  // A fresh user each time: an earlier approval would skip the page (tested below).
  beforeEach(async () => {
    user = await signedInUser(database.db)
  })

  it('approval answers 303 with code, state verbatim and iss, and stores the code hashed', async () => {
    const state = `long & odd state ?#= ${'x'.repeat(2000)}`
    const { html } = await consentPage(authorizeQuery(client, challenge, { state }))
    const fields = consentFields(html)
    fields.set('decision', 'approve')
    const response = await oauth.consent(fields, user.cookie)
    expect(response.status).toBe(303)
    expectPageHeaders(response)
    const location = new URL(response.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:7777/callback')
    expect(location.searchParams.get('state')).toBe(state)
    expect(location.searchParams.get('iss')).toBe(ISSUER)
    const code = location.searchParams.get('code')!
    expect(code).toMatch(/^svc_oac_/)
    const [row] = await database.db
      .select()
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, hashToken(code)))
    expect(row).toMatchObject({
      clientId: client.client_id,
      userId: user.id,
      organizationId: user.organizations[0]!.id,
      redirectUri: 'http://127.0.0.1:7777/callback',
      codeChallenge: challenge,
      scope: 'read:service',
      resource: RESOURCE,
      usedAt: null,
    })
    expect(row!.consentId).toBeTruthy()
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(60_000)
  })

  it('denial answers 303 with error=access_denied, state and iss', async () => {
    const fields = consentFields((await consentPage(authorizeQuery(client, challenge))).html)
    fields.set('decision', 'deny')
    const response = await oauth.consent(fields, user.cookie)
    expect(response.status).toBe(303)
    const location = new URL(response.headers.get('location')!)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('state')).toBe('state-123')
    expect(location.searchParams.get('iss')).toBe(ISSUER)
    expect(location.searchParams.has('code')).toBe(false)
  })

  it('grants write:issues only when the box stays ticked', async () => {
    const other = await signedInUser(database.db)
    const fields = consentFields(
      (
        await consentPage(
          authorizeQuery(client, challenge, { scope: 'read:service write:issues' }),
          other.cookie,
        )
      ).html,
    )
    fields.set('decision', 'approve')
    const response = await oauth.consent(fields, other.cookie)
    const code = new URL(response.headers.get('location')!).searchParams.get('code')!
    const [row] = await database.db
      .select({ scope: oauthAuthorizationCodes.scope })
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, hashToken(code)))
    expect(row!.scope).toBe('read:service')
  })

  it('uses the requested port of a loopback IP redirect', async () => {
    const query = authorizeQuery(client, challenge, { redirect_uri: 'http://127.0.0.1:45678/callback' })
    const fields = consentFields((await consentPage(query)).html)
    fields.set('decision', 'approve')
    const response = await oauth.consent(fields, user.cookie)
    expect(response.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:45678\/callback\?code=/)
  })

  it.each([
    ['a missing CSRF token', (f: URLSearchParams) => f.delete('csrf_token')],
    [
      'a tampered CSRF token',
      (f: URLSearchParams) => f.set('csrf_token', `${f.get('csrf_token')!.slice(0, -2)}AA`),
    ],
    ['a changed parameter under the token', (f: URLSearchParams) => f.set('state', 'other')],
    [
      'an organization the user is not in',
      (f: URLSearchParams) => f.set('organization_id', crypto.randomUUID()),
    ],
    ['an unknown decision', (f: URLSearchParams) => f.set('decision', 'maybe')],
  ])('refuses %s with the opaque page', async (_name, mutate) => {
    const fields = consentFields((await consentPage(authorizeQuery(client, challenge))).html)
    fields.set('decision', 'approve')
    mutate(fields)
    await expectOpaqueError(await oauth.consent(fields, user.cookie))
  })

  it("refuses another user's CSRF token", async () => {
    const other = await signedInUser(database.db)
    const fields = consentFields((await consentPage(authorizeQuery(client, challenge), other.cookie)).html)
    fields.set('decision', 'approve')
    await expectOpaqueError(await oauth.consent(fields, user.cookie))
  })

  it('sends a signed-out POST to /login with 303', async () => {
    const fields = consentFields((await consentPage(authorizeQuery(client, challenge))).html)
    fields.set('decision', 'approve')
    const response = await oauth.consent(fields)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toMatch(/^\/login\?callbackUrl=%2Foauth%2Fauthorize%3F/)
  })

  it('refuses a consent POST for a client revoked since the page was shown', async () => {
    const doomed = await registerClient()
    const fields = consentFields((await consentPage(authorizeQuery(doomed, challenge))).html)
    fields.set('decision', 'approve')
    await database.db
      .update(oauthClients)
      .set({ revokedAt: new Date() })
      .where(eq(oauthClients.clientId, doomed.client_id))
    await expectOpaqueError(await oauth.consent(fields, user.cookie))
  })
})

describe('existing consent (spec: consent skipped, redirect at once)', () => {
  it('answers 302 with a code when an active consent covers the scope, and shows the page again once revoked', async () => {
    const fresh = await signedInUser(database.db)
    const app = await registerClient()
    const first = consentFields((await consentPage(authorizeQuery(app, challenge), fresh.cookie)).html)
    first.set('decision', 'approve')
    expect((await oauth.consent(first, fresh.cookie)).status).toBe(303)

    const again = await oauth.authorize(authorizeQuery(app, challenge, { state: 'second' }), fresh.cookie)
    expect(again.status).toBe(302)
    expectPageHeaders(again)
    const location = new URL(again.headers.get('location')!)
    expect(location.searchParams.get('code')).toMatch(/^svc_oac_/)
    expect(location.searchParams.get('state')).toBe('second')
    expect(location.searchParams.get('iss')).toBe(ISSUER)

    // A wider request than what was approved asks again.
    expect(
      (
        await oauth.authorize(
          authorizeQuery(app, challenge, { scope: 'read:service write:issues' }),
          fresh.cookie,
        )
      ).status,
    ).toBe(200)

    await database.db
      .update(oauthConsents)
      .set({ revokedAt: new Date() })
      .where(eq(oauthConsents.userId, fresh.id))
    expect((await oauth.authorize(authorizeQuery(app, challenge), fresh.cookie)).status).toBe(200)
  })

  it('asks again when consents exist in several of the user’s organizations', async () => {
    const multi = await signedInUser(database.db, ['One', 'Two'])
    const app = await registerClient()
    for (const org of multi.organizations) {
      // After the first approval only prompt=consent shows the page (to pick another org).
      const query = authorizeQuery(app, challenge, { prompt: 'consent' })
      const fields = consentFields((await consentPage(query, multi.cookie)).html)
      fields.set('decision', 'approve')
      fields.set('organization_id', org.id)
      expect((await oauth.consent(fields, multi.cookie)).status).toBe(303)
    }
    expect((await oauth.authorize(authorizeQuery(app, challenge), multi.cookie)).status).toBe(200)
  })

  it('never answers 307 or 308 anywhere in the flow', async () => {
    const statuses = [
      (await oauth.authorize(authorizeQuery(client, challenge))).status,
      (await oauth.authorize(authorizeQuery(client, challenge), user.cookie)).status,
    ]
    for (const status of statuses) expect([307, 308]).not.toContain(status)
  })
})
