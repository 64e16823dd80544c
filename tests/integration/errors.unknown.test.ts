/**
 * lib/error-table.ts: an error no table row names for a surface — our own AppError subclass
 * or a plain Error — answers that surface's generic 500 and is logged exactly once, with the
 * request id the client sees. Each surface's wrapper runs for real over a real database.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createKey } from '@/lib/credentials/create-key'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { useDatabase } from '@/lib/db'
import { AppError } from '@/lib/errors'
import { dashboardRoute } from '@/lib/http/dashboard-api'
import { dataApiRoute } from '@/lib/http/data-api'
import { ingestRoute } from '@/lib/http/ingest'
import { mcpRoute } from '@/lib/http/mcp'
import { oauthEndpoint } from '@/lib/http/oauth'
import { toAuthInfo } from '@/lib/mcp/auth-info'
import { runTool } from '@/lib/mcp/run-tool'
import type { McpTool } from '@/lib/mcp/tool'
import { createOrganization } from '@/lib/orgs/create-organization'
import { dashboardMember } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { type CapturedLogs, captureLogs } from '../helpers/logs'

/** A domain error that no surface's row names. */
class StrayError extends AppError {
  readonly code = 'stray'
}

const FAULTS = {
  'an AppError subclass no row names': () => new StrayError('stray detail'),
  'a plain Error': () => new Error('plain detail'),
}

let database: TestDatabase
let logs: CapturedLogs
let apiKey: string
let ingestKey: string
let cookie: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const organizationId = (await createOrganization(database.db, { name: 'Errors Inc' })).id
  apiKey = (await createKey(database.db, { organizationId, type: 'api', write: true })).key
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  cookie = (await dashboardMember(database.db, organizationId)).cookie
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
beforeEach(() => {
  logs = captureLogs('info')
})
afterEach(() => logs.restore())

const url = (path: string) => `http://localhost:3000${path}`

/** Each surface's wrapper around a handler that throws, and a request that reaches the handler. */
const SURFACES = {
  'data-api': {
    call: (fault: () => Error) =>
      dataApiRoute({ scope: 'read:service', limit: 'read' }, async () => {
        throw fault()
      })(new Request(url('/api/v1/issues'), { headers: { authorization: `Bearer ${apiKey}` } })),
    body: () => ({ error: 'Internal server error' }),
  },
  ingest: {
    call: (fault: () => Error) =>
      ingestRoute(async () => {
        throw fault()
      })(
        new Request(url('/api/sdk/replay'), {
          method: 'POST',
          headers: { 'x-service-api-key': ingestKey, 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    body: (requestId: string) => ({ error: 'Internal server error', requestId }),
  },
  oauth: {
    call: (fault: () => Error) =>
      oauthEndpoint(async () => {
        throw fault()
      })(new Request(url('/api/oauth/token'), { method: 'POST' })),
    body: () => ({ error: 'server_error', error_description: 'Internal server error' }),
  },
  mcp: {
    call: (fault: () => Error) =>
      mcpRoute(async () => {
        throw fault()
      })(new Request(url('/api/mcp'), { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } })),
    body: () => ({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }),
  },
  'dashboard-api': {
    call: (fault: () => Error) =>
      dashboardRoute(async () => {
        throw fault()
      })(new Request(url('/api/dashboard/sessions'), { headers: { cookie } })),
    body: () => ({ error: 'Internal server error' }),
  },
}

function errorLinesOf(requestId: string) {
  return logs.records().filter((r) => r.level >= 50 && r.requestId === requestId)
}

describe.each(Object.entries(SURFACES))('%s', (_surface, { call, body }) => {
  it.each(Object.entries(FAULTS))('answers %s with the generic 500, logged once', async (_name, fault) => {
    const response = await call(fault)
    const requestId = response.headers.get('x-request-id')!
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual(body(requestId))
    const lines = errorLinesOf(requestId)
    expect(lines).toHaveLength(1)
    expect(lines[0]!.err).toMatchObject({ message: fault().message })
  })
})

describe('MCP tool results', () => {
  it.each(Object.entries(FAULTS))(
    'answer %s with the generic text naming the request id, logged once',
    async (_n, fault) => {
      const principal = (await resolveBearer(database.db, `Bearer ${apiKey}`))!
      const tool = {
        name: 'explode',
        requiredScopes: [],
        budget: 'read',
        run: async () => {
          throw fault()
        },
      } as unknown as McpTool
      const result = await runTool(
        tool,
        {},
        {
          db: database.db,
          requestId: 'tool-request',
          authInfo: toAuthInfo(principal, apiKey),
        },
      )
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Internal error while running explode (request id tool-request)' }],
        isError: true,
      })
      expect(errorLinesOf('tool-request')).toHaveLength(1)
    },
  )
})
