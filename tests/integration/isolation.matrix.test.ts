import { gunzipSync } from 'node:zlib'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  addNoteAction,
  changeStatusAction,
  linkTicketAction,
  unlinkTicketAction,
} from '@/app/(dashboard)/issues/[issueId]/actions'
import {
  changeMemberRoleAction,
  changePlanAction,
  removeMemberAction,
  renameOrganizationAction,
  revokeInvitationAction,
} from '@/app/(dashboard)/settings/actions'
import { revokeConnectedAppAction } from '@/app/(dashboard)/settings/connected-apps/actions'
import { revokeKeyAction } from '@/app/(dashboard)/settings/keys/actions'
import { revokeWebhookAction, sendTestWebhookAction } from '@/app/(dashboard)/settings/webhooks/actions'
import { deleteSignalAction, pauseSignalAction, resumeSignalAction } from '@/app/(dashboard)/signals/actions'
import { GET as dashboardExport } from '@/app/api/dashboard/exports/[exportId]/route'
import { GET as sessionEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { GET as auditEventsRoute } from '@/app/api/v1/audit-events/route'
import { GET as getErasureRoute } from '@/app/api/v1/erasures/[erasureId]/route'
import { POST as postErasureRoute } from '@/app/api/v1/erasures/route'
import { GET as getExportRoute } from '@/app/api/v1/exports/[exportId]/route'
import { POST as postExportRoute } from '@/app/api/v1/exports/route'
import { GET as getRemaskingRoute } from '@/app/api/v1/remaskings/[remaskingId]/route'
import { POST as postRemaskingRoute } from '@/app/api/v1/remaskings/route'
import { PATCH as retentionRoute } from '@/app/api/v1/retention/route'
import { PUT as pinRoute, DELETE as unpinRoute } from '@/app/api/v1/sessions/[sessionId]/pin/route'
import { acceptInvitationAction, createAccountFromInvitationAction } from '@/app/invite/[token]/actions'
import {
  auditEvents,
  credentials,
  issues,
  issueVerifications,
  memberships,
  organizations,
  replayBatches,
  replaySessions,
  savedSearches,
  users,
  webhookDeliveries,
} from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { createKey } from '@/lib/credentials/create-key'
import { listKeys } from '@/lib/credentials/list-keys'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { getInsight } from '@/lib/insights/get-insight'
import { issueEventData } from '@/lib/issues/event-data'
import { getIssueRow, ISSUE_NOT_FOUND } from '@/lib/issues/get-issue'
import { issueHistory } from '@/lib/issues/issue-history'
import { issueSessionOf, issueSessionsOf } from '@/lib/issues/issue-sessions'
import { INVALID_INVITATION } from '@/lib/members/invitation-link'
import { listPendingInvitations } from '@/lib/members/list-invitations'
import { listMembers } from '@/lib/members/members'
import { listConnectedApps } from '@/lib/oauth/connected-apps'
import { createOrganization } from '@/lib/orgs/create-organization'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { INVALID_CURSOR } from '@/lib/pagination/cursor'
import { runErasure } from '@/lib/privacy/erase-person'
import { runExport } from '@/lib/privacy/export-run'
import { runRemasking } from '@/lib/privacy/remask-run'
import { createMemoryRateLimiter } from '@/lib/ratelimit'
import { unknownReleaseMessage } from '@/lib/reproduction/bundle'
import { getSession } from '@/lib/sessions/get-session'
import { listSessions } from '@/lib/sessions/list-sessions'
import { sessionIssues } from '@/lib/sessions/session-issues'
import { getSignal, SIGNAL_NOT_FOUND } from '@/lib/signals/get-signal'
import { listSignalMatches } from '@/lib/signals/signal-matches'
import { getBlobStore } from '@/lib/storage'
import type { Deliverer } from '@/lib/webhooks/deliver'
import { listEndpoints, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { deliveryLog } from '@/lib/webhooks/log'
import { useDeliverer } from '@/lib/webhooks/runtime'
import { sendTestEvent } from '@/lib/webhooks/send-test'
import { recorderBatches } from '../helpers/batches'
import { api, releasesApi, savedSearchesApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import {
  seedTenant,
  settleCredentialTouches,
  snapshotSizes,
  snapshotTenant,
  type Tenant,
  type TenantSnapshot,
} from '../helpers/isolation'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
import { signedIn } from '../helpers/signed-in'

// The session of whoever `signedIn.cookie` names (see the helper); everything after it is real.
vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
// Cache invalidation and request headers exist only inside a Next request.
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))
vi.mock('next/headers', () => ({
  headers: async () => new Headers({ 'x-forwarded-for': '203.0.113.7' }),
  cookies: async () => ({ get: () => undefined, getAll: () => [] }),
}))

let database: TestDatabase
let server: McpTestServer
let A: Tenant
let B: Tenant
/** Cursors B's own credential was given, minted before the snapshot. */
const bCursors: Record<'issues' | 'signals' | 'insights' | 'sessions', string> = {
  issues: '',
  signals: '',
  insights: '',
  sessions: '',
}
let before: TenantSnapshot
let bVerifications: (typeof issueVerifications.$inferSelect)[]
const deliveries: string[] = []
const clients: Client[] = []

// Any delivery at all would be a leak here: A never owns an endpoint it could send to.
const recordingDeliverer: Deliverer = async (request) => {
  deliveries.push(request.url)
  throw new Error(`unexpected webhook delivery to ${request.url}`)
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  useDeliverer(recordingDeliverer)
  A = await seedTenant(database.db, 'Alpha')
  B = await seedTenant(database.db, 'Beta')
  for (const list of ['issues', 'signals', 'insights'] as const) {
    const call = list === 'issues' ? api.listIssues : list === 'signals' ? api.listSignals : api.listInsights
    const page = (await (await call(B.oauth.read.token, { limit: 1 })).json()) as {
      nextCursor: string | null
    }
    expect(page.nextCursor, list).toEqual(expect.any(String))
    bCursors[list] = page.nextCursor!
  }
  const sessionsPage = (await (await api.listSessions(B.oauth.read.token, { limit: 1 })).json()) as {
    nextCursor: string | null
  }
  expect(sessionsPage.nextCursor, 'sessions').toEqual(expect.any(String))
  bCursors.sessions = sessionsPage.nextCursor!
  await settleCredentialTouches(database.db, B)
  bVerifications = await database.db
    .select()
    .from(issueVerifications)
    .where(eq(issueVerifications.organizationId, B.id))
  before = await snapshotTenant(database.db, getBlobStore(), B.id)
  server = await startMcpServer()
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await server?.close()
  useDeliverer(undefined)
  useDatabase(undefined)
  await database?.close()
})

type Json = Record<string, unknown>
const body = async (response: Response) => (await response.json()) as Json
const ids = (rows: unknown) => (rows as { id: string }[]).map((row) => row.id)

/** B's issue rows now, compared in full with what seeding left. */
async function expectBIssuesUnchanged() {
  const rows = await database.db
    .select()
    .from(issues)
    .where(inArray(issues.id, ids(B.issues)))
  expect(rows.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
    [...B.issues].sort((x, y) => x.id.localeCompare(y.id)),
  )
}

/** B's reproduction runs now, compared in full with what seeding left (one failed run). */
async function expectBVerificationsUnchanged() {
  const rows = await database.db
    .select()
    .from(issueVerifications)
    .where(eq(issueVerifications.organizationId, B.id))
  expect(rows).toEqual(bVerifications)
  const onB = await database.db
    .select({ organizationId: issueVerifications.organizationId })
    .from(issueVerifications)
    .where(inArray(issueVerifications.issueId, ids(B.issues)))
  expect(onB).toEqual([{ organizationId: B.id }])
}

/** Every id of B that a caller could put in a URL, a tool argument or a form. */
function bIds(): [string, string][] {
  return [
    ...B.issues.map((i, n) => [`issue ${n}`, i.id] as [string, string]),
    ...B.sessions.map((s, n) => [`session ${n}`, s.id] as [string, string]),
    ...B.signals.map((s, n) => [`signal ${n}`, s.id] as [string, string]),
    ...B.insights.map((s, n) => [`insight ${n}`, s.id] as [string, string]),
    ['webhook endpoint', B.webhook.endpointId],
    ['saved search', B.savedSearch.id],
    ['organization', B.id],
  ]
}

// The bearer credentials of A: static keys of every kind and OAuth access tokens.
interface Bearer {
  name: string
  token: (t: Tenant) => string
  /** Holds write:issues. */
  write: boolean
}
const BEARERS: Bearer[] = [
  { name: 'svc_api_ read', token: (t) => t.keys.apiRead.key, write: false },
  { name: 'svc_api_ write', token: (t) => t.keys.apiWrite.key, write: true },
  { name: 'svc_mcp_ (legacy)', token: (t) => t.keys.mcp.key, write: false },
  { name: 'svc_oat_ read', token: (t) => t.oauth.read.token, write: false },
  { name: 'svc_oat_ write', token: (t) => t.oauth.write.token, write: true },
]

describe.each(BEARERS)('Data API with A’s $name', ({ token, write }) => {
  it('GET of every B issue (and of B ids of other kinds) is 404 Issue not found', async () => {
    for (const [what, id] of bIds()) {
      const response = await api.getIssue(token(A), id)
      expect(response.status, what).toBe(404)
      expect(await body(response), what).toEqual({ error: 'Issue not found' })
    }
  })

  it('GET reproduction of every B issue (and of B ids of other kinds) is 404 Issue not found', async () => {
    for (const [what, id] of bIds()) {
      const response = await api.getReproduction(token(A), id)
      expect(response.status, what).toBe(404)
      expect(await body(response), what).toEqual({ error: 'Issue not found' })
    }
  })

  it('B’s saved search is not listed, read, changed or deleted (issue 37)', async () => {
    const listed = (await body(await savedSearchesApi.list(token(A)))) as { savedSearches: { id: string }[] }
    expect(listed.savedSearches.map((s) => s.id)).toEqual([A.savedSearch.id])
    for (const [what, id] of bIds()) {
      const response = await savedSearchesApi.get(token(A), id)
      expect(response.status, what).toBe(404)
      expect(await body(response), what).toEqual({ error: 'Saved search not found' })
    }
    for (const response of [
      await savedSearchesApi.update(token(A), B.savedSearch.id, { name: 'from A', query: 'rage_click' }),
      await savedSearchesApi.remove(token(A), B.savedSearch.id),
    ]) {
      // Without write:issues the scope check answers first; with it, B's saved search does not exist.
      expect(response.status).toBe(write ? 404 : 403)
      expect(await body(response)).toEqual({
        error: write ? 'Saved search not found' : 'Missing required scope: write:issues',
      })
    }
    const [still] = await database.db
      .select()
      .from(savedSearches)
      .where(eq(savedSearches.id, B.savedSearch.id))
    expect(still).toEqual(B.savedSearch)
  })

  it('PATCH of every B issue is refused and leaves it as it was', async () => {
    for (const issue of B.issues) {
      const response = await api.patchIssue(token(A), issue.id, { status: 'resolved' })
      // Without write:issues the scope check answers first; with it, B's issue does not exist.
      if (write) {
        expect(response.status).toBe(404)
        expect(await body(response)).toEqual({ error: 'Issue not found' })
      } else {
        expect(response.status).toBe(403)
        expect(await body(response)).toEqual({ error: 'Missing required scope: write:issues' })
      }
    }
    await expectBIssuesUnchanged()
  })

  it('notes and the ticket link of every B issue are refused and leave it as it was', async () => {
    const ticket = { provider: 'GitHub', url: 'https://github.com/a/a/issues/1', identifier: '#1' }
    for (const issue of B.issues) {
      const listed = await api.listNotes(token(A), issue.id)
      expect(listed.status).toBe(404)
      expect(await body(listed)).toEqual({ error: 'Issue not found' })
      for (const response of [
        await api.addNote(token(A), issue.id, { text: 'from A' }),
        await api.putTicket(token(A), issue.id, ticket),
      ]) {
        // Without write:issues the scope check answers first; with it, B's issue does not exist.
        expect(response.status).toBe(write ? 404 : 403)
        expect(await body(response)).toEqual({
          error: write ? 'Issue not found' : 'Missing required scope: write:issues',
        })
      }
    }
    await expectBIssuesUnchanged()
  })

  it('lists hold A’s issues, signals and insights and none of B’s', async () => {
    const lists = [
      ['issues', api.listIssues, A.issues, B.issues],
      ['signals', api.listSignals, A.signals, B.signals],
      ['insights', api.listInsights, A.insights, B.insights],
    ] as const
    for (const [name, list, own, foreign] of lists) {
      const response = await list(token(A), { limit: 50 })
      expect(response.status, name).toBe(200)
      const listed = ids((await body(response))[name])
      expect(listed.sort(), name).toEqual(ids(own).sort())
      for (const id of ids(foreign)) expect(listed, name).not.toContain(id)
    }
  })

  it('A’s own cursors page through A’s lists; B’s cursors are refused', async () => {
    const lists = [
      ['issues', api.listIssues],
      ['signals', api.listSignals],
      ['insights', api.listInsights],
    ] as const
    for (const [name, list] of lists) {
      const first = await body(await list(token(A), { limit: 1 }))
      const second = await list(token(A), { limit: 1, cursor: String(first.nextCursor) })
      expect(second.status, name).toBe(200)
      const pages = [...ids(first[name]), ...ids((await body(second))[name])]
      expect(
        pages.every((id) => !ids(B[name]).includes(id)),
        name,
      ).toBe(true)

      const foreign = await list(token(A), { limit: 1, cursor: bCursors[name] })
      expect(foreign.status, name).toBe(400)
      expect(await body(foreign), name).toEqual({ error: INVALID_CURSOR })

      // The other way round: A's cursor presented by B's (read-only OAuth) token.
      const reverse = await list(B.oauth.read.token, { limit: 1, cursor: String(first.nextCursor) })
      expect(reverse.status, name).toBe(400)
      expect(await body(reverse), name).toEqual({ error: INVALID_CURSOR })
    }
  })
})

describe('Data API with A’s non-bearer credentials', () => {
  it('A’s ingest key and A’s dashboard cookie are not Data API credentials (401)', async () => {
    for (const [what, headers] of [
      ['ingest key as bearer', { authorization: `Bearer ${A.keys.ingest.key}` }],
      ['ingest key header', { 'x-service-api-key': A.keys.ingest.key }],
      ['dashboard cookie', { cookie: A.owner.cookie }],
    ] as const) {
      const response = await api.listIssues(null, {}, headers)
      expect(response.status, what).toBe(401)
    }
    for (const issue of B.issues) expect((await api.getIssue(A.keys.ingest.key, issue.id)).status).toBe(401)
  })
})

async function callTool(client: Client, name: string, args: Json = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

describe.each(BEARERS)('MCP with A’s $name', ({ token, write }) => {
  let client: Client
  beforeAll(async () => {
    client = await connectClient(server.url, token(A))
    clients.push(client)
  })

  it('get_issue with any B id is a tool error: Issue not found', async () => {
    for (const [what, id] of bIds()) {
      const result = await callTool(client, 'get_issue', { issueId: id })
      expect(result.isError, what).toBe(true)
      expect(textOf(result), what).toBe('Issue not found')
      expect(JSON.stringify(result), what).not.toContain(B.name)
    }
  })

  it('get_issue_reproduction with any B id is a tool error: Issue not found', async () => {
    for (const [what, id] of bIds()) {
      const result = await callTool(client, 'get_issue_reproduction', { issueId: id })
      expect(result.isError, what).toBe(true)
      expect(textOf(result), what).toBe('Issue not found')
      expect(JSON.stringify(result), what).not.toContain(B.name)
    }
  })

  it('update_issue on B’s issues is a tool error and changes nothing', async () => {
    for (const issue of B.issues) {
      const result = await callTool(client, 'update_issue', { issueId: issue.id, status: 'transient' })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toBe(write ? 'Issue not found' : 'Missing required scope: write:issues')
    }
    await expectBIssuesUnchanged()
  })

  it('add_issue_note and link_issue_ticket on B’s issues are tool errors and change nothing', async () => {
    const ticket = { provider: 'GitHub', url: 'https://github.com/a/a/issues/1' }
    for (const issue of B.issues)
      for (const [tool, args] of [
        ['add_issue_note', { issueId: issue.id, text: 'from A' }],
        ['link_issue_ticket', { issueId: issue.id, ...ticket }],
      ] as const) {
        const result = await callTool(client, tool, args)
        expect(result.isError, tool).toBe(true)
        expect(textOf(result), tool).toBe(write ? 'Issue not found' : 'Missing required scope: write:issues')
      }
    await expectBIssuesUnchanged()
  })

  it('report_reproduction_result on any B id is a tool error and records no run', async () => {
    for (const [what, id] of bIds()) {
      const result = await callTool(client, 'report_reproduction_result', {
        issueId: id,
        status: 'passed',
        baseUrl: 'https://preview.alpha.example.com',
      })
      expect(result.isError, what).toBe(true)
      expect(textOf(result), what).toBe(write ? 'Issue not found' : 'Missing required scope: write:issues')
    }
    await expectBVerificationsUnchanged()
    await expectBIssuesUnchanged()
  })

  it('list tools answer A’s data only; B’s cursors are refused', async () => {
    const lists = [
      ['list_issues', 'issues', A.issues, B.issues],
      ['list_signals', 'signals', A.signals, B.signals],
      ['list_insights', 'insights', A.insights, B.insights],
    ] as const
    for (const [tool, key, own, foreign] of lists) {
      const result = await callTool(client, tool, { limit: 50 })
      expect(result.isError, tool).toBeFalsy()
      const listed = ids((result.structuredContent as Json)[key])
      expect(listed.sort(), tool).toEqual(ids(own).sort())
      for (const id of ids(foreign)) expect(textOf(result), tool).not.toContain(id)

      const refused = await callTool(client, tool, { limit: 1, cursor: bCursors[key] })
      expect(refused.isError, tool).toBe(true)
      expect(textOf(refused), tool).toBe(INVALID_CURSOR)
    }
  })
})

// Releases (issue 36): B's releases are not found, lists never show them, and a release name both
// organizations use answers A's own figures only.
describe.each(BEARERS)('releases in the Data API with A’s $name', ({ token }) => {
  it('GET of B’s own release (and of B ids of other kinds) is 404 Release not found', async () => {
    for (const [what, version] of [['B release', B.releases.own] as [string, string], ...bIds()]) {
      const response = await releasesApi.get(token(A), version)
      expect(response.status, what).toBe(404)
      expect(await body(response), what).toEqual({ error: 'Release not found' })
    }
  })

  it('the list holds A’s releases only, and the shared name answers A’s figures', async () => {
    const response = await releasesApi.list(token(A), { limit: 100 })
    expect(response.status).toBe(200)
    const listed = (await body(response)).releases as {
      version: string
      sessions: number
      newIssues: number
    }[]
    expect(listed.map((r) => r.version).sort()).toEqual([A.releases.shared, A.releases.own].sort())
    expect(JSON.stringify(listed)).not.toContain(B.releases.own)
    // B ran the shared name too, with its own session and issue: not counted for A.
    expect(listed.find((r) => r.version === A.releases.shared)).toMatchObject({ sessions: 1, newIssues: 1 })
    const detail = (await body(await releasesApi.get(token(A), A.releases.shared))).release as {
      issues: { new: { id: string }[]; seen: { id: string }[] }
    }
    expect(ids(detail.issues.new)).toEqual([A.issues[0]!.id])
    expect(ids(detail.issues.seen).sort()).toEqual(ids(A.issues).sort())
  })

  it('declaring a release needs write:sourcemaps', async () => {
    const response = await releasesApi.declare(token(A), { version: B.releases.own })
    expect(response.status).toBe(403)
    expect(await body(response)).toEqual({ error: 'Missing required scope: write:sourcemaps' })
  })
})

// Verification (issue 36): a run reported with A's credentials never lands on B's issue (and
// with a key that can report one, below), and A's reproduction suite holds A's issues only,
// whatever status or release it is asked for. Runs before the release key block, which gives A
// a release of B's name.
describe('verifications and the reproduction suite with A’s credentials', () => {
  const run = {
    status: 'passed',
    baseUrl: 'https://preview.alpha.example.com',
    release: '1.0.0',
    summary: 'from A',
  }
  it('A’s bearers, which lack write:verifications, are refused before any lookup', async () => {
    for (const bearer of BEARERS)
      for (const issue of [...A.issues, ...B.issues]) {
        const response = await api.postVerification(bearer.token(A), issue.id, run)
        expect(response.status, bearer.name).toBe(403)
        expect(await body(response), bearer.name).toEqual({
          error: 'Missing required scope: write:verifications',
        })
      }
    await expectBVerificationsUnchanged()
  })

  it.each(BEARERS)(
    'the suite for A’s $name holds A’s issues only, with and without a release',
    async ({ token }) => {
      const foreign = [...bIds().map(([, id]) => id), ...B.sessions.map((s) => s.externalId)]
      const cases: [Record<string, string>, string[]][] = [
        // B's issue resolved in the shared release would match every one of these but for the organization.
        [{}, [A.issues[1]!.id]],
        [{ release: A.releases.shared }, [A.issues[1]!.id]],
        [{ status: 'resolved', release: A.releases.own }, [A.issues[1]!.id]],
        [{ status: 'ticket_created' }, [A.issues[0]!.id]],
        [{ status: 'ticket_created', release: A.releases.shared }, []],
      ]
      for (const [query, expected] of cases) {
        const response = await api.reproductions(token(A), query)
        const what = JSON.stringify(query)
        expect(response.status, what).toBe(200)
        const text = await response.text()
        const { bundle } = JSON.parse(text) as { bundle: { issues: { issueId: string }[] } }
        expect(
          bundle.issues.map((i) => i.issueId),
          what,
        ).toEqual(expected)
        for (const id of foreign) expect(text, what).not.toContain(id)
        const tgz = await api.reproductions(token(A), { ...query, format: 'tgz' })
        expect(tgz.status, what).toBe(200)
        const unpacked = gunzipSync(Buffer.from(await tgz.arrayBuffer())).toString('latin1')
        for (const id of expected) expect(unpacked, what).toContain(id)
        for (const id of foreign) expect(unpacked, what).not.toContain(id)
      }
    },
  )

  it.each(BEARERS)('a release only B has is a 400 unknown release for A’s $name', async ({ token }) => {
    for (const query of [
      { release: B.releases.own },
      { release: B.releases.own, status: 'ticket_created' },
    ]) {
      const response = await api.reproductions(token(A), query)
      expect(response.status).toBe(400)
      expect(await body(response)).toEqual({ error: unknownReleaseMessage(B.releases.own) })
    }
  })
})

const EVENTS_URL = 'http://localhost:3000/api/dashboard/sessions'
const fetchEvents = (sessionId: string, headers: Record<string, string>) =>
  sessionEvents(new Request(`${EVENTS_URL}/${sessionId}/events`, { headers }), {
    params: Promise.resolve({ sessionId }),
  })

// Sessions (issue 18): B's sessions, issues and signals are invisible through every route and tool.
describe.each(BEARERS)('sessions in the Data API with A’s $name', ({ token }) => {
  it('GET of every B session (and B ids of other kinds), and of its timeline, is 404 Session not found', async () => {
    for (const [what, id] of bIds()) {
      for (const response of [await api.getSession(token(A), id), await api.sessionTimeline(token(A), id)]) {
        expect(response.status, what).toBe(404)
        expect(await body(response), what).toEqual({ error: 'Session not found' })
      }
    }
  })

  it('the list holds A’s sessions only; B’s issues and signals filter to nothing; B’s cursor is refused', async () => {
    const listed = ids((await body(await api.listSessions(token(A), { limit: 50 }))).sessions)
    expect(listed.sort()).toEqual(ids(A.sessions).sort())
    for (const query of [
      ...B.issues.map((issue) => ({ issueId: issue.id })),
      ...B.signals.map((signal) => ({ signalId: signal.id })),
    ]) {
      const response = await api.listSessions(token(A), query)
      expect(response.status).toBe(200)
      expect((await body(response)).sessions, JSON.stringify(query)).toEqual([])
    }
    // A's own issue and signal find A's session, with A's links only.
    const own = await body(await api.listSessions(token(A), { issueId: A.issues[0]!.id }))
    expect(ids(own.sessions)).toEqual([A.sessions[0]!.id])
    const refused = await api.listSessions(token(A), { limit: 1, cursor: bCursors.sessions })
    expect(refused.status).toBe(400)
    expect(await body(refused)).toEqual({ error: INVALID_CURSOR })
  })

  it('a search (q) finds A’s sessions only, whatever it asks for', async () => {
    const own = ids(A.sessions)
    for (const q of ['page or errors >= 0', 'page then click', `release = ${B.releases.own}`, 'not error']) {
      const answer = await body(await api.listSessions(token(A), { limit: 50, q }))
      const listed = ids(answer.sessions)
      expect(
        listed.every((id) => own.includes(id)),
        q,
      ).toBe(true)
      expect(JSON.stringify(answer), q).not.toContain(B.sessions[0]!.id)
    }
    expect(ids((await body(await api.listSessions(token(A), { limit: 50, q: 'page' }))).sessions)).toEqual([
      A.sessions[0]!.id,
    ])
  })

  it('a timeline of A’s session around B’s issue is refused as not in this session', async () => {
    for (const issue of B.issues) {
      const response = await api.sessionTimeline(token(A), A.sessions[0]!.id, { around: issue.id })
      expect(response.status).toBe(400)
      expect(await body(response)).toEqual({
        error: `around: issue ${issue.id} did not occur in this session`,
      })
    }
  })
})

describe.each(BEARERS)('session tools with A’s $name', ({ token }) => {
  let client: Client
  beforeAll(async () => {
    client = await connectClient(server.url, token(A))
    clients.push(client)
  })

  it('get_session with any B id is a tool error: Session not found', async () => {
    for (const [what, id] of bIds()) {
      const result = await callTool(client, 'get_session', { sessionId: id })
      expect(result.isError, what).toBe(true)
      expect(textOf(result), what).toBe('Session not found')
      expect(JSON.stringify(result), what).not.toContain(B.name)
    }
  })

  it('list_sessions answers A’s sessions only, nothing for B’s issues or signals; B’s cursor is refused', async () => {
    const result = await callTool(client, 'list_sessions', { limit: 50 })
    expect(ids((result.structuredContent as Json).sessions).sort()).toEqual(ids(A.sessions).sort())
    for (const id of ids(B.sessions)) expect(textOf(result)).not.toContain(id)
    for (const args of [{ issueId: B.issues[0]!.id }, { signalId: B.signals[0]!.id }]) {
      const filtered = await callTool(client, 'list_sessions', args)
      expect((filtered.structuredContent as Json).sessions).toEqual([])
    }
    const refused = await callTool(client, 'list_sessions', { limit: 1, cursor: bCursors.sessions })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toBe(INVALID_CURSOR)
    for (const q of ['page or errors >= 0', `release = ${B.releases.own}`]) {
      const searched = await callTool(client, 'list_sessions', { limit: 50, q })
      const listed = ids((searched.structuredContent as Json).sessions)
      expect(
        listed.every((id) => ids(A.sessions).includes(id)),
        q,
      ).toBe(true)
      for (const id of ids(B.sessions)) expect(textOf(searched)).not.toContain(id)
    }
  })
})

describe('dashboard: the replay player’s event fetch', () => {
  it('A’s own session streams for A’s member (the route works)', async () => {
    const response = await fetchEvents(A.sessions[0]!.id, { cookie: A.owner.cookie })
    expect(response.status).toBe(200)
    expect(((await response.json()) as unknown[]).length).toBeGreaterThan(0)
  })

  it('every B session is 404 Session not found for A’s owner and A’s member', async () => {
    for (const cookie of [A.owner.cookie, (await memberCookie(A)).cookie])
      for (const session of B.sessions) {
        const response = await fetchEvents(session.id, { cookie })
        expect(response.status).toBe(404)
        expect(await body(response)).toEqual({ error: 'Session not found' })
      }
  })

  it('A’s bearer credentials and ingest key open no session at all (401)', async () => {
    for (const bearer of BEARERS)
      for (const session of [...B.sessions, ...A.sessions]) {
        const response = await fetchEvents(session.id, { authorization: `Bearer ${bearer.token(A)}` })
        expect(response.status, bearer.name).toBe(401)
      }
    const viaIngest = await fetchEvents(B.sessions[0]!.id, { 'x-service-api-key': A.keys.ingest.key })
    expect(viaIngest.status).toBe(401)
  })
})

/** A's plain member signs in with a cookie minted like the owner's. */
async function memberCookie(tenant: Tenant) {
  const { encode } = await import('next-auth/jwt')
  const token = await encode({
    token: { sub: tenant.member.id, email: tenant.member.email },
    secret: process.env.AUTH_SECRET!,
  })
  return { cookie: `next-auth.session-token=${token}` }
}

describe('dashboard pages: what each page loads, with A’s organization and B’s ids', () => {
  // Pages are server components; each one calls requireMember, then these functions with the
  // member's organization id and the id from the URL.
  it('issue, session, signal, insight and webhook pages find nothing of B', async () => {
    const db = database.db
    const loaders: [string, () => Promise<unknown>][] = []
    for (const issue of B.issues)
      loaders.push(
        ['issue page', () => getIssueRow(db, A.id, issue.id)],
        ['issue history', () => issueHistory(db, A.id, issue.id)],
        ['issue sessions', () => issueSessionsOf(db, A.id, issue.id)],
      )
    for (const session of B.sessions) loaders.push(['session page', () => getSession(db, A.id, session.id)])
    for (const signal of B.signals)
      loaders.push(
        ['signal page', () => getSignal(db, { organizationId: A.id, signalId: signal.id })],
        [
          'signal matches',
          () => listSignalMatches(db, { organizationId: A.id, signalId: signal.id }, { limit: 10 }),
        ],
      )
    for (const insight of B.insights)
      loaders.push(['insight page', () => getInsight(db, { organizationId: A.id, insightId: insight.id })])
    loaders.push(['issue session', () => issueSessionOf(db, A.id, B.issues[0]!.id, B.sessions[0]!.id)])
    loaders.push([
      'webhook delivery log',
      () => deliveryLog(db, { organizationId: A.id, endpointId: B.webhook.endpointId }),
    ])
    for (const [what, load] of loaders) await expect(load(), what).rejects.toThrow(NotFoundError)
  })

  it('the lists A’s pages show hold nothing of B', async () => {
    const db = database.db
    for (const session of B.sessions) {
      expect(await sessionIssues(db, A.id, session.id)).toEqual([])
      // The issue page's ?session= picks a replay: A's issue with B's session opens none.
      expect(await issueSessionOf(db, A.id, A.issues[0]!.id, session.id)).toBeNull()
    }
    const sessions = await listSessions(db, A.id, { limit: 50 })
    expect(ids(sessions.items).sort()).toEqual(ids(A.sessions).sort())
    expect(ids(await listKeys(db, { organizationId: A.id })).sort()).toEqual(
      [A.keys.ingest.id, A.keys.apiRead.id, A.keys.apiWrite.id, A.keys.mcp.id].sort(),
    )
    expect(ids(await listEndpoints(db, A.id))).toEqual([A.webhook.endpointId])
    const members = (await listMembers(db, A.id)).map((m) => m.userId)
    expect(members.sort()).toEqual([A.owner.id, A.member.id].sort())
    expect(ids(await listPendingInvitations(db, A.id))).toEqual([A.invitation.id])
    const apps = (await listConnectedApps(db, A.owner.id)).map((app) => app.organization.id)
    expect(apps).not.toContain(B.id)
  })
})

type Outcome = { ok: boolean; error?: string }

describe('dashboard server actions signed in as A, with B’s ids', () => {
  const form = (fields: Record<string, string>) => {
    const data = new FormData()
    for (const [name, value] of Object.entries(fields)) data.set(name, value)
    return data
  }

  interface ActionCase {
    what: string
    run: () => Promise<Outcome>
    /** The answer to A's owner. */
    error: string
    /** Owner-only: A's plain member is refused before any lookup, with this reason. */
    ownerOnly?: string
  }

  /** Every action that takes an id, called with B's ids; each must fail and touch nothing of B. */
  function actions(): ActionCase[] {
    const list: ActionCase[] = []
    const link = { provider: 'github', url: 'https://github.com/a/a/issues/1', identifier: '#1' }
    for (const issue of B.issues)
      list.push(
        {
          what: 'changeStatus',
          run: () => changeStatusAction(issue.id, null, form({ status: 'resolved' })),
          error: ISSUE_NOT_FOUND,
        },
        {
          what: 'linkTicket',
          run: () => linkTicketAction(issue.id, null, form(link)),
          error: ISSUE_NOT_FOUND,
        },
        { what: 'unlinkTicket', run: () => unlinkTicketAction(issue.id), error: ISSUE_NOT_FOUND },
        {
          what: 'addNote',
          run: () => addNoteAction(issue.id, null, form({ text: 'from A' })),
          error: ISSUE_NOT_FOUND,
        },
      )
    for (const signal of B.signals)
      list.push(
        { what: 'pauseSignal', run: () => pauseSignalAction(signal.id), error: SIGNAL_NOT_FOUND },
        { what: 'resumeSignal', run: () => resumeSignalAction(signal.id), error: SIGNAL_NOT_FOUND },
        { what: 'deleteSignal', run: () => deleteSignalAction(signal.id), error: SIGNAL_NOT_FOUND },
      )
    for (const key of Object.values(B.keys))
      list.push({
        what: `revokeKey ${key.type}`,
        run: () => revokeKeyAction(key.id),
        error: `Key not found: ${key.id}`,
        ownerOnly: 'revoke keys',
      })
    const notMember = 'That person is not a member of this organization.'
    list.push(
      {
        what: 'revokeWebhook',
        run: () => revokeWebhookAction(B.webhook.endpointId),
        error: `Webhook endpoint not found: ${B.webhook.endpointId}`,
        ownerOnly: 'manage webhooks',
      },
      {
        what: 'sendTestWebhook',
        run: () => sendTestWebhookAction(B.webhook.endpointId, 'issue.created'),
        error: 'Webhook endpoint not found',
        ownerOnly: 'manage webhooks',
      },
      {
        what: 'changeMemberRole (B owner)',
        run: () => changeMemberRoleAction(B.owner.id, 'member'),
        error: notMember,
        ownerOnly: 'change roles',
      },
      {
        what: 'changeMemberRole (B member)',
        run: () => changeMemberRoleAction(B.member.id, 'owner'),
        error: notMember,
        ownerOnly: 'change roles',
      },
      {
        what: 'removeMember (B member)',
        run: () => removeMemberAction(B.member.id),
        error: notMember,
        ownerOnly: 'remove members',
      },
      {
        what: 'removeMember (B owner)',
        run: () => removeMemberAction(B.owner.id),
        error: notMember,
        ownerOnly: 'remove members',
      },
      {
        what: 'revokeInvitation',
        run: () => revokeInvitationAction(B.invitation.id),
        error: 'This invitation is no longer pending: it was accepted or revoked already. Reload the page.',
        ownerOnly: 'revoke invitations',
      },
      {
        what: 'revokeConnectedApp',
        run: () => revokeConnectedAppAction(B.consentId),
        error: 'Connected app not found: it may already be disconnected.',
      },
    )
    // What A could learn of B's invitation is its id, at most its stored hash: neither is a link.
    const guesses: [string, string][] = [
      ['id', B.invitation.id],
      ['stored hash', hashToken(B.invitation.token)],
    ]
    for (const [label, token] of guesses)
      list.push(
        {
          what: `acceptInvitation (${label})`,
          run: () => acceptInvitationAction(token),
          error: INVALID_INVITATION,
        },
        {
          what: `createAccountFromInvitation (${label})`,
          run: () =>
            createAccountFromInvitationAction(token, { name: 'Mallory', password: 'long enough pw' }),
          error: INVALID_INVITATION,
        },
      )
    return list
  }

  it.each([
    ['A’s owner', () => A.owner.cookie, true],
    ['A’s member', async () => (await memberCookie(A)).cookie, false],
  ])('%s: every action on a B id fails with its “not found” answer', async (_who, cookie, owner) => {
    signedIn.cookie = await cookie()
    try {
      for (const { what, run, error, ownerOnly } of actions()) {
        const outcome = await run()
        expect(outcome, what).toEqual({
          ok: false,
          error: !owner && ownerOnly ? `Only organization owners can ${ownerOnly}.` : error,
        })
      }
    } finally {
      signedIn.cookie = ''
    }
    expect(deliveries).toEqual([])
  })

  it('even holding B’s real invitation link, A’s signed-in account cannot join B', async () => {
    signedIn.cookie = A.owner.cookie
    try {
      const outcome = await acceptInvitationAction(B.invitation.token)
      expect(outcome.ok).toBe(false)
      expect(outcome).toMatchObject({ error: expect.stringMatching(/^This invitation is for /) })
    } finally {
      signedIn.cookie = ''
    }
    const memberOf = await database.db.select().from(memberships).where(eq(memberships.userId, A.owner.id))
    expect(memberOf.map((m) => m.organizationId)).toEqual([A.id])
  })

  it('renaming acts on the signed-in owner’s organization only', async () => {
    signedIn.cookie = A.owner.cookie
    try {
      expect(await renameOrganizationAction(null, form({ name: 'Alpha renamed' }))).toMatchObject({
        ok: true,
      })
    } finally {
      signedIn.cookie = ''
    }
    const [b] = await database.db.select().from(organizations).where(eq(organizations.id, B.id))
    expect(b!.name).toBe('Beta')
  })

  it('only an instance operator changes a plan, and only of the organization they are signed in to', async () => {
    const planOf = async (id: string) =>
      (await database.db.select().from(organizations).where(eq(organizations.id, id)))[0]!.plan
    const [planA, planB] = [await planOf(A.id), await planOf(B.id)]
    const other = planA === 'paid' ? 'free' : 'paid'
    signedIn.cookie = A.owner.cookie
    try {
      expect(await changePlanAction(null, form({ plan: other }))).toEqual({
        ok: false,
        error: 'Only the instance operator can change plans (see docs/self-hosting.md).',
      })
      expect(await planOf(A.id)).toBe(planA)
      await database.db.update(users).set({ isOperator: true }).where(eq(users.id, A.owner.id))
      expect(await changePlanAction(null, form({ plan: 'gold' }))).toMatchObject({ ok: false })
      expect(await changePlanAction(null, form({ plan: other }))).toMatchObject({ ok: true })
      expect(await planOf(A.id)).toBe(other)
      expect(await planOf(B.id)).toBe(planB)
    } finally {
      signedIn.cookie = ''
      await database.db.update(users).set({ isOperator: false }).where(eq(users.id, A.owner.id))
      await database.db.update(organizations).set({ plan: planA }).where(eq(organizations.id, A.id))
    }
  })
})

describe('webhook domain functions with A’s organization and B’s endpoint', () => {
  it('revokeEndpoint and sendTestEvent answer not found; nothing is sent', async () => {
    await expect(
      revokeEndpoint(database.db, { id: B.webhook.endpointId, organizationId: A.id }),
    ).rejects.toThrow(NotFoundError)
    await expect(
      sendTestEvent(database.db, recordingDeliverer, createMemoryRateLimiter(), {
        organizationId: A.id,
        endpointId: B.webhook.endpointId,
        event: 'issue.created',
      }),
    ).rejects.toThrow('Webhook endpoint not found')
    expect(deliveries).toEqual([])
  })

  it('an event of A fans out to A’s endpoint only, never to B’s', async () => {
    const eventId = await enqueueEvent(database.db, {
      organizationId: A.id,
      name: EVENTS.issueCreated,
      payload: await issueEventData(database.db, A.issues[1]!.id),
    })
    const pending = await fanOutEvent(database.db, { eventId: eventId!, name: EVENTS.issueCreated })
    expect(pending).toHaveLength(1)
    const made = await database.db
      .select({ endpointId: webhookDeliveries.endpointId, organizationId: webhookDeliveries.organizationId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId!))
    expect(made).toEqual([{ endpointId: A.webhook.endpointId, organizationId: A.id }])
  })
})

/** The recorder's batch for one session id, as ingest accepts it. */
function batchFor(externalId: string, sequence: number) {
  const now = Date.now()
  return recorderBatches({
    sessionId: externalId,
    events: [{ type: 4, data: { href: 'http://127.0.0.1/', width: 1280, height: 800 }, timestamp: now }],
    firstSequence: sequence,
    final: false,
    user: { anonymousId: 'anon-isolation' },
  })[0]
}

describe('ingest with A’s key and B’s session ids', () => {
  it('creates or extends a session of A only; B’s session rows and blobs stay as they were', async () => {
    const db = database.db
    const [bSession] = await db.select().from(replaySessions).where(eq(replaySessions.id, B.sessions[0]!.id))
    // B's recorder id, and B's internal uuid used as a recorder id; sequence 0 and a new one.
    for (const externalId of [B.sessions[0]!.externalId, B.sessions[0]!.id])
      for (const sequence of [0, 7]) {
        const response = await sendBatch(batchFor(externalId, sequence), { key: A.keys.ingest.key })
        expect(response.status, `${externalId} #${sequence}`).toBe(200)
      }
    for (const externalId of [B.sessions[0]!.externalId, B.sessions[0]!.id]) {
      const [aSession] = await db
        .select()
        .from(replaySessions)
        .where(and(eq(replaySessions.organizationId, A.id), eq(replaySessions.externalId, externalId)))
      expect(aSession, externalId).toBeDefined()
      expect(aSession!.id).not.toBe(B.sessions[0]!.id)
      const batches = await db.select().from(replayBatches).where(eq(replayBatches.sessionId, aSession!.id))
      expect(batches.map((b) => b.sequence).sort()).toEqual([0, 7])
      for (const batch of batches) {
        expect(batch.organizationId).toBe(A.id)
        expect(batch.blobKey.startsWith(`orgs/${A.id}/`)).toBe(true)
      }
    }
    const [bAfter] = await db.select().from(replaySessions).where(eq(replaySessions.id, B.sessions[0]!.id))
    expect(bAfter).toEqual(bSession)
  })
})

async function cli(...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await runAdminCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    database,
  })
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') }
}

describe('admin CLI with A’s organization and B’s ids', () => {
  it('session:delete --org A --session <B session> is not found and deletes nothing', async () => {
    for (const session of B.sessions) {
      const result = await cli('session:delete', '--org', A.id, '--session', session.id, '--json')
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`No session ${session.id} in organization ${A.id}`)
    }
    const left = await database.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(eq(replaySessions.organizationId, B.id))
    expect(ids(left).sort()).toEqual(ids(B.sessions).sort())
    expect(await getBlobStore().list(`orgs/${B.id}/`)).toHaveLength(before.blobs!.length)
  })

  it('webhook:list --org A lists A’s endpoint only', async () => {
    const result = await cli('webhook:list', '--org', A.id, '--json')
    expect(result.code).toBe(0)
    expect(ids((JSON.parse(result.stdout) as Json).endpoints)).toEqual([A.webhook.endpointId])
  })
})

// Exports (issue 33): A's privacy key names B's person and gets an export of nothing; B's
// export ids do not exist for A; the dashboard's download is A's owner's only.
describe('exports of one person across organizations', () => {
  const EXPORTS = 'http://localhost:3000/api/v1/exports'
  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })
  const ndjson = async (response: Response) =>
    (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json)

  it('an export by A naming B’s person holds none of B’s sessions; A’s own person only A’s', async () => {
    const key = (await createKey(database.db, { organizationId: A.id, type: 'api', privacy: true })).key
    const exported: Record<string, string> = {}
    for (const tenant of [A, B]) {
      const anonymousId = `anon-${tenant.sessions[0]!.externalId}`
      const response = await postExportRoute(
        new Request(EXPORTS, { method: 'POST', headers: bearer(key), body: JSON.stringify({ anonymousId }) }),
      )
      expect(response.status).toBe(202)
      const id = ((await body(response)).export as { id: string }).id
      await runExport({ db: database.db, blobs: getBlobStore() }, { organizationId: A.id, exportId: id })
      exported[tenant.name] = id
    }
    const download = (id: string, token: string) =>
      getExportRoute(new Request(`${EXPORTS}/${id}?download=1`, { headers: bearer(token) }), {
        params: Promise.resolve({ exportId: id }),
      })
    const ofB = await ndjson(await download(exported[B.name]!, key))
    expect(ofB.filter((line) => line.type === 'session')).toEqual([])
    const ofA = await ndjson(await download(exported[A.name]!, key))
    expect(ofA.filter((line) => line.type === 'session').map((line) => (line.session as Json).id)).toEqual([
      A.sessions[0]!.id,
    ])
    const text = JSON.stringify([ofA, ofB])
    for (const [what, id] of bIds()) expect(text, what).not.toContain(id)

    // B's ids are not exports A can see (B's own privacy key is covered in privacy.export.test.ts:
    // making one here would change B).
    for (const [what, id] of bIds()) {
      const response = await getExportRoute(new Request(`${EXPORTS}/${id}`, { headers: bearer(key) }), {
        params: Promise.resolve({ exportId: id }),
      })
      expect(response.status, what).toBe(404)
    }

    // The dashboard's download: A's owner yes, A's member 403, B's owner 404, a bearer 401.
    const viaDashboard = (headers: Record<string, string>) =>
      dashboardExport(
        new Request(`http://localhost:3000/api/dashboard/exports/${exported[A.name]}`, { headers }),
        {
          params: Promise.resolve({ exportId: exported[A.name]! }),
        },
      )
    const owner = await viaDashboard({ cookie: A.owner.cookie })
    expect(owner.status).toBe(200)
    expect(owner.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const member = await viaDashboard((await memberCookie(A)) as Record<string, string>)
    expect(member.status).toBe(403)
    expect((await viaDashboard({ cookie: B.owner.cookie })).status).toBe(404)
    expect((await viaDashboard({ authorization: `Bearer ${key}` })).status).toBe(401)
  })
})

// Issue 33: the audit trail, retention and pins answer for A's organization only.
describe('audit trail, retention and pins with A’s keys and B’s ids', () => {
  const auditOf = (organizationId: string) =>
    database.db.select().from(auditEvents).where(eq(auditEvents.organizationId, organizationId))

  it('lists A’s entries only, pins none of B’s sessions, and sets A’s retention only', async () => {
    const bTrail = await auditOf(B.id)
    expect(bTrail.length).toBeGreaterThan(0) // B's keys were created: not vacuous
    const privacy = await createKey(database.db, { organizationId: A.id, type: 'api', privacy: true })
    const listed = await body(
      await auditEventsRoute(
        new Request('http://localhost:3000/api/v1/audit-events?limit=200', {
          headers: { authorization: `Bearer ${privacy.key}` },
        }),
      ),
    )
    const aTrail = ids(await auditOf(A.id))
    expect(ids(listed.events).sort()).toEqual(aTrail.sort())
    for (const id of ids(bTrail)) expect(ids(listed.events)).not.toContain(id)

    for (const [what, id] of bIds())
      for (const route of [pinRoute, unpinRoute]) {
        const response = await route(
          new Request(`http://localhost:3000/api/v1/sessions/${id}/pin`, {
            method: route === pinRoute ? 'PUT' : 'DELETE',
            headers: { authorization: `Bearer ${A.keys.apiWrite.key}` },
          }),
          { params: Promise.resolve({ sessionId: id }) },
        )
        expect(response.status, what).toBe(404)
        expect(await body(response), what).toEqual({ error: 'Session not found' })
      }

    const patch = (days: number) =>
      retentionRoute(
        new Request('http://localhost:3000/api/v1/retention', {
          method: 'PATCH',
          headers: { authorization: `Bearer ${privacy.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ days }),
        }),
      )
    const retentionOf = async (id: string) =>
      (await database.db.select().from(organizations).where(eq(organizations.id, id)))[0]!.retentionDays
    const [aDays, bDays] = [await retentionOf(A.id), await retentionOf(B.id)]
    expect((await patch(aDays + 1)).status).toBe(200)
    expect(await retentionOf(B.id)).toBe(bDays)
    expect((await patch(aDays)).status).toBe(200)
    expect(await auditOf(B.id)).toEqual(bTrail)
  })
})

// Issue 33: an erasure by A naming B's person erases nothing of B's (the snapshot below checks
// every row and file), and B's erasure ids are 404 to A.
describe('erasures across organizations', () => {
  it('A erasing B’s person by anonymous id removes nothing of B; A cannot read B’s erasure', async () => {
    const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })
    const aKey = (await createKey(database.db, { organizationId: A.id, type: 'api', privacy: true })).key
    // Another organization's key (not B's: B must stay as it was for the snapshot below).
    const other = await createOrganization(database.db, { name: 'Gamma' })
    const bKey = (await createKey(database.db, { organizationId: other.id, type: 'api', privacy: true })).key
    const anonymousId = `anon-${B.sessions[0]!.externalId}`
    const post = (key: string) =>
      postErasureRoute(
        new Request('http://localhost:3000/api/v1/erasures', {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ anonymousId }),
        }),
      )
    const response = await post(aKey)
    expect(response.status).toBe(202)
    const erasure = (await body(response)).erasure as { id: string }
    const done = await runErasure(
      { db: database.db, blobs: getBlobStore() },
      { organizationId: A.id, erasureId: erasure.id },
    )
    expect(done.counts.sessions ?? 0).toBe(0)
    const get = (key: string, erasureId: string) =>
      getErasureRoute(
        new Request(`http://localhost:3000/api/v1/erasures/${erasureId}`, { headers: bearer(key) }),
        {
          params: Promise.resolve({ erasureId }),
        },
      )
    expect((await get(aKey, erasure.id)).status).toBe(200)
    const theirs = await get(bKey, erasure.id)
    expect(theirs.status).toBe(404)
    expect(await body(theirs)).toEqual({ error: 'Erasure not found' })
  })
})

// Issue 33: a re-masking by A whose pattern also occurs in B's recordings rewrites A's sessions
// only (the snapshot below checks every row and file of B), and B cannot read A's re-masking.
describe('re-masking across organizations', () => {
  it('A re-masking a text B also recorded changes nothing of B; another organization cannot read it', async () => {
    const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' })
    const aKey = (await createKey(database.db, { organizationId: A.id, type: 'api', privacy: true })).key
    const other = await createOrganization(database.db, { name: 'Delta' })
    const otherKey = (await createKey(database.db, { organizationId: other.id, type: 'api', privacy: true }))
      .key
    const response = await postRemaskingRoute(
      new Request('http://localhost:3000/api/v1/remaskings', {
        method: 'POST',
        headers: bearer(aKey),
        body: JSON.stringify({ patterns: ['http'] }),
      }),
    )
    expect(response.status).toBe(202)
    const remasking = (await body(response)).remasking as { id: string }
    const counts = await runRemasking(
      { db: database.db, blobs: getBlobStore() },
      { organizationId: A.id, remaskingId: remasking.id },
    )
    expect(counts.strings).toBeGreaterThan(0) // A's own sessions were rewritten: not vacuous
    const get = (key: string) =>
      getRemaskingRoute(
        new Request(`http://localhost:3000/api/v1/remaskings/${remasking.id}`, { headers: bearer(key) }),
        { params: Promise.resolve({ remaskingId: remasking.id }) },
      )
    expect((await get(aKey)).status).toBe(200)
    const theirs = await get(otherKey)
    expect(theirs.status).toBe(404)
    expect(await body(theirs)).toEqual({ error: 'Re-masking not found' })
  })
})

// After the dashboard's checks of A's keys: this adds one.
describe('reporting a run with A’s reproduction result key', () => {
  const run = {
    status: 'passed',
    baseUrl: 'https://preview.alpha.example.com',
    release: '1.0.0',
    summary: 'from A',
  }
  let verificationKey: string
  beforeAll(async () => {
    verificationKey = (
      await createKey(database.db, {
        organizationId: A.id,
        type: 'api',
        verifications: true,
        sourcemaps: true,
      })
    ).key
  })

  it('a run posted on any B issue (or B id of another kind) is 404 Issue not found and stores nothing', async () => {
    for (const [what, id] of bIds()) {
      const response = await api.postVerification(verificationKey, id, run)
      expect(response.status, what).toBe(404)
      expect(await body(response), what).toEqual({ error: 'Issue not found' })
    }
    await expectBVerificationsUnchanged()
    await expectBIssuesUnchanged()
    // Not vacuous: the same key records a run on A's own issue.
    const own = await api.postVerification(verificationKey, A.issues[0]!.id, run)
    expect(own.status).toBe(201)
    const [stored] = await database.db
      .select()
      .from(issueVerifications)
      .where(eq(issueVerifications.id, ((await body(own)).verification as { id: string }).id))
    expect(stored).toMatchObject({ organizationId: A.id, issueId: A.issues[0]!.id })
  })
})

// After the dashboard's checks of A's keys: this adds one.
describe('declaring a release with A’s release key', () => {
  it('B’s release name becomes A’s own release; B’s is untouched (checked at the end)', async () => {
    const releaseKey = (await createKey(database.db, { organizationId: A.id, type: 'api', sourcemaps: true }))
      .key
    const response = await releasesApi.declare(releaseKey, {
      version: B.releases.own,
      deployedAt: '2026-01-01T00:00:00Z',
    })
    expect(response.status).toBe(201)
    expect((await body(response)).release).toMatchObject({ version: B.releases.own, sessions: 0 })
    const cursorOfB = (await body(await releasesApi.list(B.oauth.read.token, { limit: 1 }))).nextCursor
    const refused = await releasesApi.list(A.oauth.read.token, { limit: 1, cursor: String(cursorOfB) })
    expect(refused.status).toBe(400)
    expect(await body(refused)).toEqual({ error: INVALID_CURSOR })
  })
})

describe('B after the whole matrix', () => {
  it('every row and replay file of B is byte-for-byte what it was', async () => {
    const after = await snapshotTenant(database.db, getBlobStore(), B.id)
    // Not vacuous: B holds data of every kind.
    // No background engine runs in this file, so no job runs exist.
    for (const [table, rows] of Object.entries(snapshotSizes(before)))
      if (table !== 'jobRuns') expect(rows, table).toBeGreaterThan(0)
    expect(after).toEqual(before)
  })
})

// Documented, not forbidden: the admin CLI is the operator's tool with access to every
// organization, so key:revoke takes a bare key id and revokes B's key. It runs last because it
// changes B on purpose.
describe('admin CLI: the operator acts across organizations (by design)', () => {
  it('key:revoke --id <B key> revokes it; B’s Data API key stops working', async () => {
    const result = await cli('key:revoke', '--id', B.keys.apiRead.id, '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ id: B.keys.apiRead.id })
    const [row] = await database.db.select().from(credentials).where(eq(credentials.id, B.keys.apiRead.id))
    expect(row!.revokedAt).not.toBeNull()
    expect(await resolveBearer(database.db, `Bearer ${B.keys.apiRead.key}`)).toBeNull()
  })
})
