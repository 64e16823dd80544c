import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPTIONS as asOptions } from '@/app/.well-known/oauth-authorization-server/[[...path]]/route'
import { OPTIONS as prOptions } from '@/app/.well-known/oauth-protected-resource/[[...path]]/route'
import { OPTIONS as registerOptions } from '@/app/api/oauth/register/route'
import { OPTIONS as revokeOptions } from '@/app/api/oauth/revoke/route'
import { OPTIONS as tokenOptions } from '@/app/api/oauth/token/route'
import { useDatabase } from '@/lib/db'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { BASE, oauth } from '../helpers/oauth'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const AS_METADATA = {
  issuer: BASE,
  authorization_endpoint: `${BASE}/oauth/authorize`,
  token_endpoint: `${BASE}/api/oauth/token`,
  registration_endpoint: `${BASE}/api/oauth/register`,
  revocation_endpoint: `${BASE}/api/oauth/revoke`,
  response_types_supported: ['code'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
  revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
  code_challenge_methods_supported: ['S256'],
  scopes_supported: ['read:service'],
  authorization_response_iss_parameter_supported: true,
}

const PR_METADATA = {
  resource: `${BASE}/api/mcp`,
  authorization_servers: [BASE],
  scopes_supported: ['read:service'],
}

describe('RFC 8414 §3 authorization server metadata', () => {
  it.each(['', '/api/mcp'])('answers exactly the spec fields (+ RFC 9207 iss flag) at %s', async (suffix) => {
    const response = await oauth.metadata(suffix)
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(await response.json()).toEqual(AS_METADATA)
  })

  it('answers 404 (not 401) for other path suffixes', async () => {
    const response = await oauth.metadata('/api/other')
    expect(response.status).toBe(404)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('RFC 9728 protected resource metadata', () => {
  it.each(['', '/api/mcp'])(
    'answers resource, authorization_servers, scopes_supported at %s',
    async (suffix) => {
      const response = await oauth.resourceMetadata(suffix)
      expect(response.status).toBe(200)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(await response.json()).toEqual(PR_METADATA)
    },
  )

  it('answers 404 for other path suffixes', async () => {
    expect((await oauth.resourceMetadata('/api/v1/issues')).status).toBe(404)
  })
})

describe('CORS preflight (docs/design/oauth-mcp.md decision 11)', () => {
  it.each([
    ['authorization server metadata', asOptions, 'GET'],
    ['protected resource metadata', prOptions, 'GET'],
    ['registration', registerOptions, 'POST'],
    ['token', tokenOptions, 'POST'],
    ['revocation', revokeOptions, 'POST'],
  ])('%s answers OPTIONS 204 with open CORS and no auth', (_name, handler, method) => {
    const response = handler()
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain(method)
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i)
    expect(response.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/i)
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
  })
})
