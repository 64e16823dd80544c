import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { integrationDeliveries, integrationDeliveryAttempts, integrations, issues } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { ProviderError } from '@/lib/errors'
import { createIntegration } from '@/lib/integrations/create-integration'
import { createTicket } from '@/lib/integrations/create-ticket'
import { integrationDeliveryLog } from '@/lib/integrations/delivery-log'
import { revokeIntegration } from '@/lib/integrations/revoke-integration'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { captureLogs } from '../helpers/logs'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
import { seedIssue } from '../helpers/seed'
import { linkIssue, seedSession } from '../helpers/sessions'
import { LINEAR_TEAM, startGithubFake, startLinearFake, type TrackerFake } from '../helpers/tracker-fakes'
import { waitFor } from '../helpers/wait'

/**
 * Tickets in Linear and GitHub from an issue (issue 22): connecting each integration, then
 * POST /api/v1/issues/{issueId}/tickets over the route handler and create_ticket through the MCP
 * client, with the official SDKs talking to local fakes of both APIs.
 */

const LINEAR_KEY = 'lin_api_0123456789abcdefSECRETKEY'
const GITHUB_TOKEN = 'github_pat_11AAAA0123456789SECRETTOKEN'

let database: TestDatabase
let linear: TrackerFake
let github: TrackerFake
let mcp: McpTestServer
let orgId: string
let writeKey: string
let readKey: string
const clients: Client[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  linear = await startLinearFake(LINEAR_KEY)
  github = await startGithubFake(GITHUB_TOKEN)
  setConfigForTests(
    parseConfig({
      ...process.env,
      BASE_URL: 'https://replay.example.com',
      LINEAR_API_URL: linear.url,
      GITHUB_API_URL: github.url,
      SLACK_WEBHOOK_HOSTS: '127.0.0.1:9',
    }),
  )
  mcp = await startMcpServer()
  orgId = (await createOrganization(database.db, { name: 'Acme' })).id
  writeKey = (await createKey(database.db, { organizationId: orgId, type: 'api', write: true })).key
  readKey = (await createKey(database.db, { organizationId: orgId, type: 'api' })).key
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await mcp?.close()
  await linear?.close()
  await github?.close()
  setConfigForTests(undefined)
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

type Body = Record<string, unknown>
const json = async (response: Response) => (await response.json()) as Body
const actor = () => ({ organizationId: orgId, actorType: 'user' as const, actorId: orgId })

/** The Markdown outside fenced code blocks (CommonMark: a fence closes with a run at least as long). */
function outsideCode(markdown: string): string {
  const out: string[] = []
  let open = 0
  for (const line of markdown.split('\n')) {
    const run = /^(`{3,})/.exec(line)?.[1]?.length ?? 0
    if (open === 0 && run >= 3) open = run
    else if (open > 0 && run >= open && line.trim() === '`'.repeat(run)) open = 0
    else if (open === 0) out.push(line)
  }
  return out.join('\n')
}

async function deliveriesOf(issueId: string) {
  const rows = await database.db
    .select()
    .from(integrationDeliveries)
    .where(eq(integrationDeliveries.issueId, issueId))
  const attempts = await database.db.select().from(integrationDeliveryAttempts)
  return rows.map((d) => ({ ...d, log: attempts.filter((a) => a.deliveryId === d.id) }))
}

async function integrationOf(kind: 'linear' | 'github') {
  const rows = await database.db.select().from(integrations).where(eq(integrations.organizationId, orgId))
  return rows.find((r) => r.kind === kind && !r.revokedAt)!
}

describe('connecting integrations', () => {
  it('Linear: a rejected key and an unknown team are form errors; the team is resolved and stored', async () => {
    const base = { organizationId: orgId, kind: 'linear' as const, name: 'Linear' }
    await expect(
      createIntegration(database.db, { ...base, apiKey: 'lin_api_wrong_key_000', team: 'ENG' }),
    ).rejects.toThrow('Linear rejected the API key.')
    await expect(
      createIntegration(database.db, { ...base, apiKey: LINEAR_KEY, team: 'OPS' }),
    ).rejects.toThrow('Linear has no team OPS that this API key can see.')
    const created = await createIntegration(database.db, { ...base, apiKey: LINEAR_KEY, team: 'eng' })
    expect(created.settings).toEqual({
      kind: 'linear',
      teamId: LINEAR_TEAM.id,
      teamKey: 'ENG',
      teamName: 'Engineering',
    })
    expect(created.secretHint).toBe('…TKEY')
    const row = await integrationOf('linear')
    expect(row.secretCiphertext).not.toContain(LINEAR_KEY)
    await expect(
      createIntegration(database.db, { ...base, apiKey: LINEAR_KEY, team: 'ENG' }),
    ).rejects.toThrow('already has a Linear integration')
  })

  it('GitHub: the repository shape is checked, then access; Slack: only the configured hosts', async () => {
    const base = { organizationId: orgId, kind: 'github' as const, name: 'GitHub' }
    for (const repository of ['acme', 'acme/shop/x', '/shop', 'ac me/shop', `${'a'.repeat(5000)}/`])
      await expect(
        createIntegration(database.db, { ...base, token: GITHUB_TOKEN, repository }),
      ).rejects.toThrow(/owner\/repo|at most/)
    await expect(
      createIntegration(database.db, { ...base, token: 'github_pat_wrong_0000', repository: 'acme/shop' }),
    ).rejects.toThrow('GitHub rejected the token.')
    await expect(
      createIntegration(database.db, { ...base, token: GITHUB_TOKEN, repository: 'acme/secret' }),
    ).rejects.toThrow('GitHub has no repository acme/secret that this token can see.')
    await expect(
      createIntegration(database.db, {
        organizationId: orgId,
        kind: 'slack',
        name: 'Alerts',
        webhookUrl: 'https://hooks.evil.example/services/T/B/x',
      }),
    ).rejects.toThrow('Slack webhook URLs are on 127.0.0.1:9.')
    const slack = await createIntegration(database.db, {
      organizationId: orgId,
      kind: 'slack',
      name: 'Alerts',
      webhookUrl: 'http://127.0.0.1:9/services/T000/B000/abcdefghijkl',
    })
    expect(slack.secretHint).toBe('…ijkl')
  })
})

describe('POST /api/v1/issues/{issueId}/tickets', () => {
  beforeEach(() => {
    linear.created.length = 0
    github.created.length = 0
  })

  it('creates the Linear issue with our links and the replay text fenced, links it and logs the call', async () => {
    const session = await seedSession(database.db, orgId)
    const issue = await seedIssue(database.db, orgId, {
      title: `TypeError [click me](https://evil.example/login) @admin \`\`\` ${'x'.repeat(600)}`,
      description: 'See https://evil.example/fake-replay\n```\n[Open the issue](https://evil.example)\n```',
      stepsToReplicate: '1. Open /checkout\n2. Click "Pay" @everyone',
    })
    await linkIssue(database.db, session, issue.id, new Date(session.startedAt.getTime() + 4_500))
    const response = await api.createTicket(writeKey, issue.id, { provider: 'linear' })
    expect(response.status).toBe(201)
    const { issue: answered } = (await json(response)) as { issue: Body }
    expect(answered).toMatchObject({
      id: issue.id,
      status: 'ticket_created',
      ticketProvider: 'Linear',
      ticketIdentifier: 'ENG-42',
      ticketUrl: 'https://linear.app/acme/issue/ENG-42',
    })
    expect(linear.created).toHaveLength(1)
    const sent = linear.created[0]!
    expect(sent.title.length).toBeLessThanOrEqual(256)
    expect(sent.title).not.toContain('\n')
    expect(sent.body).toContain(`https://replay.example.com/issues/${issue.id}`)
    expect(sent.body).toContain(`https://replay.example.com/sessions/${session.id}?t=4500`)
    expect(sent.body).toContain(`https://replay.example.com/api/v1/issues/${issue.id}/reproduction`)
    expect(sent.body).toContain('Click "Pay" @everyone')
    const outside = outsideCode(sent.body)
    expect(outside).not.toContain('evil.example')
    expect(outside).not.toContain('@admin')
    expect(outside).not.toContain('@everyone')
    const [delivery] = await deliveriesOf(issue.id)
    expect(delivery).toMatchObject({ purpose: 'ticket', status: 'succeeded', attempts: 1, lastError: null })
    expect(delivery!.log).toMatchObject([{ attempt: 1, httpStatus: 200, errorLabel: null }])
    expect(delivery!.body).not.toContain(LINEAR_KEY)
    const again = await api.createTicket(writeKey, issue.id, { provider: 'linear' })
    expect(again.status).toBe(409)
    expect((await json(again)).error).toContain('already has a ticket (ENG-42)')
    expect(linear.created).toHaveLength(1)
  })

  it('answers 400 for a bad provider, 404 for an unknown issue, 403 without write:issues, 409 without the integration', async () => {
    const issue = await seedIssue(database.db, orgId)
    const bad = await api.createTicket(writeKey, issue.id, { provider: 'jira' })
    expect(bad.status).toBe(400)
    expect((await json(bad)).error).toBe('provider must be "linear" or "github".')
    expect((await api.createTicket(writeKey, issue.id, 'nope')).status).toBe(400)
    expect(
      (await api.createTicket(writeKey, '00000000-0000-4000-8000-000000000000', { provider: 'linear' }))
        .status,
    ).toBe(404)
    expect((await api.createTicket(readKey, issue.id, { provider: 'linear' })).status).toBe(403)
    const none = await api.createTicket(writeKey, issue.id, { provider: 'github' })
    expect(none.status).toBe(409)
    expect((await json(none)).error).toBe(
      'No GitHub integration is connected. An organization owner connects one under Settings → Integrations.',
    )
  })

  it('a rejected key is a 502 that says so, marks the integration and leaves the issue as it was', async () => {
    const issue = await seedIssue(database.db, orgId)
    linear.failNext({ kind: 'unauthorized' })
    const logs = captureLogs()
    const response = await api
      .createTicket(writeKey, issue.id, { provider: 'linear' })
      .finally(() => logs.restore())
    expect(logs.lines.join('\n')).not.toContain(LINEAR_KEY)
    expect(response.status).toBe(502)
    const { error } = await json(response)
    expect(error).toBe(
      'The Linear issue was not created. Linear rejected the credentials. An organization owner reconnects Linear under Settings → Integrations.',
    )
    expect(String(error)).not.toContain(LINEAR_KEY)
    expect((await integrationOf('linear')).lastError).toBe('bad_status:401')
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ status: 'unresolved', ticketUrl: null })
    const [delivery] = await deliveriesOf(issue.id)
    expect(delivery).toMatchObject({ status: 'failed', lastError: 'bad_status:401', lastStatus: 401 })
    // The issue is free again: the next try goes through.
    expect((await api.createTicket(writeKey, issue.id, { provider: 'linear' })).status).toBe(201)
    expect((await integrationOf('linear')).lastError).toBeNull()
  })

  it('waits out a short Retry-After once, reports a long one, and never retries a 5xx on a creation', async () => {
    const short = await seedIssue(database.db, orgId)
    linear.failNext({ kind: 'rate_limited', retryAfter: 1 })
    expect((await api.createTicket(writeKey, short.id, { provider: 'linear' })).status).toBe(201)
    expect((await deliveriesOf(short.id))[0]!.log.map((a) => a.errorLabel)).toEqual(['rate_limited', null])

    const long = await seedIssue(database.db, orgId)
    linear.failNext({ kind: 'rate_limited', retryAfter: 60 })
    const limited = await api.createTicket(writeKey, long.id, { provider: 'linear' })
    expect(limited.status).toBe(502)
    expect((await json(limited)).error).toBe(
      'The Linear issue was not created. Linear is limiting requests. Try again in 60 seconds.',
    )

    // A 5xx may come after Linear acted: one try, and an answer that says the issue may exist.
    const down = await seedIssue(database.db, orgId)
    linear.failNext({ kind: 'server_error' })
    const failed = await api.createTicket(writeKey, down.id, { provider: 'linear' })
    expect(failed.status).toBe(502)
    expect((await json(failed)).error).toBe(
      'Linear answered with an error (HTTP 500). The Linear issue may have been created; check Linear before trying again.',
    )
    expect((await deliveriesOf(down.id))[0]!.log.map((a) => a.errorLabel)).toEqual(['bad_status:500'])
    expect(linear.created).toHaveLength(1)
  })

  it('a 502 after Linear created the issue: one try, one issue, and the answer says it may exist', async () => {
    const issue = await seedIssue(database.db, orgId)
    const before = linear.received.length
    linear.failNext({ kind: 'created_then_error', status: 502 })
    const response = await api.createTicket(writeKey, issue.id, { provider: 'linear' })
    expect(response.status).toBe(502)
    expect((await json(response)).error).toBe(
      'Linear answered with an error (HTTP 502). The Linear issue may have been created; check Linear before trying again.',
    )
    expect(linear.received.length - before).toBe(1)
    expect(linear.created).toHaveLength(1)
    const [delivery] = await deliveriesOf(issue.id)
    expect(delivery).toMatchObject({ status: 'failed', lastError: 'bad_status:502', attempts: 1 })
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ status: 'unresolved', ticketUrl: null })
  })

  it('Linear declining the creation (success: false, or a GraphQL error) is a refusal, not an outage', async () => {
    for (const fault of [{ kind: 'not_created' }, { kind: 'invalid_input', status: 200 }] as const) {
      const issue = await seedIssue(database.db, orgId)
      linear.failNext(fault)
      const response = await api.createTicket(writeKey, issue.id, { provider: 'linear' })
      expect(response.status).toBe(502)
      expect((await json(response)).error).toBe(
        "The Linear issue was not created. Linear refused to create it. Check the integration's settings under Settings → Integrations.",
      )
      expect((await deliveriesOf(issue.id))[0]!.log.map((a) => a.errorLabel)).toEqual(['provider_refused'])
    }
    expect(linear.created).toHaveLength(0)
  })

  it('a provider that never answers costs one timeout, not a hung request', async () => {
    const issue = await seedIssue(database.db, orgId)
    linear.failNext({ kind: 'hang' })
    const error = await createTicket(
      database.db,
      actor(),
      { issueId: issue.id, provider: 'linear' },
      { timeoutMs: 300 },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as Error).message).toBe(
      'Linear did not answer within 0.3 seconds. The Linear issue may have been created; check Linear before trying again.',
    )
    expect((await deliveriesOf(issue.id))[0]!.log).toMatchObject([
      { errorLabel: 'timeout', httpStatus: null },
    ])
  })

  it('two concurrent requests for one issue create one external ticket', async () => {
    const issue = await seedIssue(database.db, orgId)
    linear.delayCreateMs = 200
    try {
      const answers = await Promise.all([
        api.createTicket(writeKey, issue.id, { provider: 'linear' }),
        api.createTicket(writeKey, issue.id, { provider: 'linear' }),
      ])
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409])
      expect(linear.created).toHaveLength(1)
    } finally {
      linear.delayCreateMs = 0
    }
  })
})

describe('GitHub tickets, create_ticket over MCP, and the delivery log', () => {
  it('connects GitHub, creates the issue through the MCP tool and logs it', async () => {
    await createIntegration(database.db, {
      organizationId: orgId,
      kind: 'github',
      name: 'Shop repo',
      token: GITHUB_TOKEN,
      repository: 'acme/shop',
    })
    const issue = await seedIssue(database.db, orgId, { title: 'Checkout fails @octocat' })
    const client = await connectClient(mcp.url, writeKey)
    clients.push(client)
    const result = (await client.callTool({
      name: 'create_ticket',
      arguments: { issueId: issue.id, provider: 'github' },
    })) as CallToolResult
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toContain('Ticket created: #12 https://github.com/acme/shop/issues/12')
    expect(result.structuredContent).toMatchObject({
      issue: { status: 'ticket_created', ticketProvider: 'GitHub', ticketIdentifier: '#12' },
    })
    const sent = github.created.at(-1)!
    expect(sent.title).toBe('Checkout fails @octocat')
    expect(outsideCode(sent.body)).not.toContain('@octocat')
    const again = (await client.callTool({
      name: 'create_ticket',
      arguments: { issueId: issue.id, provider: 'github' },
    })) as CallToolResult
    expect(again.isError).toBe(true)
    expect(textOf(again)).toContain('already has a ticket (#12)')
    for (const r of github.received) expect(JSON.stringify(r.body ?? {})).not.toContain(GITHUB_TOKEN)

    const gh = await integrationOf('github')
    const log = await integrationDeliveryLog(database.db, { organizationId: orgId, integrationId: gh.id })
    expect(log.deliveries).toHaveLength(1)
    expect(log.deliveries[0]).toMatchObject({ purpose: 'ticket', status: 'succeeded', issueId: issue.id })
    expect(log.deliveries[0]!.log).toMatchObject([{ attempt: 1, httpStatus: 201, errorLabel: null }])
  })

  it('GitHub: a rejected token and a hung API are clear errors, never a second issue', async () => {
    const issue = await seedIssue(database.db, orgId)
    github.failNext({ kind: 'unauthorized' })
    const rejected = await api.createTicket(writeKey, issue.id, { provider: 'github' })
    expect(rejected.status).toBe(502)
    const { error } = await json(rejected)
    expect(error).toBe(
      'The GitHub issue was not created. GitHub rejected the credentials. An organization owner reconnects GitHub under Settings → Integrations.',
    )
    expect(String(error)).not.toContain(GITHUB_TOKEN)
    github.failNext({ kind: 'hang' })
    // Octokit reports an aborted request as a 500; it is a timeout, and not retried.
    const hung = await createTicket(
      database.db,
      actor(),
      { issueId: issue.id, provider: 'github' },
      { timeoutMs: 300 },
    ).catch((e: unknown) => e)
    expect((hung as Error).message).toBe(
      'GitHub did not answer within 0.3 seconds. The GitHub issue may have been created; check GitHub before trying again.',
    )
    const labels = (await deliveriesOf(issue.id)).map((d) => d.log.map((a) => a.errorLabel))
    expect(labels).toEqual(expect.arrayContaining([['bad_status:401'], ['timeout']]))
    expect(github.created.filter((c) => c.title === issue.title)).toHaveLength(0)
  })

  it('the delivery log pages newest first; disconnecting frees the slot and stops tickets', async () => {
    const li = await integrationOf('linear')
    const first = await integrationDeliveryLog(database.db, {
      organizationId: orgId,
      integrationId: li.id,
      limit: 2,
    })
    expect(first.deliveries).toHaveLength(2)
    expect(first.hasMore).toBe(true)
    const second = await integrationDeliveryLog(database.db, {
      organizationId: orgId,
      integrationId: li.id,
      limit: 2,
      page: 2,
    })
    expect(second.deliveries[0]!.createdAt.getTime()).toBeLessThanOrEqual(
      first.deliveries[1]!.createdAt.getTime(),
    )
    const other = (await createOrganization(database.db, { name: 'Other' })).id
    await expect(
      integrationDeliveryLog(database.db, { organizationId: other, integrationId: li.id }),
    ).rejects.toThrow('Integration not found')
    await expect(revokeIntegration(database.db, { id: li.id, organizationId: other })).rejects.toThrow(
      'Integration not found',
    )
    await revokeIntegration(database.db, { id: li.id, organizationId: orgId })
    const issue = await seedIssue(database.db, orgId)
    expect((await api.createTicket(writeKey, issue.id, { provider: 'linear' })).status).toBe(409)
    await createIntegration(database.db, {
      organizationId: orgId,
      kind: 'linear',
      name: 'Linear again',
      apiKey: LINEAR_KEY,
      team: LINEAR_TEAM.id,
    })
  })
})

describe('claims, organizations and the credential', () => {
  beforeEach(() => {
    linear.created.length = 0
  })

  /** Starts a creation held inside Linear, and resolves once Linear has the request. */
  async function heldCreation(issueId: string) {
    const before = linear.received.length
    linear.delayCreateMs = 1_000
    const answer = api.createTicket(writeKey, issueId, { provider: 'linear' })
    await waitFor(
      'Linear to receive issueCreate',
      async () => linear.received.slice(before).some((r) => String(r.body?.query).includes('issueCreate(')),
      10_000,
      20,
    )
    // Wrapped: an awaited promise of a promise would wait for the answer itself.
    return {
      answer: answer.finally(() => {
        linear.delayCreateMs = 0
      }),
    }
  }

  it('a manual link while a ticket is being created is a 409; the created ticket is then linked', async () => {
    const issue = await seedIssue(database.db, orgId)
    const creating = await heldCreation(issue.id)
    const manual = await api.putTicket(writeKey, issue.id, {
      provider: 'Jira',
      url: 'https://jira.example.com/browse/OPS-1',
    })
    expect(manual.status).toBe(409)
    expect((await json(manual)).error).toContain('A ticket is being created for this issue right now.')
    expect((await creating.answer).status).toBe(201)
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ ticketProvider: 'Linear', status: 'ticket_created' })
  })

  it('a ticket that cannot be linked is named in the answer and kept in the delivery', async () => {
    const issue = await seedIssue(database.db, orgId)
    const creating = await heldCreation(issue.id)
    // Something outside the service's own paths sets a ticket while Linear is creating one.
    await database.db
      .update(issues)
      .set({ ticketProvider: 'Jira', ticketUrl: 'https://jira.example.com/browse/OPS-2' })
      .where(eq(issues.id, issue.id))
    const response = await creating.answer
    expect(response.status).toBe(409)
    const { error } = await json(response)
    expect(error).toMatch(
      /^The Linear issue ENG-\d+ was created \(https:\/\/linear\.app\/acme\/issue\/ENG-\d+\)/,
    )
    expect(error).toContain('Link it to this issue by hand.')
    expect(linear.created).toHaveLength(1)
    const [delivery] = await deliveriesOf(issue.id)
    expect(delivery).toMatchObject({ status: 'failed', lastError: 'link_failed' })
    expect(JSON.parse(delivery!.body).created.url).toMatch(/^https:\/\/linear\.app\/acme\/issue\/ENG-\d+$/)
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row!.ticketUrl).toBe('https://jira.example.com/browse/OPS-2')
  })

  it('disconnecting Linear does not cancel a creation in flight: its ticket is still linked', async () => {
    const issue = await seedIssue(database.db, orgId)
    const li = await integrationOf('linear')
    const creating = await heldCreation(issue.id)
    await revokeIntegration(database.db, { id: li.id, organizationId: orgId })
    // The claim still holds the issue: a manual link now would be overwritten.
    const manual = await api.putTicket(writeKey, issue.id, {
      provider: 'Jira',
      url: 'https://jira.example.com/browse/OPS-3',
    })
    expect(manual.status).toBe(409)
    expect((await creating.answer).status).toBe(201)
    const [delivery] = await deliveriesOf(issue.id)
    expect(delivery).toMatchObject({ status: 'succeeded' })
    await createIntegration(database.db, {
      organizationId: orgId,
      kind: 'linear',
      name: 'Linear',
      apiKey: LINEAR_KEY,
      team: 'ENG',
    })
  })

  it("another organization's key cannot reach this issue, nor use this organization's integrations", async () => {
    const otherOrg = (await createOrganization(database.db, { name: 'Org B' })).id
    const otherKey = (await createKey(database.db, { organizationId: otherOrg, type: 'api', write: true }))
      .key
    const issue = await seedIssue(database.db, orgId)
    const before = linear.received.length
    expect((await api.createTicket(otherKey, issue.id, { provider: 'linear' })).status).toBe(404)
    const theirs = await seedIssue(database.db, otherOrg)
    const none = await api.createTicket(otherKey, theirs.id, { provider: 'linear' })
    expect(none.status).toBe(409)
    expect((await json(none)).error).toContain('No Linear integration is connected.')
    expect(linear.received.length).toBe(before)
    expect(await deliveriesOf(issue.id)).toHaveLength(0)
  })

  it('a connect that Linear refuses as invalid input is a form error', async () => {
    const otherOrg = (await createOrganization(database.db, { name: 'Org C' })).id
    linear.failNext({ kind: 'invalid_input', status: 400 })
    await expect(
      createIntegration(database.db, {
        organizationId: otherOrg,
        kind: 'linear',
        name: 'Linear',
        apiKey: LINEAR_KEY,
        team: 'ENG',
      }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: 'Linear refused the request as invalid. Check the API key and the team key or id.',
      }),
    )
  })

  it('the credential reaches Linear and GitHub, and nothing else: not logs, answers or delivery rows', async () => {
    const logs = captureLogs()
    const answers: string[] = []
    try {
      for (const fault of [
        null,
        { kind: 'unauthorized' },
        { kind: 'server_error' },
        { kind: 'not_created' },
      ] as const) {
        const issue = await seedIssue(database.db, orgId)
        if (fault) linear.failNext(fault)
        answers.push(await (await api.createTicket(writeKey, issue.id, { provider: 'linear' })).text())
        const gh = await seedIssue(database.db, orgId)
        if (fault && fault.kind !== 'not_created') github.failNext(fault)
        answers.push(await (await api.createTicket(writeKey, gh.id, { provider: 'github' })).text())
      }
    } finally {
      logs.restore()
    }
    expect(linear.received.at(-1)!.authorization).toBe(LINEAR_KEY)
    expect(github.received.at(-1)!.authorization).toBe(`token ${GITHUB_TOKEN}`)
    const deliveries = await database.db.select().from(integrationDeliveries)
    const attempts = await database.db.select().from(integrationDeliveryAttempts)
    const rows = await database.db.select().from(integrations)
    const places = {
      logs: logs.lines.join('\n'),
      answers: answers.join('\n'),
      deliveries: JSON.stringify(deliveries),
      attempts: JSON.stringify(attempts),
      integrations: JSON.stringify(rows),
    }
    for (const [where, text] of Object.entries(places)) {
      expect(text, where).not.toContain(LINEAR_KEY)
      expect(text, where).not.toContain(GITHUB_TOKEN)
      expect(text, where).not.toContain('SECRETKEY')
      expect(text, where).not.toContain('SECRETTOKEN')
    }
  })
})
