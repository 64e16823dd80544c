import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oauthAccessTokens } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { TOOLS } from '@/lib/mcp/tools'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, type McpTestServer, rawPost, startMcpServer } from '../helpers/mcp'
import { seedIssue, seedOAuthToken } from '../helpers/seed'

let database: TestDatabase
let server: McpTestServer
let org: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  server = await startMcpServer()
  org = (await createOrganization(database.db, { name: 'A' })).id
})
afterAll(async () => {
  await server?.close()
  useDatabase(undefined)
  await database.close()
})

const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/api/mcp'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

async function withBoundResource(resource: string) {
  const seeded = await seedOAuthToken(database.db, org)
  await database.db
    .update(oauthAccessTokens)
    .set({ resource })
    .where(eq(oauthAccessTokens.id, seeded.tokenId))
  return seeded.token
}

describe('401 challenges point MCP clients at the protected-resource metadata', () => {
  it('no credential: invalid_token body, resource_metadata challenge without an error code', async () => {
    const response = await rawPost(server.url, {})
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'Missing or invalid bearer token',
    })
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer scope="read:service write:issues", resource_metadata="${METADATA}"`,
    )
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
    // the SDK client reads the same header when it starts discovery
    expect(extractWWWAuthenticateParams(response).resourceMetadataUrl?.href).toBe(METADATA)
  })

  const invalid: [string, () => Promise<string>][] = [
    ['an unknown svc_oat_ token', async () => 'svc_oat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['an unknown svc_api_ key', async () => 'svc_api_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    [
      'an expired OAuth token',
      async () => (await seedOAuthToken(database.db, org, { expiresInSeconds: -1 })).token,
    ],
    [
      'a revoked svc_api_ key',
      async () => {
        const key = await createKey(database.db, { organizationId: org, type: 'api' })
        await revokeKey(database.db, { id: key.id })
        return key.key
      },
    ],
    [
      'an ingest key',
      async () => (await createKey(database.db, { organizationId: org, type: 'ingest' })).key,
    ],
  ]

  it.each(invalid)('%s: the challenge adds error="invalid_token"', async (_label, make) => {
    const response = await rawPost(server.url, bearer(await make()))
    expect(response.status).toBe(401)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token')
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", scope="read:service write:issues", resource_metadata="${METADATA}"`,
    )
    expect(extractWWWAuthenticateParams(response).error).toBe('invalid_token')
  })

  it('the SDK client without an auth provider fails to connect on a bad token', async () => {
    const client = new Client({ name: 'no-auth', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: bearer('svc_oat_nope') },
    })
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 401 })
  })
})

describe('credentials', () => {
  it('refuses an OAuth token bound to another resource (RFC 8707)', async () => {
    const token = await withBoundResource('https://other.example.com/api/mcp')
    const response = await rawPost(server.url, bearer(token))
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'Access token was not issued for this resource',
    })
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", scope="read:service write:issues", resource_metadata="${METADATA}"`,
    )
    // the Data API does not check the binding: OAuth tokens work there too (the spec)
    expect((await api.listIssues(token)).status).toBe(200)
  })

  it('accepts a token bound to the canonical resource with one trailing slash', async () => {
    const client = await connectClient(server.url, await withBoundResource('http://localhost:3000/api/mcp/'))
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length)
    await client.close()
  })

  it('answers 403 insufficient_scope to a credential without read:service', async () => {
    const { token } = await seedOAuthToken(database.db, org, { scope: 'write:issues' })
    const response = await rawPost(server.url, bearer(token))
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'Missing required scope: read:service',
    })
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="read:service", resource_metadata="${METADATA}"`,
    )
  })

  it('accepts svc_api_ and legacy svc_mcp_ keys (no resource binding)', async () => {
    const issue = await seedIssue(database.db, org)
    for (const type of ['api', 'mcp'] as const) {
      const key = (await createKey(database.db, { organizationId: org, type })).key
      const client = await connectClient(server.url, key)
      const result = (await client.callTool({
        name: 'get_issue',
        arguments: { issueId: issue.id },
      })) as CallToolResult
      expect(result.isError, type).toBeFalsy()
      expect(result.structuredContent).toEqual(await (await api.getIssue(key, issue.id)).json())
      await client.close()
    }
  })
})

describe('HTTP surface', () => {
  it('answers the CORS preflight without a credential', async () => {
    const response = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const allowed = response.headers.get('access-control-allow-headers')!.toLowerCase()
    for (const name of ['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version'])
      expect(allowed).toContain(name)
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
  })

  it('GET and DELETE answer 405 with a JSON-RPC error (stateless: no stream, no session)', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(server.url, {
        method,
        headers: { ...bearer(key), accept: 'text/event-stream' },
      })
      expect(response.status, method).toBe(405)
      expect(response.headers.get('allow')).toBe('POST, OPTIONS')
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed.' },
        id: null,
      })
    }
  })

  it('initialize answers JSON without a session id, with CORS and a request id', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'mcp' })).key
    const response = await rawPost(server.url, bearer(key))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const body = (await response.json()) as { result: { serverInfo: { name: string } } }
    expect(body.result.serverInfo.name).toBe('session-replay-issues')
  })

  it('refuses a foreign Origin (DNS rebinding) even with a valid credential; its own and an allowed one pass', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'mcp' })).key
    for (const origin of ['http://evil.example.com', 'http://localhost:3001', 'null']) {
      const response = await rawPost(server.url, { ...bearer(key), origin })
      expect(response.status, origin).toBe(403)
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint.' },
        id: null,
      })
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
    }
    // BASE_URL is http://localhost:3000 in the tests; without Origin see the test above.
    expect((await rawPost(server.url, { ...bearer(key), origin: 'http://localhost:3000' })).status).toBe(200)
    setConfigForTests(parseConfig({ ...process.env, MCP_ALLOWED_ORIGINS: 'http://localhost:6274' }))
    try {
      const inspector = await rawPost(server.url, { ...bearer(key), origin: 'http://localhost:6274' })
      expect(inspector.status).toBe(200)
    } finally {
      setConfigForTests(undefined)
    }
  })
})
