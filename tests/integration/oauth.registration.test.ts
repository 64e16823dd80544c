import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oauthClients } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { createMemoryRateLimiter, useRateLimiter } from '@/lib/ratelimit'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { oauth, REDIRECT } from '../helpers/oauth'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  useRateLimiter(createMemoryRateLimiter())
})
afterAll(async () => {
  useRateLimiter(undefined)
  useDatabase(undefined)
  await database.close()
})

type Body = Record<string, unknown>

async function rejected(body: unknown) {
  const response = await oauth.register(body)
  expect(response.status).toBe(400)
  expect(response.headers.get('cache-control')).toBe('no-store')
  const json = (await response.json()) as Body
  expect(json.error).toBe('invalid_client_metadata')
  expect(typeof json.error_description).toBe('string')
  return json
}

describe('RFC 7591 §3.2.1 successful registration', () => {
  it('registers a public client with the defaults and answers 201 with the listed fields', async () => {
    const response = await oauth.register({ redirect_uris: [REDIRECT] })
    expect(response.status).toBe(201)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as Body
    expect(body).toEqual({
      client_id: expect.stringMatching(/^svc_client_[A-Za-z0-9_-]{43}$/),
      client_name: 'Unnamed Client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'read:service',
      client_id_issued_at: expect.any(Number),
    })
    expect(Math.abs((body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60)
    expect(body).not.toHaveProperty('client_secret')
  })

  it('issues a svc_cs_ secret only to client_secret_post clients, stored as SHA-256', async () => {
    const response = await oauth.register({
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_post',
      client_name: 'Claude (Test) v1.0_beta-2',
    })
    expect(response.status).toBe(201)
    const body = (await response.json()) as Body
    expect(body.client_secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/)
    expect(body.client_secret_expires_at).toBe(0)
    expect(body.client_name).toBe('Claude (Test) v1.0_beta-2')
    const [row] = await database.db
      .select()
      .from(oauthClients)
      .where(eq(oauthClients.clientId, body.client_id as string))
    expect(row!.clientSecretHash).toBe(hashToken(body.client_secret as string))
    expect(JSON.stringify(row)).not.toContain(body.client_secret as string)
  })

  it('keeps grant_types, scope and every allowlisted redirect URI as asked', async () => {
    const uris = [
      'https://claude.ai/api/mcp/auth_callback',
      'https://claude.com/api/mcp/auth_callback',
      'https://chatgpt.com/connector/oauth/xyz',
      'http://127.0.0.1:33418/',
      'http://[::1]:1234/cb',
      'http://localhost:6274/oauth/callback',
    ]
    const response = await oauth.register({
      redirect_uris: uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'read:service write:issues',
    })
    expect(response.status).toBe(201)
    const body = (await response.json()) as Body
    expect(body.redirect_uris).toEqual(uris)
    expect(body.grant_types).toEqual(['authorization_code'])
    expect(body.scope).toBe('read:service write:issues')
  })

  it('drops unknown scopes (RFC 7591 §3.2.1 lets the server replace values) and ignores unknown members', async () => {
    const response = await oauth.register({
      redirect_uris: [REDIRECT],
      scope: 'openid read:service profile',
      logo_uri: 'https://x.example/logo.png',
    })
    expect(response.status).toBe(201)
    expect(((await response.json()) as Body).scope).toBe('read:service')
  })

  it('treats an empty client_name as absent', async () => {
    const response = await oauth.register({ redirect_uris: [REDIRECT], client_name: '  ' })
    expect(((await response.json()) as Body).client_name).toBe('Unnamed Client')
  })
})

describe('RFC 7591 §3.2.2 registration errors', () => {
  it.each([
    ['no redirect_uris', {}],
    ['an empty redirect_uris', { redirect_uris: [] }],
    ['redirect_uris not an array', { redirect_uris: REDIRECT }],
    ['a non-string redirect URI', { redirect_uris: [42] }],
  ])('rejects %s', async (_name, body) => {
    await rejected(body)
  })

  it.each([
    ['a non-allowlisted https origin', 'https://evil.example/cb'],
    ['plain http off loopback', 'http://example.com/cb'],
    ['embedded credentials', 'http://user:pw@127.0.0.1:3000/cb'],
    ['a fragment', 'https://claude.ai/cb#x'],
    ['a private-use scheme (not configured)', 'cursor://anysphere.cursor-mcp/oauth/callback'],
  ])('rejects a redirect URI with %s, opaquely, storing nothing', async (_name, uri) => {
    const before = (await database.db.select().from(oauthClients)).length
    const body = await rejected({ redirect_uris: [REDIRECT, uri] })
    expect(body.error_description).not.toContain(uri)
    expect((await database.db.select().from(oauthClients)).length).toBe(before)
  })

  it.each([
    ['a client_name over 64 characters', { client_name: 'a'.repeat(65) }],
    ['a client_name with markup', { client_name: '<script>alert(1)</script>' }],
    ['a client_name with other punctuation', { client_name: 'Claude: official!' }],
    ['a non-string client_name', { client_name: 5 }],
    ['token_endpoint_auth_method client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['token_endpoint_auth_method private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }],
    ['an unknown grant type', { grant_types: ['authorization_code', 'client_credentials'] }],
    ['the implicit grant', { grant_types: ['implicit'] }],
    ['grant_types without authorization_code', { grant_types: ['refresh_token'] }],
    ['an empty grant_types', { grant_types: [] }],
    ['response_types without code', { response_types: ['token'] }],
    ['a non-string scope', { scope: ['read:service'] }],
  ])('rejects %s', async (_name, extra) => {
    await rejected({ redirect_uris: [REDIRECT], ...extra })
  })

  it('accepts exactly 64 characters of the allowed alphabet', async () => {
    const name = 'A1 -_.()'.repeat(8)
    const response = await oauth.register({ redirect_uris: [REDIRECT], client_name: name })
    expect(response.status).toBe(201)
    expect(((await response.json()) as Body).client_name).toBe(name)
  })

  it('rejects a body that is not JSON or not an object', async () => {
    await rejected('{not json')
    await rejected('[]')
    await rejected('null')
  })
})

describe('registration rate limit (per IP)', () => {
  it('answers 429 too_many_requests with Retry-After after 20 registrations an hour from one address', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.9' }
    for (let i = 0; i < 20; i++)
      expect((await oauth.register({ redirect_uris: [REDIRECT] }, ip)).status).toBe(201)
    const refused = await oauth.register({ redirect_uris: [REDIRECT] }, ip)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await refused.json()) as Body).error).toBe('too_many_requests')
    // Another address is not affected.
    expect(
      (await oauth.register({ redirect_uris: [REDIRECT] }, { 'x-forwarded-for': '203.0.113.10' })).status,
    ).toBe(201)
  })
})
