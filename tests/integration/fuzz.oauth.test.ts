import { eq, isNull } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { POST as register } from '@/app/api/oauth/register/route'
import { POST as revoke } from '@/app/api/oauth/revoke/route'
import { POST as token } from '@/app/api/oauth/token/route'
import { GET as authorizeGet, POST as authorizePost } from '@/app/oauth/authorize/route'
import { errorPage } from '@/app/oauth/authorize/view'
import { oauthAccessTokens, oauthRefreshTokens } from '@/db/schema'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { getConfig } from '@/lib/config'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { useRateLimiter } from '@/lib/ratelimit'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  type Answer,
  allowAllRateLimiter,
  answerOf,
  assertPrototypesClean,
  forbidErrorLogs,
  fuzzRuns,
  hasControlCharacter,
  headerValue,
  hostileBytes,
  hostileJson,
  hostileKey,
  hostileString,
  jsonOf,
  NASTY_STRINGS,
  OAUTH_TABLES,
  ownEntries,
  pollutionPayload,
  rowCounts,
  spliceBytes,
  utf8Damage,
} from '../helpers/fuzz'
import {
  authorizeCode,
  authorizeQuery,
  BASE,
  consentFields,
  exchange,
  oauth,
  pkce,
  REDIRECT,
  registerClient,
  signedInUser,
  type TestClient,
  type TokenBody,
} from '../helpers/oauth'

/**
 * Hostile input at the OAuth server through its real route handlers: registration metadata,
 * token and revocation forms, and authorize queries and consent forms. JSON endpoints answer
 * RFC 6749 §5.2 bodies (never a 500, never a hang); authorize redirects only ever go to a
 * registered redirect URI with `state` echoed verbatim, or to our own /login; its error page
 * is the one opaque page; refused requests write nothing.
 */

let database: TestDatabase
let user: Awaited<ReturnType<typeof signedInUser>>
/** Signed in, member of one organization, no consent yet: sees the consent page. */
let newcomer: Awaited<ReturnType<typeof signedInUser>>
let client: TestClient
let confidential: TestClient
/** Tokens of `client` that no fuzz case may revoke. */
let live: { access: string; refresh: string }

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  useRateLimiter(allowAllRateLimiter)
  user = await signedInUser(database.db)
  newcomer = await signedInUser(database.db, ['Newcomer Org'])
  client = await registerClient({ client_name: 'Fuzz client' })
  confidential = await registerClient({ token_endpoint_auth_method: 'client_secret_post' })
  // The user's consent (read:service) makes GET /oauth/authorize answer 302 with a code at once.
  const grant = await authorizeCode(user, client, { writeIssues: false })
  const tokens = (await (await exchange(client, grant)).json()) as TokenBody
  live = { access: tokens.access_token, refresh: tokens.refresh_token }
  useRateLimiter(undefined)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
forbidErrorLogs()
beforeEach(() => {
  useRateLimiter(allowAllRateLimiter)
})
afterEach(async () => {
  useRateLimiter(undefined)
  assertPrototypesClean()
  await expectLiveTokensActive()
})

async function expectLiveTokensActive() {
  const [access] = await database.db
    .select({ revokedAt: oauthAccessTokens.revokedAt })
    .from(oauthAccessTokens)
    .where(eq(oauthAccessTokens.tokenHash, hashToken(live.access)))
  const [refresh] = await database.db
    .select({ id: oauthRefreshTokens.id })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, hashToken(live.refresh)))
  expect(access?.revokedAt).toBeNull()
  expect(refresh).toBeDefined()
  const active = await database.db
    .select({ id: oauthAccessTokens.id })
    .from(oauthAccessTokens)
    .where(isNull(oauthAccessTokens.revokedAt))
  expect(active.length).toBeGreaterThan(0)
}

const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_client_metadata',
]

/** RFC 6749 §5.2: exactly `{error, error_description}`, a known code, uncacheable. */
function expectOAuthError(answer: Answer, codes = OAUTH_ERRORS): string {
  expect([400, 401], answer.text.slice(0, 300)).toContain(answer.status)
  const body = jsonOf(answer) as { error: string; error_description: unknown }
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description'])
  expect(codes).toContain(body.error)
  expect(typeof body.error_description).toBe('string')
  // RFC 6749 §5.2: error_description is printable ASCII without `"` and `\`.
  expect(body.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/)
  expect(answer.status === 401).toBe(body.error === 'invalid_client')
  expect(answer.headers.get('cache-control')).toBe('no-store')
  expect(answer.headers.get('pragma')).toBe('no-cache')
  return body.error
}

type RawBody = string | Uint8Array

function post(
  handler: (req: Request) => Promise<Response>,
  path: string,
  body: RawBody,
  headers: Record<string, string>,
): Promise<Answer> {
  return answerOf(`POST ${path}`, () =>
    handler(
      new Request(`${BASE}${path}`, {
        method: 'POST',
        headers: new Headers(headers),
        body: new Uint8Array(Buffer.from(body)),
      }),
    ),
  )
}

// ---------------------------------------------------------------------------------------
// Registration

const HOSTED = getConfig().oauth.hostedRedirectOrigins

/** Redirect URIs an attacker would try, and some that are fine. */
const redirectUriCandidate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)//http://127.0.0.1/',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'http://127.0.0.1:7777/cb\r\nSet-Cookie: x=1',
    'http://127.0.0.1:7777/cb%0d%0aLocation:%20https://evil.example',
    ' http://127.0.0.1:7777/cb',
    'http://127.0.0.1:7777/cb ',
    '\thttp://127.0.0.1/cb',
    'http://127.0.0.1:7777/c\tb',
    'http://127.0.0.1:7777/cb#frag',
    'http://127.0.0.1:7777/cb#',
    'http://user:pass@127.0.0.1/cb',
    'http://@127.0.0.1/cb',
    'http://127.0.0.1@evil.example/cb',
    'http://evil.example\\@127.0.0.1/cb',
    'http://127.0.0.1.evil.example/cb',
    'http://localhost.evil.example/cb',
    'http://[::1]:9/cb',
    'http://localhost/cb',
    'http://127.0.0.1:7777/callback',
    'https://evil.example/cb',
    '//evil.example/cb',
    '/relative',
    'https://claude.ai.evil.example/cb',
    'https://claude.ai@evil.example/cb',
    'http://claude.ai/cb',
    `http://127.0.0.1/${'a'.repeat(3000)}`,
  ),
  fc.constantFrom(...HOSTED).map((origin) => `${origin}/api/mcp/auth_callback`),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  hostileString,
)

/**
 * The allowlist as the spec words it, re-derived here: HTTP loopback with any port and path, or
 * a hosted HTTPS origin; never credentials, fragments, whitespace or control characters
 * (none of which a URI may contain).
 */
function allowedBySpec(uri: string): boolean {
  if (/[\s#]/.test(uri) || hasControlCharacter(uri)) return false
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return false
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri)) return false
  if (url.protocol === 'http:') return ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname)
  return url.protocol === 'https:' && HOSTED.includes(url.origin)
}

const metadata: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          redirect_uris: fc.oneof(
            fc.array(redirectUriCandidate, { minLength: 1, maxLength: 4 }),
            hostileJson,
            fc.constant(Array.from({ length: 2000 }, () => REDIRECT)),
          ),
          client_name: fc.oneof(hostileString, hostileJson),
          token_endpoint_auth_method: fc.oneof(
            fc.constantFrom('none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'),
            hostileJson,
          ),
          grant_types: fc.oneof(
            fc.subarray([
              'authorization_code',
              'refresh_token',
              'implicit',
              'password',
              'client_credentials',
            ]),
            hostileJson,
          ),
          response_types: fc.oneof(fc.subarray(['code', 'token', 'id_token']), hostileJson),
          scope: fc.oneof(
            fc.constantFrom('read:service', 'read:service write:issues', 'admin', 'openid'),
            hostileString,
          ),
          extra: fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      )
      .map(({ extra, ...fields }) => ownEntries([...Object.entries(fields), ...(extra ?? [])])),
  },
  { weight: 1, arbitrary: hostileJson },
  { weight: 1, arbitrary: pollutionPayload },
)

describe('POST /api/oauth/register with hostile metadata', () => {
  it('registers only allowlisted redirect URIs; anything else is 400 invalid_client_metadata and no row', async () => {
    await fc.assert(
      fc.asyncProperty(metadata, async (body) => {
        const before = await rowCounts(database.db, OAUTH_TABLES)
        const answer = await post(register, '/api/oauth/register', JSON.stringify(body) ?? 'null', {
          'content-type': 'application/json',
        })
        const after = await rowCounts(database.db, OAUTH_TABLES)
        if (answer.status === 201) {
          const registered = jsonOf(answer) as {
            redirect_uris: string[]
            client_id: string
            client_name: string
          }
          for (const uri of registered.redirect_uris)
            expect(allowedBySpec(uri), JSON.stringify(uri)).toBe(true)
          expect(registered.client_name).toMatch(/^[A-Za-z0-9 ._()-]{1,64}$/)
          expect(after.oauthClients).toBe(before.oauthClients + 1)
        } else {
          expectOAuthError(answer, ['invalid_client_metadata', 'invalid_request'])
          expect(after).toEqual(before)
        }
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [{ redirect_uris: ['http://127.0.0.1:7777/cb\r\nSet-Cookie: x=1'] }],
          [{ redirect_uris: [' http://127.0.0.1:7777/cb'] }],
          [{ redirect_uris: ['http://127.0.0.1:7777/c\tb'] }],
        ],
      },
    )
  })

  it('answers bodies that are not JSON (bytes, invalid UTF-8, wrong type, oversized) with a 400 in the RFC shape', async () => {
    const valid = JSON.stringify({ redirect_uris: [REDIRECT] })
    const body: fc.Arbitrary<RawBody> = fc.oneof(
      hostileBytes,
      fc.constantFrom(...NASTY_STRINGS),
      utf8Damage.map((damage) => spliceBytes(valid, damage)),
      fc.constant(`{"redirect_uris":["${REDIRECT}"],"pad":"${'x'.repeat(70_000)}"}`),
    )
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async (raw, type) => {
          const before = await rowCounts(database.db, OAUTH_TABLES)
          const answer = await post(register, '/api/oauth/register', raw, { 'content-type': type })
          if (answer.status === 201) {
            // Invalid UTF-8 inside a string decodes to U+FFFD: the document can stay valid.
            const registered = jsonOf(answer) as { redirect_uris: string[] }
            for (const uri of registered.redirect_uris)
              expect(allowedBySpec(uri), JSON.stringify(uri)).toBe(true)
            expect((await rowCounts(database.db, OAUTH_TABLES)).oauthClients).toBe(before.oauthClients + 1)
          } else {
            expectOAuthError(answer, ['invalid_client_metadata', 'invalid_request'])
            expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
          }
        },
      ),
      fuzzRuns(80),
    )
  })
})

// ---------------------------------------------------------------------------------------
// Token and revocation forms

const FORM_NAMES = [
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'client_secret',
  'code_verifier',
  'refresh_token',
  'scope',
  'resource',
  'token',
  'token_type_hint',
] as const

/** Values that get past the cheap checks and reach the database or the grant logic. */
const formValue: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.constantFrom('authorization_code', 'refresh_token', 'password', 'client_credentials', 'implicit'),
  fc
    .constantFrom('svc_client_', 'svc_oac_', 'svc_ort_', 'svc_oat_', 'svc_client_secret_')
    .chain((prefix) => hostileString.map((rest) => `${prefix}${rest}`)),
  fc.constant(null).map(() => client.client_id),
  fc.constant(null).map(() => confidential.client_id),
  fc.constant(REDIRECT),
  fc.constant(null).map(() => pkce().verifier),
  fc.constantFrom('read:service', 'read:service write:issues', 'admin', `${BASE}/api/mcp`, 'access_token'),
)

const formPairs = fc.array(
  fc.tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FORM_NAMES) }, { weight: 1, arbitrary: hostileKey }),
    formValue,
  ),
  { maxLength: 8 },
)

/** Form bodies: encoded pairs (names repeated or not), broken escapes, raw bytes, oversized. */
const formBody: fc.Arbitrary<RawBody> = fc.oneof(
  { weight: 5, arbitrary: formPairs.map((pairs) => new URLSearchParams(pairs).toString()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'grant_type=%zz',
      'grant_type=authorization_code&code=%',
      '&&&=&=',
      'grant_type',
      `client_id=${'%41'.repeat(20_000)}`,
      `grant_type=refresh_token&refresh_token=${'a'.repeat(70_000)}`,
      'grant_type=authorization_code&grant_type=authorization_code',
      'client_id=a&client_id=b',
      'client_id=svc_client_%00',
      'client_id=svc_client_%ff%fe',
      'token=svc_ort_%00&client_id=svc_client_%00',
    ),
  },
  { weight: 1, arbitrary: hostileBytes },
  {
    weight: 1,
    arbitrary: formPairs.chain((pairs) =>
      utf8Damage.map((damage) => spliceBytes(new URLSearchParams(pairs).toString(), damage)),
    ),
  },
)

const formHeaders: fc.Arbitrary<Record<string, string>> = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.constant('application/x-www-form-urlencoded') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'application/x-www-form-urlencoded; charset=ISO-8859-1',
          'APPLICATION/X-WWW-FORM-URLENCODED',
          'application/json',
          'multipart/form-data; boundary=x',
          '',
        ),
      },
      { weight: 1, arbitrary: headerValue },
    ),
    fc.option(
      fc.oneof(
        headerValue,
        fc
          .tuple(hostileString, hostileString)
          .map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
        fc
          .constant(null)
          .map(() => `Basic ${Buffer.from(`${confidential.client_id}:wrong`).toString('base64')}`),
        fc.constant(null).map(() => `Basic ${Buffer.from(`${client.client_id}:%zz`).toString('base64')}`),
      ),
      { nil: undefined },
    ),
  )
  .map(([type, authorization]) => ({
    'content-type': type,
    ...(authorization === undefined ? {} : { authorization }),
  }))

describe('POST /api/oauth/token with arbitrary forms', () => {
  it('answers every form without a valid grant with 400/401 in the RFC shape and issues nothing', async () => {
    await fc.assert(
      fc.asyncProperty(formBody, formHeaders, async (body, headers) => {
        const before = await rowCounts(database.db, OAUTH_TABLES)
        const answer = await post(token, '/api/oauth/token', body, headers)
        expectOAuthError(answer)
        if (answer.status === 401 && headers.authorization?.startsWith('Basic '))
          expect(answer.headers.get('www-authenticate')).toMatch(/^Basic /)
        expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
      }),
      {
        ...fuzzRuns(250),
        examples: [
          [
            'client_id=svc_client_%00&grant_type=authorization_code',
            { 'content-type': 'application/x-www-form-urlencoded' },
          ],
          [
            'grant_type=refresh_token&client_id=svc_client_a%00b&refresh_token=svc_ort_x',
            { 'content-type': 'application/x-www-form-urlencoded' },
          ],
        ],
      },
    )
  })
})

describe('POST /api/oauth/revoke with arbitrary forms', () => {
  it('answers 200 (empty) or 400/401 in the RFC shape, and revokes nothing it was not given', async () => {
    await fc.assert(
      fc.asyncProperty(formBody, formHeaders, async (body, headers) => {
        const before = await rowCounts(database.db, OAUTH_TABLES)
        const answer = await post(revoke, '/api/oauth/revoke', body, headers)
        if (answer.status === 200) expect(answer.text).toBe('')
        else expectOAuthError(answer)
        expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [
            'token=svc_oat_x&client_id=svc_client_%00',
            { 'content-type': 'application/x-www-form-urlencoded' },
          ],
        ],
      },
    )
  })
})

// ---------------------------------------------------------------------------------------
// Authorize: GET with arbitrary queries, POST with arbitrary consent forms

const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
}

/** Loopback IP redirects may change port (RFC 8252 §7.3); nothing else about them may change. */
function isRegisteredRedirect(location: URL): boolean {
  const registered = new URL(REDIRECT)
  return (
    location.protocol === registered.protocol &&
    location.hostname === registered.hostname &&
    location.pathname === registered.pathname &&
    location.username === '' &&
    location.password === '' &&
    location.hash === ''
  )
}

/**
 * Where an authorize answer may send a browser: our own /login (with a same-origin
 * callbackUrl back to authorize), or the registered redirect URI with exactly `code` or
 * `error`, `state` as received and `iss`.
 */
function expectSafeRedirect(answer: Answer, sent: URLSearchParams): 'login' | 'client' {
  const location = answer.headers.get('location')
  expect(location).not.toBeNull()
  expect(hasControlCharacter(location!), JSON.stringify(location)).toBe(false)
  if (location!.startsWith('/login?')) {
    const target = new URL(location!, BASE)
    expect(target.origin).toBe(BASE)
    const callback = target.searchParams.get('callbackUrl')
    if (callback !== null) {
      expect(safeCallbackPath(callback)).toBe(callback)
      expect(callback.startsWith('/oauth/authorize?')).toBe(true)
    } else expect(target.searchParams.get('error')).toBe('NoOrganization')
    return 'login'
  }
  const target = new URL(location!)
  expect(isRegisteredRedirect(target), location!).toBe(true)
  const names = [...target.searchParams.keys()].sort()
  const state = sent.get('state')
  const outcome = target.searchParams.has('code') ? 'code' : 'error'
  expect(names).toEqual([outcome, 'iss', ...(state === null ? [] : ['state'])].sort())
  if (outcome === 'code') expect(target.searchParams.get('code')).toMatch(/^svc_oac_[A-Za-z0-9_-]+$/)
  else expect(target.searchParams.get('error')).toBe('access_denied')
  // Echoed verbatim: exactly what the server received, whatever it contains.
  expect(target.searchParams.get('state')).toBe(state)
  expect(target.searchParams.get('iss')).toBe(BASE)
  return 'client'
}

/**
 * The page's markup with every attribute value and text emptied: an unescaped `"` or `<`
 * from a request would add or shift markup and change it.
 */
const skeleton = (html: string) => html.replace(/"[^"]*"/g, '""').replace(/>[^<]*</g, '><')

/** Skeletons of the consent page as the benign requests render it (with and without write:issues). */
const consentSkeletons = new Set<string>()

/** A page we render: the opaque error page verbatim, or a consent page with only escaped input. */
function expectSafePage(answer: Answer): void {
  expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
  for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(answer.headers.get(name)).toBe(value)
  if (answer.status === 400) {
    expect(answer.text).toBe(errorPage())
    return
  }
  expect(answer.status).toBe(200)
  expect(answer.text).not.toMatch(/<script/i)
  expect(consentSkeletons.has(skeleton(answer.text)), answer.text).toBe(true)
}

const authorizeParamValue: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  redirectUriCandidate,
  fc.constantFrom('code', 'token', 'S256', 'plain', 'read:service', 'read:service write:issues', 'consent'),
  fc.constant(null).map(() => pkce().challenge),
  fc.constant(null).map(() => client.client_id),
  // Past the prefix check, into the client lookup.
  hostileString.map((rest) => `svc_client_${rest}`),
  fc.constant('http://127.0.0.1:9999/callback'),
  fc.constant(`${REDIRECT}?x=1`),
  fc.constant(`${REDIRECT}/`),
  fc.constant(`${REDIRECT}#x`),
)

type Mutation = { op: 'set' | 'append'; name: string; value: string } | { op: 'delete'; name: string }

const AUTHORIZE_NAMES = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
  'prompt',
] as const

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constantFrom('set' as const, 'append' as const),
    name: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...AUTHORIZE_NAMES) },
      { weight: 1, arbitrary: hostileKey },
    ),
    value: authorizeParamValue,
  }),
  fc.record({ op: fc.constant('delete' as const), name: fc.constantFrom(...AUTHORIZE_NAMES) }),
)

/** A valid request for `client` (state included) with mutations applied. */
function mutatedQuery(state: string, mutations: Mutation[]): URLSearchParams {
  const params = new URLSearchParams(
    authorizeQuery(client, pkce().challenge, { state }) as Record<string, string>,
  )
  for (const m of mutations) {
    if (m.op === 'delete') params.delete(m.name)
    else if (m.op === 'set') params.set(m.name, m.value)
    else params.append(m.name, m.value)
  }
  return params
}

/** `state` values: anything, including CR/LF, quotes, markup and percent signs. */
const stateValue: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.constantFrom(
    'a\r\nLocation: https://evil.example',
    '"><script>alert(1)</script>',
    '%0d%0aX: y',
    'a&code=forged',
    'a#frag',
    '',
  ),
)

describe('GET /oauth/authorize with arbitrary query parameters', () => {
  beforeAll(async () => {
    for (const scope of ['read:service', 'read:service write:issues'])
      for (const state of ['benign', undefined]) {
        const query = { ...authorizeQuery(client, pkce().challenge, { scope }), state }
        const page = await oauth.authorize(query, newcomer.cookie)
        expect(page.status).toBe(200)
        consentSkeletons.add(skeleton(await page.text()))
      }
  })

  const whoArb = fc.constantFrom('nobody', 'consented', 'newcomer', 'forged') as fc.Arbitrary<
    'nobody' | 'consented' | 'newcomer' | 'forged'
  >
  const cookieOf = (who: 'nobody' | 'consented' | 'newcomer' | 'forged') =>
    who === 'consented'
      ? user.cookie
      : who === 'newcomer'
        ? newcomer.cookie
        : who === 'forged'
          ? 'next-auth.session-token=eyJhbGciOiJub25lIn0.e30.; next-auth.session-token.0=%zz'
          : undefined

  it('redirects only to /login or the registered URI with state verbatim; otherwise the opaque page', async () => {
    await fc.assert(
      fc.asyncProperty(
        stateValue,
        fc.array(mutation, { maxLength: 3 }),
        whoArb,
        async (state, mutations, who) => {
          const query = mutatedQuery(state, mutations)
          const url = `${BASE}/oauth/authorize?${query}`
          // What the server will read: the query as the URL parser hands it over.
          const received = new URL(url).searchParams
          const cookie = cookieOf(who)
          const before = await rowCounts(database.db, OAUTH_TABLES)
          const answer = await answerOf('GET /oauth/authorize', () =>
            authorizeGet(new Request(url, { headers: cookie ? { cookie } : {} })),
          )
          expect([200, 302, 400], answer.text.slice(0, 200)).toContain(answer.status)
          if (answer.status === 302) {
            const where = expectSafeRedirect(answer, received)
            if (where === 'login') expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
          } else {
            expectSafePage(answer)
            expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
          }
        },
      ),
      {
        ...fuzzRuns(200),
        examples: [
          ['a\r\nSet-Cookie: x=1', [], 'consented'],
          ['"><img src=x onerror=alert(1)>', [], 'newcomer'],
          [
            's',
            [{ op: 'set', name: 'redirect_uri', value: 'http://127.0.0.1:7777/callback/../../evil' }],
            'consented',
          ],
          ['s', [{ op: 'append', name: 'redirect_uri', value: 'https://evil.example/cb' }], 'consented'],
          ['s', [{ op: 'set', name: 'client_id', value: 'svc_client_\u0000' }], 'nobody'],
        ],
      },
    )
  })

  it('answers arbitrary raw query strings (broken escapes, invalid UTF-8 escapes) without a 500', async () => {
    const raw = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            '%',
            '%zz',
            '%ff%fe',
            '%c0%80',
            '%ed%a0%80',
            '%00',
            '&',
            '=',
            '+',
            ';',
            'state=%0d%0a',
          ),
          fc.string({ unit: 'binary-ascii', maxLength: 10 }).map((s) => s.replace(/#/g, '')),
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(''))
    await fc.assert(
      fc.asyncProperty(raw, whoArb, async (suffix, who) => {
        const base = new URLSearchParams(authorizeQuery(client, pkce().challenge) as Record<string, string>)
        const url = `${BASE}/oauth/authorize?${base}&${suffix}`
        const cookie = cookieOf(who)
        const answer = await answerOf('GET /oauth/authorize', () =>
          authorizeGet(new Request(url, { headers: cookie ? { cookie } : {} })),
        )
        const received = new URL(url).searchParams
        if (answer.status === 302) expectSafeRedirect(answer, received)
        else expectSafePage(answer)
      }),
      fuzzRuns(100),
    )
  })
})

describe('POST /oauth/authorize with arbitrary consent forms', () => {
  it('sends the browser only to the registered URI (state verbatim) or /login, else the opaque page', async () => {
    const page = await oauth.authorize(
      authorizeQuery(client, pkce().challenge, { state: 'orig' }),
      newcomer.cookie,
    )
    expect(page.status).toBe(200)
    const genuine = consentFields(await page.text())
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            mutation,
            fc.record({
              op: fc.constantFrom('set' as const, 'append' as const),
              name: fc.constantFrom('decision', 'csrf_token', 'organization_id', 'write_issues'),
              value: fc.oneof(
                hostileString,
                fc.constantFrom('approve', 'deny', '1'),
                fc.constant(null).map(() => newcomer.organizations[0]!.id),
                fc.constant(null).map(() => user.organizations[0]!.id),
              ),
            }),
          ),
          { maxLength: 3 },
        ),
        fc.constantFrom('approve', 'deny', undefined),
        fc.boolean(),
        async (mutations, decision, signedIn) => {
          const form = new URLSearchParams(genuine)
          if (decision) form.set('decision', decision)
          for (const m of mutations) {
            if (m.op === 'delete') form.delete(m.name)
            else if (m.op === 'set') form.set(m.name, m.value)
            else form.append(m.name, m.value)
          }
          const before = await rowCounts(database.db, OAUTH_TABLES)
          const answer = await answerOf('POST /oauth/authorize', () =>
            authorizePost(
              new Request(`${BASE}/oauth/authorize`, {
                method: 'POST',
                headers: {
                  'content-type': 'application/x-www-form-urlencoded',
                  ...(signedIn ? { cookie: newcomer.cookie } : {}),
                },
                body: form.toString(),
              }),
            ),
          )
          expect([303, 400], answer.text.slice(0, 200)).toContain(answer.status)
          // The server reads the form as URLSearchParams of the body: the same pairs as `form`.
          if (answer.status === 303) {
            const where = expectSafeRedirect(answer, form)
            if (where === 'login') expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
          } else {
            expectSafePage(answer)
            expect(await rowCounts(database.db, OAUTH_TABLES)).toEqual(before)
          }
        },
      ),
      fuzzRuns(150),
    )
  })
})
