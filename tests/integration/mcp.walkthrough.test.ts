import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { ANSWER_BUDGET } from '@/lib/mcp/answer-budget'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { seedOAuthToken } from '../helpers/seed'
import { waitFor } from '../helpers/wait'

/**
 * An agent's "reproduce, fix, verify" walk, tool by tool, as docs/api-and-mcp.md shows it: a
 * real recording goes through ingest and processing, then an OAuth-connected client reads the
 * issue, the session around it and a reproduction test, leaves a note and resolves the issue.
 * Every answer must fit the tool budget an agent's context can afford.
 */
let database: TestDatabase
let server: McpTestServer
let engine: JobsEngine
let organizationId: string
let agent: Client

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  server = await startMcpServer()
  engine = getJobsEngine()
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  const { token } = await seedOAuthToken(database.db, organizationId, { scope: 'read:service write:issues' })
  agent = await connectClient(server.url, token)
  const ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  await engine.start()
  await ingestSession(ingestKey, 'checkout-error', endingNow(loadRecording('js-error-after-click').events), {
    final: true,
  })
  await waitFor('the session to be processed', async () => {
    const [row] = await database.db
      .select({ status: replaySessions.status })
      .from(replaySessions)
      .where(eq(replaySessions.organizationId, organizationId))
    return row?.status === 'processed' ? row : undefined
  })
})
afterAll(async () => {
  await agent?.close()
  await engine?.stop()
  await server?.close()
  useDatabase(undefined)
  await database.close()
})

/** One tool call that must succeed and fit the budget; answers its structured content. */
async function step<T>(
  name: string,
  args: Record<string, unknown>,
): Promise<{ structured: T; text: string }> {
  const result = (await agent.callTool({ name, arguments: args })) as CallToolResult
  const text = textOf(result)
  expect(result.isError, `${name}: ${text}`).toBeFalsy()
  // The runner would cut a longer text; a walk's answers must fit without being cut.
  expect(text, `${name} text`).not.toContain('cut to the tool budget')
  expect(text.length, `${name} text`).toBeLessThanOrEqual(ANSWER_BUDGET.textChars)
  const bytes = Buffer.byteLength(JSON.stringify(result.structuredContent))
  expect(bytes, `${name} structured content`).toBeLessThanOrEqual(ANSWER_BUDGET.structuredBytes)
  return { structured: result.structuredContent as T, text }
}

type Issue = { id: string; title: string; status: string }

describe('an agent reproduces, fixes and verifies an issue through MCP', () => {
  it('list_issues → get_issue → get_session → get_issue_reproduction → add_issue_note → update_issue', async () => {
    const listed = await step<{ issues: Issue[] }>('list_issues', { status: 'unresolved' })
    const found = listed.structured.issues.find((issue) => issue.title.startsWith('TypeError'))
    expect(found, listed.text).toBeDefined()
    const issueId = found!.id

    const detail = await step<{ issue: Issue & { stepsToReplicate: string | null } }>('get_issue', {
      issueId,
    })
    expect(detail.structured.issue.stepsToReplicate).toMatch(/1\./)
    // The text names the session behind the replay link and the next call to make.
    const sessionId = /Session: ([0-9a-f-]{36})/.exec(detail.text)?.[1]
    expect(sessionId, detail.text).toBeDefined()
    expect(detail.text).toContain('get_issue_reproduction')

    const session = await step<{
      session: { id: string; summary: { text: string } }
      timeline: { entries: { kind: string; offsetMs: number }[] }
    }>('get_session', { sessionId, around: issueId })
    expect(session.structured.session.id).toBe(sessionId)
    expect(session.structured.session.summary.text.length).toBeGreaterThan(0)
    const kinds = session.structured.timeline.entries.map((entry) => entry.kind)
    // What the user did right before the error, and the error itself.
    expect(kinds).toContain('click')
    expect(kinds).toContain('error')

    const reproduction = await step<{ reproduction: { test: string; sessionId: string } }>(
      'get_issue_reproduction',
      { issueId },
    )
    expect(reproduction.structured.reproduction.test).toContain("from '@playwright/test'")
    expect(reproduction.text).toContain('```ts')

    const note = await step<{ note: { id: string; text: string } }>('add_issue_note', {
      issueId,
      text: 'Reproduced with the generated test; fix guards the missing price before formatting.',
    })
    expect(note.structured.note.text).toMatch(/^Reproduced/)

    const resolved = await step<{ issue: Issue }>('update_issue', { issueId, status: 'resolved' })
    expect(resolved.structured.issue.status).toBe('resolved')

    // The note and the status change are in the issue's history, in that order, by this agent.
    const history = await database.db
      .select({ kind: issueActivities.kind, actorType: issueActivities.actorType })
      .from(issueActivities)
      .where(and(eq(issueActivities.issueId, issueId), eq(issueActivities.organizationId, organizationId)))
      .orderBy(issueActivities.createdAt)
    expect(history.map((row) => row.kind)).toEqual(['created', 'note', 'status_changed'])
  })
})
