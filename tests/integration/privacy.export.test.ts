import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GET as getExportRoute } from '@/app/api/v1/exports/[exportId]/route'
import { POST as postExportRoute } from '@/app/api/v1/exports/route'
import { auditEvents, dataExports, outbox, replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import type { RrwebEvent } from '@/lib/analysis/types'
import { createKey } from '@/lib/credentials/create-key'
import { isSealedBytes } from '@/lib/crypto/sealed'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { exportFolder } from '@/lib/privacy/export-file'
import { runExport } from '@/lib/privacy/export-run'
import { sweepExpiredExports } from '@/lib/privacy/export-sweep'
import { EXPORT_EXPIRED } from '@/lib/privacy/export-view'
import { sealPerson } from '@/lib/privacy/person'
import { PERSON_BODY_MESSAGE } from '@/lib/privacy/person-body'
import { getBlobStore } from '@/lib/storage'
import { recorderBatches } from '../helpers/batches'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

type Json = Record<string, unknown>
type Line = Json & { type: string; sessionId?: string }

let database: TestDatabase
let app: JobsEngine
let orgId: string
let privacyKey: string
let readKey: string
let otherOrgKey: string
const ADA = { id: 'user-ada-1', email: 'Ada.Lovelace@Example.com', marker: 'ADA-MARKER-7f3' }
const BOB = { id: 'user-bob-2', email: 'bob.builder@example.com', marker: 'BOB-MARKER-9c1' }

const BASE = 'http://localhost:3000'
const postExport = (token: string, body: unknown) =>
  postExportRoute(
    new Request(`${BASE}/api/v1/exports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
const getExport = (token: string, exportId: string, query = '') =>
  getExportRoute(
    new Request(`${BASE}/api/v1/exports/${encodeURIComponent(exportId)}${query}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { params: Promise.resolve({ exportId }) },
  )

/** A real recording with a custom event carrying the person's marker, so their data is recognisable. */
async function record(person: typeof ADA, sessionId: string) {
  const events = endingNow(loadRecording('js-error-after-click').events)
  const marker: RrwebEvent = {
    type: 5,
    data: { tag: 'note', payload: { text: person.marker } },
    timestamp: events.at(-1)!.timestamp,
  } as RrwebEvent
  const batches = recorderBatches({
    sessionId,
    events: [...events, marker],
    perBatch: 30,
    user: { anonymousId: `anon-${sessionId}`, id: person.id, properties: { email: person.email } },
  })
  const key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
  for (const batch of batches) expect((await sendBatch(batch, { key })).status).toBe(200)
}

const processed = (externalId: string) =>
  waitFor(`${externalId} to be processed`, async () => {
    const [row] = await database.db
      .select()
      .from(replaySessions)
      .where(and(eq(replaySessions.organizationId, orgId), eq(replaySessions.externalId, externalId)))
    return row?.status === 'processed' ? row : undefined
  })

const exportCount = async () => (await database.db.select({ n: count() }).from(dataExports))[0]!.n
const exportEvents = async () =>
  (await database.db.select({ n: count() }).from(outbox).where(eq(outbox.name, EVENTS.exportRequested)))[0]!.n

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Shop' })).id
  const other = (await createOrganization(database.db, { name: 'Other' })).id
  privacyKey = (await createKey(database.db, { organizationId: orgId, type: 'api', privacy: true })).key
  readKey = (await createKey(database.db, { organizationId: orgId, type: 'api', write: true })).key
  otherOrgKey = (await createKey(database.db, { organizationId: other, type: 'api', privacy: true })).key
  app = getJobsEngine()
  await app.start()
  await record(ADA, 'ada-s1')
  await record(ADA, 'ada-s2')
  await record(BOB, 'bob-s1')
  for (const id of ['ada-s1', 'ada-s2', 'bob-s1']) await processed(id)
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

describe('exports of one person (access requests)', () => {
  let exportId: string
  let lines: Line[]
  let text: string

  it('queues an export named by e-mail (any case) with 202 and an audit entry that does not name the person', async () => {
    const response = await postExport(privacyKey, { email: 'ada.lovelace@example.com' })
    expect(response.status).toBe(202)
    const { export: queued } = (await response.json()) as { export: Json & { id: string } }
    expect(queued).toMatchObject({ status: 'pending', personKind: 'email', downloadUrl: null })
    expect(Date.parse(queued.expiresAt as string) - Date.now()).toBeGreaterThan(6 * 86_400_000)
    exportId = queued.id
    const [audit] = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'export.requested'), eq(auditEvents.targetId, exportId)))
    expect(audit).toMatchObject({ organizationId: orgId, actorType: 'credential', targetType: 'export' })
    expect(JSON.stringify(audit!.metadata).toLowerCase()).not.toContain('ada')
  })

  it('runs the job and reports the counts when completed', async () => {
    const done = await waitFor('export to complete', async () => {
      const response = await getExport(privacyKey, exportId)
      const body = (await response.json()) as { export: Json }
      return body.export.status === 'completed' ? body.export : undefined
    })
    expect(done).toMatchObject({
      truncated: false,
      downloadUrl: `/api/v1/exports/${exportId}?download=1`,
      counts: expect.objectContaining({ sessions: 2, unreadableSessions: 0 }),
    })
    expect((done.counts as Json).events as number).toBeGreaterThan(10)
  })

  it('streams NDJSON with only that person’s sessions, events, timelines and issues', async () => {
    const response = await getExport(privacyKey, exportId, '?download=1')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="export-${exportId}.ndjson"`,
    )
    expect(response.headers.get('cache-control')).toBe('no-store')
    text = await response.text()
    expect(Buffer.byteLength(text)).toBe(Number(response.headers.get('content-length')))
    lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Line)
    expect(lines[0]).toMatchObject({
      type: 'header',
      exportId,
      person: { kind: 'email' },
      counts: { sessions: 2 },
    })
    expect(lines[0]!.redaction).toMatch(/^As stored/)
    expect(lines.at(-1)).toMatchObject({ type: 'end', truncated: false })

    const ada = await database.db.select().from(replaySessions).where(eq(replaySessions.userId, ADA.id))
    const bob = await database.db.select().from(replaySessions).where(eq(replaySessions.userId, BOB.id))
    const adaIds = ada.map((s) => s.id).sort()
    const sessions = lines.filter((l) => l.type === 'session').map((l) => (l.session as Json).id)
    expect([...sessions].sort()).toEqual(adaIds)
    for (const kind of ['event', 'timeline', 'issue']) {
      const ofKind = lines.filter((l) => l.type === kind)
      expect(ofKind.length, kind).toBeGreaterThan(0)
      expect(new Set(ofKind.map((l) => l.sessionId)), kind).toEqual(new Set(adaIds))
    }
    expect(lines.find((l) => l.type === 'issue')).toMatchObject({
      issue: { kind: 'js_error' },
      occurrences: expect.any(Number),
    })
    expect(text).toContain(ADA.marker)
    expect(text).toContain(ADA.email)
    // Nothing of the other person, though both were seen in the same issue.
    for (const leak of [BOB.marker, BOB.email, BOB.id, 'bob-s1', ...bob.map((s) => s.id)])
      expect(text).not.toContain(leak)
  })

  it('stores the file sealed with its own key, and audits each download', async () => {
    const blobs = getBlobStore()
    const keys = await blobs.list(exportFolder(orgId, exportId))
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      const stored = (await blobs.get(key))!
      expect(isSealedBytes(stored)).toBe(true)
      expect(Buffer.from(stored).toString('latin1')).not.toContain(ADA.marker)
    }
    const [row] = await database.db.select().from(dataExports).where(eq(dataExports.id, exportId))
    expect(row!.wrappedKey).toMatch(/^v1\./)
    expect(row!.personSealed).not.toContain('ada')
    const downloads = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'export.downloaded'), eq(auditEvents.targetId, exportId)))
    expect(downloads).toHaveLength(1)
    expect(JSON.stringify(downloads[0]!.metadata)).not.toContain('ada')
  })

  it('is not found from another organization, and 409 while not completed', async () => {
    expect((await getExport(otherOrgKey, exportId)).status).toBe(404)
    expect((await getExport(otherOrgKey, exportId, '?download=1')).status).toBe(404)
    const [pending] = await database.db
      .insert(dataExports)
      .values({
        organizationId: orgId,
        personKind: 'user_id',
        personSealed: sealPerson({ kind: 'user_id', value: ADA.id }),
        requestedByType: 'system',
        expiresAt: new Date(Date.now() + 86_400_000),
      })
      .returning()
    const early = await getExport(privacyKey, pending!.id, '?download=1')
    expect(early.status).toBe(409)
    expect(await early.json()).toEqual({ error: expect.stringContaining('not ready') })
  })

  it('stops at its size bound with a line saying so', async () => {
    const [row] = await database.db
      .insert(dataExports)
      .values({
        organizationId: orgId,
        personKind: 'user_id',
        personSealed: sealPerson({ kind: 'user_id', value: ADA.id }),
        requestedByType: 'system',
        expiresAt: new Date(Date.now() + 86_400_000),
      })
      .returning()
    // Half of the whole file: the first session fits, the second is cut.
    const maxBytes = Math.floor(Buffer.byteLength(text) / 2)
    const outcome = await runExport(
      { db: database.db, blobs: getBlobStore() },
      { organizationId: orgId, exportId: row!.id },
      { maxBytes, partBytes: 4 * 1024 },
    )
    expect(outcome).toMatchObject({ status: 'completed', counts: { truncated: 1 } })
    if (outcome.status !== 'completed') return
    expect(outcome.byteSize).toBeLessThanOrEqual(maxBytes)
    expect(outcome.parts).toBeGreaterThan(1)
    const file = await (await getExport(privacyKey, row!.id, '?download=1')).text()
    const parsed = file
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line)
    expect(parsed.at(-2)).toMatchObject({ type: 'truncated' })
    expect(parsed.at(-1)).toMatchObject({ type: 'end', truncated: true })
    const view = (await (await getExport(privacyKey, row!.id)).json()) as { export: Json }
    expect(view.export.truncated).toBe(true)
  })

  it('deletes the file, its key and the person when it expires; then answers 404 saying so', async () => {
    const blobs = getBlobStore()
    const swept = await sweepExpiredExports(database.db, blobs, new Date(Date.now() + 8 * 86_400_000))
    expect(swept.exports).toBeGreaterThanOrEqual(1)
    expect(await blobs.list(exportFolder(orgId, exportId))).toEqual([])
    const [row] = await database.db.select().from(dataExports).where(eq(dataExports.id, exportId))
    expect(row).toMatchObject({ personSealed: null, wrappedKey: null, kekId: null, blobKey: null })
    // What the sweep read as expired is also expired for readers once its time has come.
    await database.db
      .update(dataExports)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(dataExports.id, exportId))
    for (const query of ['', '?download=1']) {
      const response = await getExport(privacyKey, exportId, query)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: EXPORT_EXPIRED })
    }
  })

  it('refuses a key without write:privacy with 403', async () => {
    const post = await postExport(readKey, { email: ADA.email })
    expect(post.status).toBe(403)
    expect(await post.json()).toEqual({ error: 'Missing required scope: write:privacy' })
    expect((await getExport(readKey, exportId)).status).toBe(403)
  })

  it('refuses a body that does not name exactly one person with 400, storing nothing', async () => {
    const before = { exports: await exportCount(), events: await exportEvents() }
    const bodies: unknown[] = [
      {},
      { email: ADA.email, userId: ADA.id },
      { mail: ADA.email },
      { email: '' },
      { email: 42 },
      { email: 'x'.repeat(513) },
      [],
      'null',
      '{"email":',
    ]
    for (const body of bodies) {
      const response = await postExport(privacyKey, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      const answer = (await response.json()) as Json
      expect(typeof answer.error).toBe('string')
    }
    expect(await (await postExport(privacyKey, { userId: ' ' })).json()).toEqual({
      error: PERSON_BODY_MESSAGE,
    })
    expect({ exports: await exportCount(), events: await exportEvents() }).toEqual(before)
  })
})
