import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GET as dashboardEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { GET as getErasureRoute } from '@/app/api/v1/erasures/[erasureId]/route'
import { GET as listErasuresRoute, POST as postErasure } from '@/app/api/v1/erasures/route'
import { GET as getExportRoute } from '@/app/api/v1/exports/[exportId]/route'
import { POST as postExportRoute } from '@/app/api/v1/exports/route'
import {
  auditEvents,
  erasures,
  insights,
  issueSessions,
  issues,
  replayBatches,
  replaySessions,
  sessionDataKeys,
  webhookDeliveries,
  webhookEndpoints,
} from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { runAdminCli } from '@/inngest/cli'
import { createKey } from '@/lib/credentials/create-key'
import { openBytes } from '@/lib/crypto/sealed'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { PERSON_BODY_MESSAGE } from '@/lib/privacy/person-body'
import { unwrapDataKey } from '@/lib/sealing/data-keys'
import { createBlobStore, getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { S3BlobStore } from '@/lib/storage/s3'
import { dashboardMember, ingestAs, type SeedUser } from '../helpers/dashboard-session'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { type S3Server, startS3Server } from '../helpers/s3-server'
import { waitFor } from '../helpers/wait'

/**
 * Erasure of one person (docs/privacy.md#erasure), end to end: three people recorded through
 * the ingest route and processed into issues (Ada and Bob share one), Ada erased by e-mail
 * through the Data API and the job, then every surface asked for anything of hers, and her
 * blobs — including a copy taken before — tried with every data key the database still holds.
 * Run on the local and the S3 store; the suite's second pass runs it on Postgres.
 */
let database: TestDatabase
let adaExport: string
let engine: JobsEngine
let mcp: McpTestServer
let s3: S3Server
const BASE = 'http://localhost:3000/api/v1/erasures'

const ADA: SeedUser = { id: 'user-ada', email: 'ada@example.com', name: 'Ada Lovelace' }
const BOB: SeedUser = { id: 'user-bob', email: 'bob@example.com', name: 'Bob' }
const CY: SeedUser = { id: 'user-cy', email: 'cy@example.com', name: 'Cy' }

const post = (token: string, body: unknown) =>
  postErasure(
    new Request(BASE, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
const getOne = (token: string, erasureId: string) =>
  getErasureRoute(new Request(`${BASE}/${erasureId}`, { headers: { authorization: `Bearer ${token}` } }), {
    params: Promise.resolve({ erasureId }),
  })
const list = (token: string) =>
  listErasuresRoute(new Request(BASE, { headers: { authorization: `Bearer ${token}` } }))
const EXPORTS = 'http://localhost:3000/api/v1/exports'
const requestExportOf = (token: string, body: unknown) =>
  postExportRoute(
    new Request(EXPORTS, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )
const getExport = (token: string, exportId: string, query = '') =>
  getExportRoute(
    new Request(`${EXPORTS}/${exportId}${query}`, { headers: { authorization: `Bearer ${token}` } }),
    { params: Promise.resolve({ exportId }) },
  )
async function completedExport(token: string, body: unknown): Promise<string> {
  const response = await requestExportOf(token, body)
  expect(response.status).toBe(202)
  const exportId: string = (await response.json()).export.id
  await waitFor('the export to complete', async () => {
    const view = (await (await getExport(token, exportId)).json()).export
    return view?.status === 'completed' ? view : undefined
  })
  return exportId
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  engine = getJobsEngine()
  await engine.start()
  mcp = await startMcpServer()
  s3 = await startS3Server()
  process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId
  process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey
})
afterAll(async () => {
  await engine?.stop()
  await mcp?.close()
  await s3?.stop()
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database?.close()
})

async function processed(sessionId: string) {
  await waitFor(`session ${sessionId} processed`, async () => {
    const [row] = await database.db
      .select({ status: replaySessions.status })
      .from(replaySessions)
      .where(eq(replaySessions.id, sessionId))
    return row?.status === 'processed'
  })
}

async function record(key: string, externalId: string, recording: string, user: SeedUser) {
  const id = await ingestAs(database.db, key, externalId, endingNow(loadRecording(recording).events), {
    user,
    final: true,
  })
  await processed(id)
  return id
}

const issueOf = async (sessionId: string) =>
  (
    await database.db
      .select({ id: issueSessions.issueId })
      .from(issueSessions)
      .where(eq(issueSessions.sessionId, sessionId))
  ).map((row) => row.id)

describe.each(['local', 's3'] as const)('erasing one person on %s storage', (storage) => {
  let organizationId: string
  let ingestKey: string
  let readKey: string
  let privacyKey: string
  let localRoot: string | undefined
  const ada: string[] = []
  const adaExternal = ['ada-1', 'ada-2']
  let bob: string
  let cy: string
  let shared: string
  let adaOnly: string
  let cyIssue: string
  let erasureId: string
  const copies: { key: string; bytes: Uint8Array }[] = []
  let insightId: string
  let deliveryId: string

  beforeAll(async () => {
    if (storage === 'local') {
      localRoot = mkdtempSync(path.join(tmpdir(), 'erasure-blobs-'))
      setBlobStoreForTests(createBlobStore({ kind: 'local', root: localRoot }))
    } else
      setBlobStoreForTests(
        new S3BlobStore({
          kind: 's3',
          bucket: s3.bucket,
          region: s3.region,
          endpoint: s3.endpoint,
          forcePathStyle: true,
        }),
      )
    organizationId = (await createOrganization(database.db, { name: `Erasure ${storage}` })).id
    ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
    readKey = (await createKey(database.db, { organizationId, type: 'api', write: true })).key
    privacyKey = (await createKey(database.db, { organizationId, type: 'api', privacy: true })).key
    // Ada first, so the shared issue was created from her session (its description, steps and
    // replay link are hers and must be re-derived from Bob's).
    ada.push(await record(ingestKey, adaExternal[0]!, 'same-error-3-sessions-1', ADA))
    bob = await record(ingestKey, 'bob-1', 'same-error-3-sessions-2', BOB)
    ada.push(await record(ingestKey, adaExternal[1]!, 'rage-click', ADA))
    cy = await record(ingestKey, 'cy-1', 'network-500', CY)
    const [adaIssues, bobIssues, adaSecond] = [
      await issueOf(ada[0]!),
      await issueOf(bob),
      await issueOf(ada[1]!),
    ]
    shared = adaIssues.find((id) => bobIssues.includes(id))!
    adaOnly = adaSecond.find((id) => !bobIssues.includes(id))!
    cyIssue = (await issueOf(cy))[0]!
    expect(shared && adaOnly && cyIssue).toBeTruthy()

    // A copy of each of Ada's stored batches, taken before the erasure (a backup, an S3 version).
    const blobs = await database.db
      .select({ key: replayBatches.blobKey })
      .from(replayBatches)
      .where(inArray(replayBatches.sessionId, ada))
    for (const { key } of blobs) copies.push({ key, bytes: (await getBlobStore().get(key))! })
    expect(copies.length).toBeGreaterThan(0)
    // An access request answered before the erasure, naming her by another identifier.
    adaExport = await completedExport(privacyKey, { userId: ADA.id })
    // An insight of the interval her sessions were created in, and a webhook still retrying.
    const now = Date.now()
    insightId = (
      await database.db
        .insert(insights)
        .values({
          organizationId,
          intervalStart: new Date(now - 3_600_000),
          intervalEnd: new Date(now + 3_600_000),
          sessionsCount: 4,
          content: 'Checkout errors',
          contentPreview: 'Checkout errors',
        })
        .returning()
    )[0]!.id
    const [endpoint] = await database.db
      .insert(webhookEndpoints)
      .values({
        organizationId,
        name: 'hook',
        url: 'https://hooks.example.com/x',
        events: ['issue.created'],
        secretCiphertext: 'x',
        secretPrefix: 'whsec_x',
      })
      .returning()
    deliveryId = (
      await database.db
        .insert(webhookDeliveries)
        .values({
          endpointId: endpoint!.id,
          organizationId,
          eventId: crypto.randomUUID(),
          eventType: 'issue.created',
          body: JSON.stringify({ data: { issueId: adaOnly, previewUrl: `/issues/x?session=${ada[1]}` } }),
          status: 'pending',
          attempts: 2,
        })
        .returning()
    )[0]!.id
  })
  afterAll(() => {
    if (localRoot) rmSync(localRoot, { recursive: true, force: true })
  })

  it('refuses keys without write:privacy and bodies that do not name one person, storing nothing', async () => {
    for (const response of [
      await post(readKey, { email: ADA.email }),
      await list(readKey),
      await getOne(readKey, crypto.randomUUID()),
    ]) {
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ error: 'Missing required scope: write:privacy' })
    }
    for (const body of [
      {},
      { email: ADA.email, userId: ADA.id },
      { emial: ADA.email },
      { email: '' },
      { email: 'x'.repeat(600) },
      { email: 42 },
      [ADA.email],
    ]) {
      const response = await post(privacyKey, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(await response.json()).toEqual({ error: PERSON_BODY_MESSAGE })
    }
    const bad = await post(privacyKey, '{"email":')
    expect(bad.status).toBe(400)
    expect(
      await database.db.select().from(erasures).where(eq(erasures.organizationId, organizationId)),
    ).toEqual([])
  })

  it('erases Ada by e-mail through the Data API and the job, and reports its counts', async () => {
    const response = await post(privacyKey, { email: 'ADA@example.com' })
    expect(response.status).toBe(202)
    const { erasure } = await response.json()
    expect(erasure).toMatchObject({ status: expect.any(String), personKind: 'email', completedAt: null })
    expect(new Date(erasure.dueAt).getTime() - new Date(erasure.createdAt).getTime()).toBe(24 * 3_600_000)
    erasureId = erasure.id
    const done = await waitFor('the erasure to complete', async () => {
      const body = await (await getOne(privacyKey, erasureId)).json()
      return body.erasure.status === 'completed' ? body.erasure : undefined
    })
    expect(done.counts).toMatchObject({
      sessions: 2,
      issuesDeleted: 1,
      issuesUpdated: 1,
      insightsRedacted: 1,
      exportsDeleted: 1,
    })
    expect(done.counts.blobs).toBeGreaterThanOrEqual(copies.length)
    expect(done.startedAt).not.toBeNull()
    const listed = await (await list(privacyKey)).json()
    expect(listed.erasures.map((e: { id: string }) => e.id)).toEqual([erasureId])
    const [row] = await database.db.select().from(erasures).where(eq(erasures.id, erasureId))
    expect(row!.personSealed).toBeNull()
    const audit = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, organizationId), eq(auditEvents.targetId, erasureId)))
    expect(audit.map((entry) => entry.action).sort()).toEqual(['erasure.completed', 'erasure.requested'])
    expect(JSON.stringify(audit).toLowerCase()).not.toContain('ada@example.com')
  })

  const secrets = () => [...ada, ...adaExternal, ADA.email!, ADA.id!, ADA.name!, adaOnly]
  function expectNothingOfAda(text: string, where: string) {
    for (const secret of secrets())
      expect(text.toLowerCase(), `${where} names ${secret}`).not.toContain(secret.toLowerCase())
  }

  it('leaves nothing of Ada in any Data API, MCP or dashboard answer', async () => {
    const answers: [string, Response][] = [
      ['sessions', await api.listSessions(readKey, { automation: 'include' })],
      ['sessions by e-mail', await api.listSessions(readKey, { email: ADA.email! })],
      ['issues', await api.listIssues(readKey)],
      ['shared issue', await api.getIssue(readKey, shared)],
      ['shared reproduction', await api.getReproduction(readKey, shared)],
      ['insights', await api.listInsights(readKey)],
      ['signals', await api.listSignals(readKey)],
    ]
    for (const [where, response] of answers) expectNothingOfAda(await response.text(), where)
    for (const id of ada) {
      expect((await api.getSession(readKey, id)).status).toBe(404)
      expect((await api.sessionTimeline(readKey, id)).status).toBe(404)
    }
    expect((await api.getIssue(readKey, adaOnly)).status).toBe(404)
    const member = await dashboardMember(database.db, organizationId)
    for (const id of ada) {
      const events = await dashboardEvents(
        new Request(`http://localhost:3000/api/dashboard/sessions/${id}/events`, {
          headers: { cookie: member.cookie },
        }),
        { params: Promise.resolve({ sessionId: id }) },
      )
      expect(events.status).toBe(404)
    }
    const agent: Client = await connectClient(mcp.url, readKey)
    try {
      for (const [name, args] of [
        ['list_sessions', {}],
        ['list_issues', {}],
        ['get_issue', { issueId: shared }],
        ['get_issue_reproduction', { issueId: shared }],
        ['get_session', { sessionId: ada[0] }],
        ['get_issue', { issueId: adaOnly }],
      ] as const) {
        const result = (await agent.callTool({ name, arguments: args })) as CallToolResult
        expectNothingOfAda(`${textOf(result)}${JSON.stringify(result.structuredContent ?? {})}`, name)
      }
    } finally {
      await agent.close()
    }
  })

  it('takes her earlier export with her, and a later export of Bob holds nothing of hers', async () => {
    const download = await getExport(privacyKey, adaExport, '?download=1')
    expect(download.status).toBe(404)
    expect(await getBlobStore().list(`orgs/${organizationId}/exports/${adaExport}/`)).toEqual([])
    const bobExport = await completedExport(privacyKey, { email: BOB.email })
    const file = await getExport(privacyKey, bobExport, '?download=1')
    expect(file.status).toBe(200)
    const text = await file.text()
    expect(text).toContain(BOB.email)
    expectNothingOfAda(text, 'an export of Bob')
  })

  it('makes every blob of hers unreadable, a copy taken before included, with any key the database holds', async () => {
    for (const copy of copies) expect(await getBlobStore().get(copy.key)).toBeNull()
    const keyRows = await database.db.select().from(sessionDataKeys)
    expect(
      keyRows.filter((row) => adaExternal.includes(row.externalId) && row.organizationId === organizationId),
    ).toEqual([])
    expect(keyRows.length).toBeGreaterThan(0)
    for (const copy of copies)
      for (const row of keyRows)
        expect(() => openBytes(copy.bytes, unwrapDataKey(row.wrappedKey, row.kekId))).toThrow()
  })

  it('keeps the other people’s issues, counts and replays, re-derives the shared issue and silences messages', async () => {
    const [sharedRow] = await database.db.select().from(issues).where(eq(issues.id, shared))
    expect(sharedRow!.sessionCount).toBe(1)
    expect(sharedRow!.previewUrl).toContain(`session=${bob}`)
    const [cyRow] = await database.db.select().from(issues).where(eq(issues.id, cyIssue))
    expect(cyRow!.sessionCount).toBe(1)
    for (const id of [bob, cy]) {
      expect((await api.getSession(readKey, id)).status).toBe(200)
      const member = await dashboardMember(database.db, organizationId)
      const events = await dashboardEvents(
        new Request(`http://localhost:3000/api/dashboard/sessions/${id}/events`, {
          headers: { cookie: member.cookie },
        }),
        { params: Promise.resolve({ sessionId: id }) },
      )
      expect(events.status).toBe(200)
      expect((await events.text()).length).toBeGreaterThan(100)
    }
    const [insight] = await database.db.select().from(insights).where(eq(insights.id, insightId))
    expect(insight!.redactedAt).not.toBeNull()
    // The Data API says so too (an additive field).
    const listed = (await (await api.listInsights(readKey)).json()) as {
      insights: { id: string; redactedAt: string | null }[]
    }
    expect(listed.insights.find((i) => i.id === insightId)?.redactedAt).toBe(
      insight!.redactedAt!.toISOString(),
    )
    const [delivery] = await database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryId))
    expect(delivery!.status).toBe('cancelled')
    expectNothingOfAda(delivery!.body, 'the stored webhook body')
  })

  it('erases a session that arrives later with admin privacy:erase --wait, and answers another org 404', async () => {
    const late = await record(ingestKey, 'ada-3', 'clean', ADA)
    const out: string[] = []
    const code = await runAdminCli(
      ['privacy:erase', '--org', organizationId, '--user-id', ADA.id!, '--wait', '--json'],
      { stdout: (line) => out.push(line), stderr: (line) => out.push(line), env: {}, database },
    )
    expect(code).toBe(0)
    expect(JSON.parse(out.join('\n')).erasure).toMatchObject({ status: 'completed' })
    expect((await api.getSession(readKey, late)).status).toBe(404)
    const other = await createOrganization(database.db, { name: `Other ${storage}` })
    const theirs = (await createKey(database.db, { organizationId: other.id, type: 'api', privacy: true }))
      .key
    const response = await getOne(theirs, erasureId)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'Erasure not found' })
  })
})
