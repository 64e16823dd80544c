import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { logger } from '@/lib/log'
import { TOOLS } from '@/lib/mcp/tools'
import { createOrganization } from '@/lib/orgs/create-organization'
import { type RateLimiter, useRateLimiter } from '@/lib/ratelimit'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
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

describe('rate limits are the Data API budgets', () => {
  freezeRateLimitClock()
  it('a tool call after the read budget is spent on the Data API is a rate-limit tool error', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const client = await connectClient(server.url, key)
    for (let i = 0; i < 300; i++) expect((await api.listSignals(key, { limit: 1 })).status).toBe(200)
    expect((await api.listSignals(key)).status).toBe(429)
    const result = (await client.callTool({ name: 'list_issues', arguments: {} })) as CallToolResult
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^Rate limit exceeded: retry in [1-9]\d* seconds$/)
    // listing tools is protocol, not a Data API read: it still answers
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length)
    await client.close()
  })

  it('each tool call spends one read, update_issue one write, shared with the Data API', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
    const issue = await seedIssue(database.db, org)
    const client = await connectClient(server.url, key)
    await client.callTool({ name: 'list_issues', arguments: {} })
    await client.callTool({ name: 'get_issue', arguments: { issueId: issue.id } })
    await client.callTool({ name: 'update_issue', arguments: { issueId: issue.id, status: 'resolved' } })
    const read = await api.listSignals(key)
    expect(read.headers.get('x-ratelimit-remaining')).toBe(String(300 - 3))
    const write = await api.patchIssue(key, issue.id, { status: 'resolved' })
    expect(write.headers.get('x-ratelimit-remaining')).toBe(String(60 - 2))
    await client.close()
  })

  it('one public OAuth client used by two organizations has a budget in each', async () => {
    const orgB = (await createOrganization(database.db, { name: 'B' })).id
    const inA = await seedOAuthToken(database.db, org)
    const inB = await seedOAuthToken(database.db, orgB, { clientId: inA.clientId })
    const clientA = await connectClient(server.url, inA.token)
    // Spent over MCP itself: a connection left idle through a long loop may be closed under it.
    for (let i = 0; i < 300; i++) {
      const result = (await clientA.callTool({ name: 'list_signals', arguments: {} })) as CallToolResult
      expect(result.isError, `call ${i}`).toBeFalsy()
    }
    const spent = (await clientA.callTool({ name: 'list_issues', arguments: {} })) as CallToolResult
    expect(spent.isError).toBe(true)
    expect(textOf(spent)).toMatch(/^Rate limit exceeded: retry in [1-9]\d* seconds$/)
    // the same client in organization B still has its whole budget
    const clientB = await connectClient(server.url, inB.token)
    const other = (await clientB.callTool({ name: 'list_issues', arguments: {} })) as CallToolResult
    expect(other.isError).toBeFalsy()
    const read = await api.listSignals(inB.token)
    expect(read.status).toBe(200)
    expect(read.headers.get('x-ratelimit-remaining')).toBe(String(300 - 2))
    await clientA.close()
    await clientB.close()
  })
})

describe('system errors', () => {
  it('are logged with the request id; the model gets a generic tool error naming it', async () => {
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const client = await connectClient(server.url, key)
    const failing: RateLimiter = {
      kind: 'memory',
      limit: async () => {
        throw new Error('limiter down')
      },
    }
    const logged = vi.spyOn(logger, 'error')
    useRateLimiter(failing)
    try {
      const result = (await client.callTool({ name: 'list_signals', arguments: {} })) as CallToolResult
      expect(result.isError).toBe(true)
      const id = /request id ([0-9a-f-]{36})/.exec(textOf(result))?.[1]
      expect(textOf(result)).toBe(`Internal error while running list_signals (request id ${id})`)
      expect(textOf(result)).not.toContain('limiter down')
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ requestId: id, tool: 'list_signals' }),
        'MCP tool call failed',
      )
    } finally {
      useRateLimiter(undefined)
      logged.mockRestore()
      await client.close()
    }
  })
})
