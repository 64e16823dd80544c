import { mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMigratedDatabase } from '@/db/migrate'
import { seedInsight, seedIssue, seedSignal } from '../helpers/seed'
import {
  type CallbackResult,
  type CallbackServer,
  InMemoryOAuthProvider,
  postForm,
  rawToolsList,
  recordingFetch,
  runAdmin,
  startCallbackServer,
} from './oauth-client'
import {
  createDataDir,
  E2E_AUTH_SECRET,
  launchChromium,
  type RunningServer,
  startBuiltServer,
} from './server'

/**
 * Issue 6, "Done when": the MCP TypeScript SDK's own client and OAuth machinery, unchanged,
 * against the built server: discovery → dynamic registration → authorize → sign-in and
 * consent in Chromium → code exchange → tools/list and every tool → refresh → reuse
 * detection → revocation. The steps share one client, so they run in order.
 */

const SCREENSHOTS = path.join(process.cwd(), 'test-results', 'screenshots')
const CLIENT_NAME = 'E2E MCP Client (SDK)'
const TOOL_NAMES = [
  'add_issue_note',
  'create_ticket',
  'get_issue',
  'get_issue_reproduction',
  'get_session',
  'link_issue_ticket',
  'list_insights',
  'list_issues',
  'list_saved_searches',
  'list_sessions',
  'list_signals',
  'report_reproduction_result',
  'update_issue',
]
const owner = { email: 'ada@example.com', password: 'analytical engine 1843' }

let dataDir: string
let server: RunningServer
let browser: Browser
let context: BrowserContext
let callback: CallbackServer
let provider: InMemoryOAuthProvider
let recorder: ReturnType<typeof recordingFetch>
let mcpUrl: URL
let issueIds: string[]
let client: Client
let transport: StreamableHTTPClientTransport

const url = (pathname: string) => `${server.baseUrl}${pathname}`

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  dataDir = createDataDir()
  const admin = { DATA_DIR: dataDir, AUTH_SECRET: E2E_AUTH_SECRET }
  // The installation as an operator prepares it; done before `next start`, which then holds
  // the embedded database exclusively.
  const org = await runAdmin(['org:create', '--name', 'Acme'], admin)
  const organizationId = String(org.id)
  await runAdmin(
    ['user:create', '--email', owner.email, '--password', owner.password, '--org', organizationId],
    admin,
  )
  const db = await openMigratedDatabase(
    { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    { holder: 'the OAuth e2e seed' },
  )
  try {
    const older = await seedIssue(db.db, organizationId, {
      title: 'Dead click on Apply coupon',
      kind: 'dead_click',
      createdAt: new Date(Date.now() - 60_000),
    })
    const newer = await seedIssue(db.db, organizationId, { title: 'TypeError in checkout' })
    issueIds = [newer.id, older.id]
    await seedSignal(db.db, organizationId)
    await seedInsight(db.db, organizationId)
  } finally {
    await db.close()
  }

  ;[server, browser, callback] = await Promise.all([
    startBuiltServer({}, { dataDir }),
    launchChromium(),
    startCallbackServer(),
  ])
  // One browser profile for the whole flow: the dashboard session outlives one authorization.
  context = await browser.newContext()
  mcpUrl = new URL('/api/mcp', server.baseUrl)
  recorder = recordingFetch()
  provider = new InMemoryOAuthProvider(callback.url, {
    client_name: CLIENT_NAME,
    redirect_uris: [callback.url],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    // What this client would like; see the first test for what the SDK actually asks.
    scope: 'read:service write:issues',
  })
})

afterAll(async () => {
  await client?.close()
  await context?.close()
  await browser?.close()
  await callback?.close()
  await server?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })

function newTransport(): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recorder.fetch })
}

function newClient(): Client {
  return new Client({ name: 'e2e-oauth-client', version: '1.0.0' })
}

/** The tokens the SDK stored last; every step below expects some. */
function storedTokens(): OAuthTokens {
  const tokens = provider.tokens()
  if (!tokens) throw new Error('The provider holds no tokens')
  return tokens
}

/** Checks the authorization response the way RFC 9207 and RFC 6749 §10.12 ask a client to. */
function expectCode(result: CallbackResult): string {
  expect(result.error).toBeNull()
  expect(result.state).toBe(provider.states.at(-1))
  expect(result.iss).toBe(server.baseUrl)
  expect(result.code).toMatch(/\S{20,}/)
  return result.code!
}

/** Opens the authorization URL and leaves the page on whatever the server answered first. */
async function openAuthorization(authorizationUrl: URL): Promise<Page> {
  const page = await context.newPage()
  await page.goto(authorizationUrl.href)
  return page
}

/** Ticks write access when offered, approves, and waits for the redirect to the callback. */
async function approve(page: Page, write: boolean): Promise<void> {
  if (write) await page.getByRole('checkbox').check()
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(callback.url)),
    page.getByRole('button', { name: 'Approve' }).click(),
  ])
}

const toolText = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')

/** Calls a tool through the SDK client and hands back its result as the protocol typed it. */
async function callTool(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

describe('MCP over OAuth with the MCP SDK client, in Chromium, against the built server', () => {
  it('discovers, registers, signs in, gets consent and exchanges the code', async () => {
    let code = ''
    provider.onRedirect = async (authorizationUrl) => {
      const params = authorizationUrl.searchParams
      expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(url('/oauth/authorize'))
      expect(params.get('response_type')).toBe('code')
      expect(params.get('client_id')).toBe(provider.clientInformation()?.client_id)
      expect(params.get('redirect_uri')).toBe(callback.url)
      expect(params.get('code_challenge_method')).toBe('S256')
      expect(params.get('resource')).toBe(mcpUrl.href)
      expect(params.get('state')).toBe(provider.states.at(-1))
      // The SDK asks for the 401 challenge's scope (SEP-835), which offers write access at
      // first connect (docs/design/oauth-mcp.md decision 12); the user decides on the consent page.
      expect(params.get('scope')).toBe('read:service write:issues')

      const page = await openAuthorization(authorizationUrl)
      await page.waitForURL(/\/login\?callbackUrl=/)
      await shot(page, '10-oauth-login')
      await page.getByLabel('E-mail').fill(owner.email)
      await page.getByLabel('Password').fill(owner.password)
      await page.getByRole('button', { name: 'Sign in' }).click()

      // Back to the authorize URL after sign-in, now as the consent page.
      await page.getByTestId('client-name').waitFor()
      expect(await page.getByTestId('client-name').textContent()).toBe(CLIENT_NAME)
      expect(await page.getByTestId('redirect-host').textContent()).toBe(new URL(callback.url).host)
      await page.getByText('Organization: Acme').waitFor()
      // Write access is offered as a separate choice; this user grants read access only.
      expect(await page.getByRole('checkbox').count()).toBe(1)
      await shot(page, '11-oauth-consent')
      await page.getByRole('checkbox').uncheck()
      const arrival = callback.next()
      await approve(page, false)
      code = expectCode(await arrival)
      await page.close()
    }

    client = newClient()
    transport = newTransport()
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.redirects).toHaveLength(1)

    // What the SDK did over HTTP before the browser step, in order.
    expect(recorder.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'POST /api/mcp 401',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
    ])
    const registered = provider.clientInformation()
    expect(registered?.client_id).toMatch(/^svc_/)
    expect('client_secret' in (registered ?? {})).toBe(false)

    await transport.finishAuth(code)
    expect(recorder.calls.at(-1)).toMatchObject({
      method: 'POST',
      path: '/api/oauth/token',
      status: 200,
      grantType: 'authorization_code',
    })
    const tokens = storedTokens()
    expect(tokens.access_token).toMatch(/^svc_oat_/)
    expect(tokens.refresh_token).toBeTruthy()
    expect(tokens.token_type.toLowerCase()).toBe('bearer')
    expect(tokens.scope).toBe('read:service')

    // A new transport on the same provider, as a host reconnects after the browser returns.
    client = newClient()
    transport = newTransport()
    await client.connect(transport)
    expect(client.getServerVersion()?.name).toBe('session-replay-issues')
  })

  it('lists every tool and calls every read tool; the write tools need write:issues', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES)

    const listed = await callTool('list_issues')
    expect(listed.isError).toBeFalsy()
    const issues = (listed.structuredContent as { issues: { id: string }[] }).issues
    expect(issues.map((i) => i.id)).toEqual(issueIds)

    const one = await callTool('get_issue', { issueId: issueIds[0] })
    expect(one.isError).toBeFalsy()
    expect((one.structuredContent as { issue: { title: string } }).issue.title).toBe('TypeError in checkout')

    const signals = await callTool('list_signals')
    expect((signals.structuredContent as { signals: { name: string }[] }).signals.map((s) => s.name)).toEqual(
      ['Checkout friction'],
    )
    const insights = await callTool('list_insights')
    expect((insights.structuredContent as { insights: unknown[] }).insights).toHaveLength(1)

    const sessions = await callTool('list_sessions')
    expect(sessions.isError).toBeFalsy()
    expect(sessions.structuredContent).toMatchObject({ sessions: expect.any(Array), nextCursor: null })
    const savedSearches = await callTool('list_saved_searches')
    expect(savedSearches.isError).toBeFalsy()
    expect(savedSearches.structuredContent).toMatchObject({ savedSearches: [], nextCursor: null })
    const reproduction = await callTool('get_issue_reproduction', { issueId: issueIds[0] })
    expect(reproduction.isError).toBeFalsy()
    expect(
      (reproduction.structuredContent as { reproduction: { test: string } }).reproduction.test,
    ).toContain("from '@playwright/test'")

    for (const [name, args] of [
      ['update_issue', { issueId: issueIds[0], status: 'resolved' }],
      ['add_issue_note', { issueId: issueIds[0], text: 'Looked at it' }],
      [
        'report_reproduction_result',
        { issueId: issueIds[0], status: 'passed', baseUrl: 'https://preview.example.com' },
      ],
      [
        'link_issue_ticket',
        { issueId: issueIds[0], provider: 'Linear', url: 'https://linear.app/a/issue/A-1' },
      ],
    ] as const) {
      const refused = await callTool(name, args)
      expect(refused.isError, name).toBe(true)
      expect(toolText(refused), name).toBe('Missing required scope: write:issues')
    }
  })

  it('gets write:issues by asking for it at authorization, and update_issue matches the Data API', async () => {
    let code = ''
    provider.onRedirect = async (authorizationUrl) => {
      expect(authorizationUrl.searchParams.get('scope')).toBe('read:service write:issues')
      // Already signed in, and the earlier consent does not cover write: the consent page.
      const page = await openAuthorization(authorizationUrl)
      await page.getByTestId('client-name').waitFor()
      const write = page.getByRole('checkbox')
      expect(await write.getAttribute('name')).toBe('write_issues')
      await write.check()
      await shot(page, '12-oauth-consent-write')
      const arrival = callback.next()
      await approve(page, true)
      code = expectCode(await arrival)
      await page.close()
    }
    // A host that wants more than the server advertises drops its tokens (else auth() only
    // refreshes them) and calls the SDK's auth() with the scope it needs.
    provider.replaceTokens(undefined)
    expect(await auth(provider, { serverUrl: mcpUrl, scope: 'read:service write:issues' })).toBe('REDIRECT')
    await transport.finishAuth(code)
    expect(storedTokens().scope).toBe('read:service write:issues')

    const updated = await callTool('update_issue', { issueId: issueIds[1], status: 'resolved' })
    expect(updated.isError).toBeFalsy()
    const issue = (updated.structuredContent as { issue: { id: string; status: string } }).issue
    expect(issue).toMatchObject({ id: issueIds[1], status: 'resolved' })

    // The same access token on the Data API sees the change, in the same shape.
    const response = await fetch(url(`/api/v1/issues/${issueIds[1]}`), {
      headers: { authorization: `Bearer ${storedTokens().access_token}` },
    })
    expect(response.status).toBe(200)
    // GET answers the issue with its detail (issue 36); the write answers the issue itself.
    expect(await response.json()).toEqual({
      issue: { ...issue, oldReleaseOccurrences: [], regression: null, verifications: [] },
    })
  })

  it('refreshes a stale access token through the SDK, and a reused refresh token revokes the chain', async () => {
    const before = storedTokens()
    const saved = provider.savedTokens.length
    // The access token is no longer accepted (as after its expiry): the next call gets 401,
    // the SDK refreshes with the stored refresh token and retries, unseen by the caller.
    provider.replaceTokens({ ...before, access_token: 'svc_oat_expired0000000000000000000000' })
    const listed = await callTool('list_issues', { status: 'resolved' })
    expect(listed.isError).toBeFalsy()
    expect((listed.structuredContent as { issues: { id: string }[] }).issues.map((i) => i.id)).toEqual([
      issueIds[1],
    ])
    expect(provider.savedTokens).toHaveLength(saved + 1)
    expect(recorder.calls.filter((c) => c.grantType === 'refresh_token').map((c) => c.status)).toEqual([200])
    const after = storedTokens()
    expect(after.access_token).toMatch(/^svc_oat_/)
    expect(after.access_token).not.toBe(before.access_token)
    expect(after.refresh_token).toBeTruthy()
    expect(after.refresh_token).not.toBe(before.refresh_token)
    expect(after.scope).toBe('read:service write:issues')

    // The rotated refresh token presented again: invalid_grant, and the whole chain goes.
    const clientId = provider.clientInformation()!.client_id
    const reuse = await postForm(url('/api/oauth/token'), {
      grant_type: 'refresh_token',
      refresh_token: before.refresh_token!,
      client_id: clientId,
    })
    expect(reuse.status).toBe(400)
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' })
    const revokedAccess = await rawToolsList(mcpUrl, after.access_token)
    expect(revokedAccess.status).toBe(401)
    const revokedRefresh = await postForm(url('/api/oauth/token'), {
      grant_type: 'refresh_token',
      refresh_token: after.refresh_token!,
      client_id: clientId,
    })
    expect(revokedRefresh.status).toBe(400)
    expect(await revokedRefresh.json()).toMatchObject({ error: 'invalid_grant' })
  })

  it('re-authorizes without a consent page once the chain is gone, then revocation ends access', async () => {
    // The SDK's refresh now fails with invalid_grant: it drops the tokens and starts a new
    // authorization, which the remembered consent answers with a code at once.
    let code = ''
    provider.onRedirect = async (authorizationUrl) => {
      const arrival = callback.next()
      const page = await openAuthorization(authorizationUrl)
      expect(page.url().startsWith(callback.url)).toBe(true)
      code = expectCode(await arrival)
      await page.close()
    }
    const invalidations = provider.invalidations.length
    await expect(client.listTools()).rejects.toBeInstanceOf(UnauthorizedError)
    expect(recorder.calls.filter((c) => c.grantType === 'refresh_token').map((c) => c.status)).toEqual([
      200, 400,
    ])
    expect(provider.invalidations.slice(invalidations)).toEqual(['tokens'])
    await transport.finishAuth(code)
    const fresh = storedTokens()
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length)

    // RFC 7009: revoking the fresh refresh token takes its access token with it.
    const clientId = provider.clientInformation()!.client_id
    const revoked = await postForm(url('/api/oauth/revoke'), {
      token: fresh.refresh_token!,
      token_type_hint: 'refresh_token',
      client_id: clientId,
    })
    expect(revoked.status).toBe(200)

    const refused = await rawToolsList(mcpUrl, fresh.access_token)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", scope="read:service write:issues", resource_metadata="${url('/.well-known/oauth-protected-resource/api/mcp')}"`,
    )
    const dataApi = await fetch(url(`/api/v1/issues/${issueIds[0]}`), {
      headers: { authorization: `Bearer ${fresh.access_token}` },
    })
    expect(dataApi.status).toBe(401)
    const refresh = await postForm(url('/api/oauth/token'), {
      grant_type: 'refresh_token',
      refresh_token: fresh.refresh_token!,
      client_id: clientId,
    })
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' })

    // The SDK client, refused on both counts, has to send the user to the browser again.
    const redirects = provider.redirects.length
    provider.onRedirect = async () => {}
    await expect(client.listTools()).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.redirects).toHaveLength(redirects + 1)
  })
})
