import { randomUUID } from 'node:crypto'
import {
  unstable_doesMiddlewareMatch,
  unstable_getResponseFromNextConfig,
} from 'next/experimental/testing/server'
import { NextRequest } from 'next/server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { GET as sessionEventsRoute } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { GET as healthRoute } from '@/app/api/health/route'
import { POST as mcpRoute } from '@/app/api/mcp/route'
import { GET as openApiRoute } from '@/app/api/v1/openapi.json/route'
import { GET as authorizeRoute } from '@/app/oauth/authorize/route'
import { GET as sdkRoute } from '@/app/sdk.js/route'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import nextConfig from '@/next.config'
import { proxy, config as proxyConfig } from '@/proxy'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { oauth, registerClient } from '../helpers/oauth'

/**
 * What each surface answers, header by header, as `next start` composes it from three layers:
 * next.config.ts `headers()` (evaluated by Next's own config-testing utility), proxy.ts (run
 * when Next's matcher utility says it runs for the path) and the route handler's Response.
 * A header must come from at least one layer, and layers that set it must agree: a value that
 * depends on which layer Next lets win is a defect too.
 */

const BASE = 'http://localhost:3000'
const HTTPS = 'https://replay.example.com'
const TWO_YEARS = 63_072_000

let database: TestDatabase
let org: string
let apiKey: string
let ingestKey: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  org = (await createOrganization(database.db, { name: 'Headers' })).id
  apiKey = (await createKey(database.db, { organizationId: org, type: 'api' })).key
  ingestKey = (await createKey(database.db, { organizationId: org, type: 'ingest' })).key
})
afterEach(() => {
  setConfigForTests(undefined)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

/** The configuration the proxy reads, as `next start` or `next dev` would parse it. */
function configure(env: { NODE_ENV: 'production' | 'development' | 'test'; BASE_URL?: string }) {
  setConfigForTests(
    parseConfig({
      ...env,
      AUTH_SECRET: process.env.AUTH_SECRET,
      DATA_DIR: process.env.DATA_DIR,
    }),
  )
}

interface Served {
  url: string
  /** Which layers answered: the proxy only runs where its matcher says. */
  layers: string[]
  /** The one value the layers agree on, or null when none sets it. */
  get(name: string): string | null
  proxyResponse: Headers | null
}

async function served(url: string, route?: Response, init?: { headers?: Record<string, string> }) {
  // The utility answers with an empty body (and so a text/plain Content-Type of its own): only
  // the headers next.config.ts declares are that layer's.
  const declared = new Set(
    (await nextConfig.headers!()).flatMap((rule) => rule.headers.map((h) => h.key.toLowerCase())),
  )
  const fromConfig = new Headers()
  for (const [name, value] of (await unstable_getResponseFromNextConfig({ url, nextConfig })).headers)
    if (declared.has(name)) fromConfig.set(name, value)
  const layers: [string, Headers][] = [['next.config.ts', fromConfig]]
  let proxyResponse: Headers | null = null
  if (unstable_doesMiddlewareMatch({ config: proxyConfig, url, nextConfig })) {
    proxyResponse = proxy(new NextRequest(url, { headers: init?.headers })).headers
    layers.push(['proxy.ts', proxyResponse])
  }
  if (route) layers.push(['route handler', route.headers])
  return {
    url,
    layers: layers.map(([name]) => name),
    proxyResponse,
    get(name: string) {
      const set = layers.flatMap(([layer, headers]) => {
        const value = headers.get(name)
        return value === null ? [] : [[layer, value] as const]
      })
      const values = new Set(set.map(([, value]) => value))
      if (values.size > 1) throw new Error(`${name} differs between layers on ${url}: ${JSON.stringify(set)}`)
      return set[0]?.[1] ?? null
    },
  } satisfies Served
}

/** `directive -> sources` of a Content-Security-Policy. */
function directives(policy: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>()
  for (const part of (policy ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/)
    if (name) map.set(name.toLowerCase(), sources)
  }
  return map
}

const DASHBOARD_PAGES = [
  '/',
  '/issues',
  `/issues/${randomUUID()}`,
  '/sessions',
  '/signals',
  '/insights',
  '/releases',
  `/releases/${encodeURIComponent('web/2026.11 #5')}`,
  '/settings',
  '/settings/keys',
  '/settings/webhooks',
  '/settings/source-maps',
  '/settings/connected-apps',
  '/login',
  '/signup',
  '/invite/svc_inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
]

describe('dashboard pages: proxy.ts and next.config.ts', () => {
  it.each(DASHBOARD_PAGES)('%s: CSP with a fresh nonce, never framed, nosniff', async (page) => {
    configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
    const first = await served(`${HTTPS}${page}`)
    expect(first.layers).toContain('proxy.ts')
    const policy = directives(first.get('content-security-policy'))
    // Next reads the nonce from the request headers the proxy forwards and puts it on its scripts.
    const nonce = first.proxyResponse!.get('x-middleware-request-x-nonce')!
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/)
    expect(first.proxyResponse!.get('x-middleware-request-content-security-policy')).toBe(
      first.get('content-security-policy'),
    )
    const scripts = policy.get('script-src') ?? []
    expect(scripts).toEqual(expect.arrayContaining(["'self'", `'nonce-${nonce}'`, "'strict-dynamic'"]))
    expect(scripts).not.toContain("'unsafe-inline'")
    expect(scripts).not.toContain("'unsafe-eval'")
    expect(policy.get('default-src')).toEqual(["'self'"])
    expect(policy.get('object-src')).toEqual(["'none'"])
    expect(policy.get('base-uri')).toEqual(["'self'"])
    expect(policy.get('form-action')).toEqual(["'self'"])
    expect(policy.get('frame-ancestors')).toEqual(["'none'"])
    expect(policy.get('connect-src')).toEqual(["'self'"])
    // The same protection for browsers without CSP level 2.
    expect(first.get('x-frame-options')).toBe('DENY')
    expect(first.get('x-content-type-options')).toBe('nosniff')

    const second = await served(`${HTTPS}${page}`)
    expect(second.proxyResponse!.get('x-middleware-request-x-nonce')).not.toBe(nonce)
  })

  it.each(DASHBOARD_PAGES)('%s: Referrer-Policy, and no cache where a password or token is', async (page) => {
    configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
    const answer = await served(`${HTTPS}${page}`)
    const sensitive = page === '/login' || page.startsWith('/invite/')
    // Invitation links carry their token in the path; the login URL may carry an authorize request.
    expect(answer.get('referrer-policy')).toBe(sensitive ? 'no-referrer' : 'strict-origin-when-cross-origin')
    if (sensitive || page === '/signup') expect(answer.get('cache-control')).toBe('no-store')
  })

  it("allows 'unsafe-eval' only to the development server (hot reloading evaluates code)", async () => {
    configure({ NODE_ENV: 'development' })
    const dev = directives((await served(`${BASE}/issues`)).get('content-security-policy'))
    expect(dev.get('script-src')).toContain("'unsafe-eval'")
    expect(dev.get('frame-ancestors')).toEqual(["'none'"])
  })
})

describe('share links (docs/sharing.md): no cache, no Referer, not indexed; only the embed is framed', () => {
  const token = `svc_shr_${'A'.repeat(43)}`
  it.each([
    [`/share/${token}`, false],
    [`/share/${token}/embed`, true],
  ])('%s', async (page, framed) => {
    configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
    const answer = await served(`${HTTPS}${page}?t=1000`)
    expect(answer.layers).toContain('proxy.ts')
    expect(answer.get('referrer-policy')).toBe('no-referrer')
    expect(answer.get('cache-control')).toBe('no-store')
    expect(answer.get('x-robots-tag')).toBe('noindex, nofollow')
    expect(answer.get('x-content-type-options')).toBe('nosniff')
    const policy = directives(answer.get('content-security-policy'))
    expect(policy.get('frame-ancestors')).toEqual(framed ? ['*'] : ["'none'"])
    expect(answer.get('x-frame-options')).toBe(framed ? null : 'DENY')
  })
})

describe('HSTS: in production behind an https BASE_URL only', () => {
  it.each(['/', '/issues', '/login', '/oauth/authorize'])(
    '%s carries it in production on https',
    async (page) => {
      configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
      const hsts = (await served(`${HTTPS}${page}`)).get('strict-transport-security')
      expect(hsts).toBe(`max-age=${TWO_YEARS}; includeSubDomains`)
    },
  )

  it('follows BASE_URL, not the request: also when TLS ends at a proxy that says nothing', async () => {
    configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
    // next start behind a TLS-terminating proxy sees plain http.
    expect((await served('http://10.0.0.5:3000/issues')).get('strict-transport-security')).toBe(
      `max-age=${TWO_YEARS}; includeSubDomains`,
    )
  })

  it('is absent with an http BASE_URL, whatever X-Forwarded-Proto claims', async () => {
    configure({ NODE_ENV: 'production', BASE_URL: 'http://replay.internal:3000' })
    const answer = await served('http://replay.internal:3000/issues', undefined, {
      headers: { 'x-forwarded-proto': 'https' },
    })
    expect(answer.layers).toContain('proxy.ts')
    expect(answer.get('strict-transport-security')).toBeNull()
  })

  it.each(['development', 'test'] as const)(
    'is absent outside production (%s), even on https',
    async (env) => {
      configure({ NODE_ENV: env, BASE_URL: HTTPS })
      const answer = await served(`${HTTPS}/issues`)
      expect(answer.layers).toContain('proxy.ts')
      expect(answer.get('strict-transport-security')).toBeNull()
    },
  )
})

describe('OAuth authorization pages', () => {
  it('carry their own policy: never framed, no Referer, not cached, nosniff, HSTS from the proxy', async () => {
    configure({ NODE_ENV: 'production', BASE_URL: HTTPS })
    const route = await authorizeRoute(new Request(`${HTTPS}/oauth/authorize?client_id=svc_client_unknown`))
    expect(route.status).toBe(400)
    const answer = await served(`${HTTPS}/oauth/authorize?client_id=svc_client_unknown`, route)
    expect(answer.layers).toEqual(['next.config.ts', 'proxy.ts', 'route handler'])
    // The proxy leaves the policy to the route (its form-action must reach the client's redirect URI).
    expect(answer.proxyResponse!.get('content-security-policy')).toBeNull()
    const policy = directives(answer.get('content-security-policy'))
    expect(policy.get('frame-ancestors')).toEqual(["'none'"])
    // Plain HTML with an inline style sheet: nothing else may load, no script at all.
    expect(policy.get('default-src')).toEqual(["'none'"])
    expect(policy.get('style-src')).toEqual(["'unsafe-inline'"])
    expect(policy.get('base-uri')).toEqual(["'none'"])
    expect(policy.has('script-src')).toBe(false)
    expect(policy.has('form-action')).toBe(false)
    expect(answer.get('x-frame-options')).toBe('DENY')
    expect(answer.get('referrer-policy')).toBe('no-referrer')
    expect(answer.get('cache-control')).toBe('no-store')
    expect(answer.get('x-content-type-options')).toBe('nosniff')
    expect(answer.get('strict-transport-security')).toBe(`max-age=${TWO_YEARS}; includeSubDomains`)
  })
})

describe('JSON APIs: nosniff everywhere, nothing authenticated cached, no proxy', () => {
  const batch = () =>
    recorderBatches({
      sessionId: `headers-${randomUUID()}`,
      events: [
        { type: 4, timestamp: Date.now(), data: { href: 'http://127.0.0.1/', width: 800, height: 600 } },
      ],
      final: false,
    })[0]!

  const mcp = (authorization?: string) =>
    mcpRoute(
      new Request(`${BASE}/api/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'h', version: '1' },
          },
        }),
      }),
    )

  const surfaces: [string, string, number, () => Promise<Response>][] = [
    ['Data API list', '/api/v1/issues', 200, () => api.listIssues(apiKey)],
    ['Data API without a token', '/api/v1/issues', 401, () => api.listIssues(null)],
    [
      'Data API, unknown issue',
      `/api/v1/issues/${randomUUID()}`,
      404,
      () => api.getIssue(apiKey, randomUUID()),
    ],
    ['ingest, stored', '/api/sdk/replay', 200, () => sendBatch(batch(), { key: ingestKey })],
    ['ingest without a key', '/api/sdk/replay', 401, () => sendBatch(batch(), { key: null })],
    ['ingest, invalid batch', '/api/sdk/replay', 400, () => sendBatch({}, { key: ingestKey })],
    ['MCP initialize', '/api/mcp', 200, () => mcp(`Bearer ${apiKey}`)],
    ['MCP without a token', '/api/mcp', 401, () => mcp()],
    [
      'OAuth registration',
      '/api/oauth/register',
      201,
      () => oauth.register({ redirect_uris: ['http://127.0.0.1:7777/cb'] }),
    ],
    [
      'OAuth token, bad grant',
      '/api/oauth/token',
      400,
      async () => {
        const client = await registerClient()
        return oauth.token({
          grant_type: 'refresh_token',
          refresh_token: 'svc_ort_x',
          client_id: client.client_id,
        })
      },
    ],
    [
      'OAuth revocation',
      '/api/oauth/revoke',
      200,
      async () => oauth.revoke({ token: 'svc_oat_x', client_id: (await registerClient()).client_id }),
    ],
    [
      'dashboard replay events without a session',
      `/api/dashboard/sessions/${randomUUID()}/events`,
      401,
      () =>
        sessionEventsRoute(new Request(`${BASE}/api/dashboard/sessions/x/events`), {
          params: Promise.resolve({ sessionId: randomUUID() }),
        }),
    ],
    ['health', '/api/health', 200, () => healthRoute()],
  ]

  it.each(surfaces)('%s (%s): %i, JSON, nosniff, not cached', async (_name, path, status, call) => {
    const response = await call()
    expect(response.status).toBe(status)
    const answer = await served(`${BASE}${path}`, response)
    expect(answer.layers).toEqual(['next.config.ts', 'route handler'])
    // Revocation answers 200 with no body at all (RFC 7009); everything else is JSON.
    if ((await response.text()) !== '') expect(answer.get('content-type')).toMatch(/^application\/json\b/)
    expect(answer.get('x-content-type-options')).toBe('nosniff')
    // Per-credential (or, for health, per-moment) answers: no shared or browser cache keeps them.
    expect(answer.get('cache-control')).toMatch(/(^|[ ,])no-store($|,)/)
    // JSON is never a page: none of these is sent with a page's policy or HSTS by the proxy.
    expect(answer.get('strict-transport-security')).toBeNull()
  })

  it('the OAuth endpoints also send Pragma: no-cache (RFC 6749 §5.1)', async () => {
    const response = await oauth.revoke({ token: 'svc_oat_x', client_id: (await registerClient()).client_id })
    expect(response.headers.get('pragma')).toBe('no-cache')
  })

  it('public documents and the recorder script are nosniff too (cacheable: they carry nothing private)', async () => {
    const sdk = await sdkRoute(new Request(`${BASE}/sdk.js`))
    const sdkAnswer = await served(`${BASE}/sdk.js`, sdk)
    expect(sdkAnswer.layers).toEqual(['next.config.ts', 'route handler'])
    expect(sdkAnswer.get('x-content-type-options')).toBe('nosniff')
    if (sdk.status === 200) expect(sdkAnswer.get('content-type')).toMatch(/^text\/javascript\b/)

    const openApi = openApiRoute()
    const openApiAnswer = await served(`${BASE}/api/v1/openapi.json`, openApi)
    expect(openApiAnswer.get('x-content-type-options')).toBe('nosniff')
    expect(openApiAnswer.get('content-type')).toMatch(/^application\/json\b/)

    const metadata = await oauth.metadata()
    const metadataAnswer = await served(`${BASE}/.well-known/oauth-authorization-server`, metadata)
    expect(metadataAnswer.get('x-content-type-options')).toBe('nosniff')
    expect(metadataAnswer.get('content-type')).toMatch(/^application\/json\b/)
  })
})
