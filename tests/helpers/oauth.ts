import { randomBytes, randomUUID } from 'node:crypto'
import { encode } from 'next-auth/jwt'
import { GET as authorizationServer } from '@/app/.well-known/oauth-authorization-server/[[...path]]/route'
import { GET as protectedResource } from '@/app/.well-known/oauth-protected-resource/[[...path]]/route'
import { POST as register } from '@/app/api/oauth/register/route'
import { POST as revoke } from '@/app/api/oauth/revoke/route'
import { POST as token } from '@/app/api/oauth/token/route'
import { GET as authorizeGet, POST as authorizePost } from '@/app/oauth/authorize/route'
import type { Db } from '@/db/client'
import { memberships, users } from '@/db/schema'
import { s256 } from '@/lib/oauth/pkce'
import { createOrganization } from '@/lib/orgs/create-organization'

export const BASE = 'http://localhost:3000'
export const ISSUER = BASE
export const RESOURCE = `${BASE}/api/mcp`
export const REDIRECT = 'http://127.0.0.1:7777/callback'

type Body = Record<string, unknown>

/** A different address per call unless given: the registration limit is per IP. */
const someIp = () => `10.${randomBytes(3).join('.')}`

export function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: s256(verifier) }
}

/** A user with a membership in each named organization and a next-auth session cookie. */
export async function signedInUser(db: Db, orgNames: string[] = ['Acme']) {
  const [user] = await db
    .insert(users)
    .values({ email: `oauth-${randomUUID()}@example.com`, passwordHash: 'not-used' })
    .returning()
  const organizations = []
  for (const name of orgNames) {
    const org = await createOrganization(db, { name })
    await db.insert(memberships).values({ organizationId: org.id, userId: user!.id })
    organizations.push(org)
  }
  const session = await encode({
    token: { sub: user!.id, email: user!.email },
    secret: process.env.AUTH_SECRET!,
  })
  return { id: user!.id, organizations, cookie: `next-auth.session-token=${session}` }
}

const form = (fields: Record<string, string | undefined>) => {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.append(k, v)
  return params
}

/** Calls the OAuth route handlers with real Requests, as Next would. */
export const oauth = {
  metadata: (suffix = '') =>
    authorizationServer(new Request(`${BASE}/.well-known/oauth-authorization-server${suffix}`), {
      params: Promise.resolve({ path: suffix ? suffix.slice(1).split('/') : undefined }),
    }),
  resourceMetadata: (suffix = '') =>
    protectedResource(new Request(`${BASE}/.well-known/oauth-protected-resource${suffix}`), {
      params: Promise.resolve({ path: suffix ? suffix.slice(1).split('/') : undefined }),
    }),
  register: (body: unknown, headers: Record<string, string> = {}) =>
    register(
      new Request(`${BASE}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': someIp(), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    ),
  authorize: (query: Record<string, string | undefined> | URLSearchParams, cookie?: string) => {
    const params = query instanceof URLSearchParams ? query : form(query)
    return authorizeGet(
      new Request(`${BASE}/oauth/authorize?${params}`, { headers: cookie ? { cookie } : {} }),
    )
  },
  consent: (fields: URLSearchParams | Record<string, string | undefined>, cookie?: string) =>
    authorizePost(
      new Request(`${BASE}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        body: fields instanceof URLSearchParams ? fields : form(fields),
      }),
    ),
  token: (
    fields: Record<string, string | undefined> | URLSearchParams,
    headers: Record<string, string> = {},
  ) =>
    token(
      new Request(`${BASE}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: fields instanceof URLSearchParams ? fields : form(fields),
      }),
    ),
  revoke: (fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    revoke(
      new Request(`${BASE}/api/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: form(fields),
      }),
    ),
}

export interface TestClient {
  client_id: string
  client_secret?: string
  redirect_uris: string[]
}

export async function registerClient(metadata: Body = {}): Promise<TestClient> {
  const response = await oauth.register({
    redirect_uris: [REDIRECT],
    client_name: 'Test client',
    ...metadata,
  })
  if (response.status !== 201) throw new Error(`registration failed: ${await response.text()}`)
  return (await response.json()) as TestClient
}

export function authorizeQuery(
  client: TestClient,
  challenge: string,
  extra: Record<string, string | undefined> = {},
) {
  return {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    ...extra,
  }
}

/** Reads the consent form's fields out of the page, as a browser would submit them. */
export function consentFields(html: string): URLSearchParams {
  const fields = new URLSearchParams()
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields.append(match[1]!, decodeEntities(match[2]!))
  return fields
}

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

/** The whole browser leg: authorize page → approve → the code from the 303 Location. */
export async function authorizeCode(
  user: { cookie: string },
  client: TestClient,
  options: {
    scope?: string
    resource?: string
    writeIssues?: boolean
    challenge?: string
    orgId?: string
  } = {},
) {
  const { verifier, challenge } = pkce()
  const query = authorizeQuery(client, options.challenge ?? challenge, {
    scope: options.scope,
    resource: options.resource,
  })
  const page = await oauth.authorize(query, user.cookie)
  let location: string
  if (page.status === 302) location = page.headers.get('location')!
  else {
    if (page.status !== 200) throw new Error(`authorize answered ${page.status}`)
    const fields = consentFields(await page.text())
    fields.set('decision', 'approve')
    if (options.orgId) fields.set('organization_id', options.orgId)
    if (options.writeIssues !== false) fields.set('write_issues', '1')
    const approved = await oauth.consent(fields, user.cookie)
    if (approved.status !== 303) throw new Error(`consent answered ${approved.status}`)
    location = approved.headers.get('location')!
  }
  const code = new URL(location).searchParams.get('code')
  if (!code) throw new Error(`no code in ${location}`)
  return { code, verifier, redirectUri: query.redirect_uri!, location }
}

/** Code → tokens for a public client. */
export async function exchange(
  client: TestClient,
  grant: { code: string; verifier: string; redirectUri: string },
) {
  return oauth.token({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
    client_id: client.client_id,
    client_secret: client.client_secret,
  })
}

export type TokenBody = {
  access_token: string
  refresh_token: string
  token_type: string
  expires_in: number
  scope: string
  error?: string
  error_description?: string
}

type Handler = (req: Request) => Promise<Response>

/** Path → handler of every OAuth route, as Next's router would pick them. */
function route(method: string, pathname: string): Handler | undefined {
  const wellKnown = /^\/\.well-known\/(oauth-authorization-server|oauth-protected-resource)(\/.*)?$/.exec(
    pathname,
  )
  if (wellKnown && method === 'GET') {
    const handler = wellKnown[1] === 'oauth-authorization-server' ? authorizationServer : protectedResource
    const path = wellKnown[2] ? wellKnown[2].slice(1).split('/') : undefined
    return (req) => handler(req, { params: Promise.resolve({ path }) })
  }
  const table: Record<string, Handler> = {
    'POST /api/oauth/register': register,
    'POST /api/oauth/token': token,
    'POST /api/oauth/revoke': revoke,
    'GET /oauth/authorize': authorizeGet,
    'POST /oauth/authorize': authorizePost,
  }
  return table[`${method} ${pathname}`]
}

export interface RunningOAuthServer {
  url: string
  close(): Promise<void>
}

/**
 * A tiny node:http server on 127.0.0.1 that hands each request to the route handlers
 * (IncomingMessage → Request, Response → ServerResponse), so that client libraries such as
 * oauth4webapi talk real HTTP to the same code Next runs.
 */
export async function startOAuthServer(): Promise<RunningOAuthServer> {
  const { createServer } = await import('node:http')
  const server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host}`)
      const headers = new Headers()
      for (const [name, value] of Object.entries(incoming.headers))
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
      const method = incoming.method ?? 'GET'
      const handler = route(method, url.pathname)
      const response = handler
        ? await handler(
            new Request(url, {
              method,
              headers,
              body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
            }),
          )
        : new Response('Not found', { status: 404 })
      outgoing.statusCode = response.status
      for (const [name, value] of response.headers) outgoing.setHeader(name, value)
      outgoing.end(Buffer.from(await response.arrayBuffer()))
    } catch (error) {
      outgoing.statusCode = 500
      outgoing.end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
