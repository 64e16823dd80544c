/**
 * Re-masking stored sessions (docs/privacy.md#re-masking, issue 33 item 3): a password that
 * the recorder's masking missed is planted in sessions' text nodes, input values, network
 * bodies, console messages, the processed timeline and the issues derived from them; a
 * re-masking by selector and one by pattern later, it is found nowhere — raw decrypted
 * blobs, the Data API, the replay's events, the database's derived rows — while the replays
 * still play, and the old data key no longer opens a copy of a blob taken before.
 */
import { randomUUID } from 'node:crypto'
import { and, eq, inArray } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { requestRemaskingAction, saveMaskSettingsAction } from '@/app/(dashboard)/settings/masking/actions'
import { GET as getReplayEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { GET as getRemaskingRoute } from '@/app/api/v1/remaskings/[remaskingId]/route'
import { POST as postRemaskingRoute } from '@/app/api/v1/remaskings/route'
import {
  auditEvents,
  issueSessions,
  issues,
  memberships,
  organizations,
  remaskings,
  replayBatches,
  replaySessions,
  sessionTimelineEntries,
  signalMatches,
  users,
} from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'
import { createKey } from '@/lib/credentials/create-key'
import { openBytes } from '@/lib/crypto/sealed'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { sessionKeysForRead } from '@/lib/sealing/data-keys'
import { openStoredBatch, readSessionEvents, sessionBatches } from '@/lib/sessions/read-events'
import { getBlobStore } from '@/lib/storage'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { ingestSession } from '../helpers/pipeline'
import { signedIn } from '../helpers/signed-in'
import { waitFor } from '../helpers/wait'

vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))
vi.mock('next/headers', () => ({
  headers: async () => new Headers({ 'x-forwarded-for': '203.0.113.7' }),
  cookies: async () => ({ get: () => undefined, getAll: () => [] }),
}))

const PASSWORD = 'Pl4nted-Passw0rd'
const BASE = 'http://localhost:3000'

let database: TestDatabase
let app: JobsEngine
let organizationId: string
let ingestKey: string
let privacyKey: string
let readKey: string
let ownerCookie: string
let memberCookie: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  privacyKey = (await createKey(database.db, { organizationId, type: 'api', privacy: true })).key
  readKey = (await createKey(database.db, { organizationId, type: 'api' })).key
  ownerCookie = await person('owner')
  memberCookie = await person('member')
  app = getJobsEngine()
  await app.start()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

async function person(role: 'owner' | 'member'): Promise<string> {
  const email = `${role}-${randomUUID()}@example.com`
  const [user] = await database.db.insert(users).values({ email, passwordHash: 'x', name: role }).returning()
  await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
  return `next-auth.session-token=${token}`
}

/** A login page whose password the recorder did not mask, in every place a recording keeps text. */
function leakyRecording(start: number): RrwebEvent[] {
  return new SessionBuilder(start)
    .load(
      `https://shop.example.com/login?pw=${PASSWORD}`,
      page([
        el(10, 'form', { class: 'login' }, [el(11, 'input', { type: 'text', name: 'pw', value: PASSWORD })]),
        el(12, 'div', { class: 'secret' }, [txt(13, `Your password is ${PASSWORD}`)]),
        el(14, 'button', { id: 'go' }, [txt(15, `Sign in with ${PASSWORD}`)]),
      ]),
    )
    .wait(400)
    .input(11, PASSWORD)
    .wait(300)
    .mutation({
      adds: [{ parentId: 12, nextId: null, node: el(16, 'span', {}, [txt(17, `again ${PASSWORD}`)]) }],
    })
    .text(13, `Still ${PASSWORD}`)
    .click(14)
    .wait(200)
    .console('error', [`login failed for ${PASSWORD}`])
    .request({
      url: `https://shop.example.com/api/login?token=${PASSWORD}`,
      method: 'POST',
      status: 500,
      details: {
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: JSON.stringify({ note: PASSWORD }),
        responseBody: `bad ${PASSWORD}`,
      },
    })
    .wait(1000)
    .mouseMove().events
}

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row
}

const processed = (externalId: string) =>
  waitFor(`${externalId} to be processed`, async () => {
    const row = await sessionRow(externalId)
    return row?.status === 'processed' ? row : undefined
  })

/** Every stored batch of a session, opened with the session's current key, as text. */
async function blobTexts(sessionId: string): Promise<string[]> {
  const texts: string[] = []
  for (const ref of await sessionBatches(database.db, sessionId)) {
    const stored = await getBlobStore().get(ref.blobKey)
    texts.push(Buffer.from(openStoredBatch(ref, stored!)).toString('utf8'))
  }
  return texts
}

async function replayEvents(sessionId: string): Promise<RrwebEvent[]> {
  signedIn.cookie = ownerCookie
  const response = await getReplayEvents(
    new Request(`${BASE}/api/dashboard/sessions/${sessionId}/events`, { headers: { cookie: ownerCookie } }),
    { params: Promise.resolve({ sessionId }) },
  )
  expect(response.status).toBe(200)
  return JSON.parse(await response.text()) as RrwebEvent[]
}

function postRemasking(token: string, body: unknown) {
  return postRemaskingRoute(
    new Request(`${BASE}/api/v1/remaskings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )
}

async function remaskingView(id: string) {
  const response = await getRemaskingRoute(
    new Request(`${BASE}/api/v1/remaskings/${id}`, { headers: { authorization: `Bearer ${privacyKey}` } }),
    { params: Promise.resolve({ remaskingId: id }) },
  )
  expect(response.status).toBe(200)
  return ((await response.json()) as { remasking: { status: string; counts: Record<string, number> } })
    .remasking
}

/** Runs a re-masking through the Data API and the jobs engine, for sessions received long enough ago to re-key. */
async function remask(body: Record<string, unknown>, settled = true) {
  if (settled)
    await database.db
      .update(replaySessions)
      .set({ lastReceivedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(replaySessions.organizationId, organizationId))
  const response = await postRemasking(privacyKey, body)
  expect(response.status).toBe(202)
  const { remasking } = (await response.json()) as { remasking: { id: string; status: string } }
  expect(remasking.status).toBe('pending')
  return waitFor(`re-masking ${remasking.id} to complete`, async () => {
    const view = await remaskingView(remasking.id)
    if (view.status === 'failed') throw new Error(`re-masking failed: ${JSON.stringify(view)}`)
    return view.status === 'completed' ? { id: remasking.id, ...view } : undefined
  })
}

/** Every place a session's recorded or derived text is read from, as one text. */
async function everything(sessionId: string): Promise<string> {
  const parts: string[] = [...(await blobTexts(sessionId))]
  parts.push(JSON.stringify(await replayEvents(sessionId)))
  parts.push(await (await api.getSession(privacyKey, sessionId)).text())
  parts.push(await (await api.sessionTimeline(privacyKey, sessionId, { windowMs: 600_000 })).text())
  const issueList = await (await api.listIssues(privacyKey)).text()
  parts.push(issueList)
  for (const issue of (JSON.parse(issueList) as { issues: { id: string }[] }).issues)
    parts.push(await (await api.getIssue(privacyKey, issue.id)).text())
  const db = database.db
  parts.push(
    JSON.stringify(
      await db.select().from(sessionTimelineEntries).where(eq(sessionTimelineEntries.sessionId, sessionId)),
    ),
  )
  parts.push(
    JSON.stringify(await db.select().from(issueSessions).where(eq(issueSessions.sessionId, sessionId))),
  )
  parts.push(
    JSON.stringify(await db.select().from(signalMatches).where(eq(signalMatches.sessionId, sessionId))),
  )
  parts.push(JSON.stringify(await db.select().from(issues).where(eq(issues.organizationId, organizationId))))
  parts.push(
    JSON.stringify(await db.select().from(replayBatches).where(eq(replayBatches.sessionId, sessionId))),
  )
  const { userProperties: _own, ...session } = (await sessionRow(
    (
      await db
        .select({ e: replaySessions.externalId })
        .from(replaySessions)
        .where(eq(replaySessions.id, sessionId))
    )[0]!.e,
  ))!
  parts.push(JSON.stringify(session))
  return parts.join('\n')
}

/** The replay's shape: event types in order and every FullSnapshot's node ids. */
function shape(events: RrwebEvent[]) {
  const ids = (node: unknown): number[] => {
    const n = node as { id?: number; childNodes?: unknown[] }
    return [n.id ?? -1, ...(n.childNodes ?? []).flatMap(ids)]
  }
  return {
    types: events.map((event) => event.type),
    snapshots: events
      .filter((event) => event.type === 2)
      .map((event) => ids((event.data as { node: unknown }).node)),
  }
}

describe('re-masking stored sessions', () => {
  const start = Date.now() - 5 * 60_000
  const range = {
    from: new Date(start - 3_600_000).toISOString(),
    to: new Date(Date.now() + 3_600_000).toISOString(),
  }
  let one: string
  let two: string
  let before: ReturnType<typeof shape>

  it('stores the planted password everywhere first (the leak the re-masking repairs)', async () => {
    await ingestSession(ingestKey, 'leaky-1', leakyRecording(start), { final: true, perBatch: 6 })
    await ingestSession(ingestKey, 'leaky-2', leakyRecording(start + 1000), { final: true, perBatch: 6 })
    one = (await processed('leaky-1')).id
    two = (await processed('leaky-2')).id
    const blobs = (await blobTexts(one)).join('\n')
    expect(blobs).toContain(`"value":"${PASSWORD}"`)
    expect(blobs).toContain(`"text":"${PASSWORD}"`)
    expect(blobs).toContain(`{\\"note\\":\\"${PASSWORD}\\"}`)
    const timeline = await (await api.sessionTimeline(privacyKey, one, { windowMs: 600_000 })).text()
    expect(timeline).toContain(PASSWORD)
    const evidence = await database.db.select().from(issueSessions).where(eq(issueSessions.sessionId, one))
    expect(JSON.stringify(evidence)).toContain(PASSWORD)
    before = shape(await replayEvents(one))
  })

  it('refuses bad rules with 400 and callers without rights with 403, storing nothing', async () => {
    const bad = [
      { selectors: ['a:hover'] },
      { selectors: ['a + b'] },
      { patterns: ['@password'] },
      { patterns: ['ab'] },
      { patterns: ['x'.repeat(201)] },
      { selectors: Array.from({ length: 21 }, (_, i) => `.c${i}`) },
      { selectors: 'form' },
      {},
      { patterns: ['hunter2'], from: 'yesterday' },
      { patterns: ['hunter2'], updateRecorder: 'yes' },
    ]
    for (const body of bad) {
      const response = await postRemasking(privacyKey, body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(((await response.json()) as { error: string }).error).toBeTruthy()
    }
    const forbidden = await postRemasking(readKey, { patterns: [PASSWORD] })
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toEqual({ error: 'Missing required scope: write:privacy' })
    const form = new FormData()
    form.set('patterns', PASSWORD)
    signedIn.cookie = memberCookie
    expect((await requestRemaskingAction(null, form)).ok).toBe(false)
    expect((await saveMaskSettingsAction(null, form)).ok).toBe(false)
    signedIn.cookie = ownerCookie
    const badForm = new FormData()
    badForm.set('selectors', 'input::before')
    expect(await requestRemaskingAction(null, badForm)).toMatchObject({ ok: false })
    expect(await database.db.select().from(remaskings)).toEqual([])
    const [org] = await database.db.select().from(organizations).where(eq(organizations.id, organizationId))
    expect(org!.maskSelectors).toEqual([])
    expect(org!.maskPatterns).toEqual([])
  })

  it('by selector: masks the matching elements’ text, values and inputs, also in nodes added later', async () => {
    const done = await remask({ selectors: ['form.login', 'div.secret'], ...range, updateRecorder: true })
    expect(done.counts).toMatchObject({ sessions: 2, sessionsChanged: 2, sessionsRekeyed: 2, inputs: 2 })
    expect(done.counts.texts).toBeGreaterThanOrEqual(6)
    const blobs = (await blobTexts(one)).join('\n')
    expect(blobs).not.toContain(`"value":"${PASSWORD}"`)
    expect(blobs).not.toContain(`"text":"${PASSWORD}"`)
    expect(blobs).not.toContain(`password is ${PASSWORD}`)
    expect(blobs).not.toContain(`again ${PASSWORD}`)
    expect(blobs).not.toContain(`Still ${PASSWORD}`)
    // Selectors describe recorded DOM only: the button outside them, the console and the network keep it.
    expect(blobs).toContain(`Sign in with ${PASSWORD}`)
    expect(shape(await replayEvents(one))).toEqual(before)
  })

  it('by pattern: the password is found nowhere, the replay still plays, and the old key opens no copy', async () => {
    const [first] = await sessionBatches(database.db, two)
    const copy = (await getBlobStore().get(first!.blobKey))!
    const oldKey = (await sessionKeysForRead(database.db, organizationId, ['leaky-2'])).get('leaky-2')!
    expect(() => openBytes(copy, oldKey)).not.toThrow()

    const done = await remask({ patterns: [PASSWORD], ...range })
    expect(done.counts.strings).toBeGreaterThan(0)
    expect(done.counts.timelineEntries).toBeGreaterThan(0)
    expect(done.counts.issueEvidence).toBeGreaterThan(0)
    expect(done.counts.sessionsRekeyed).toBe(2)

    for (const sessionId of [one, two]) {
      const text = await everything(sessionId)
      expect(text).not.toContain(PASSWORD)
      expect(text).toContain('*'.repeat(PASSWORD.length))
    }
    const events = await replayEvents(one)
    expect(shape(events)).toEqual(before)
    const network = events.find((event) => (event.data as { plugin?: string }).plugin === 'rrweb/network@1')!
    expect(JSON.stringify(network)).toContain(`{\\"note\\":\\"${'*'.repeat(PASSWORD.length)}\\"}`)

    // Re-keyed: the copy taken before is sealed under a key the database no longer holds.
    const newKey = (await sessionKeysForRead(database.db, organizationId, ['leaky-2'])).get('leaky-2')!
    expect(newKey.equals(oldKey)).toBe(false)
    expect(() => openBytes(copy, newKey)).toThrow()
    expect(await getBlobStore().get(first!.blobKey)).toBeNull()
    const events2: RrwebEvent[] = []
    for await (const event of readSessionEvents(getBlobStore(), await sessionBatches(database.db, two)))
      events2.push(event)
    expect(events2.length).toBe(before.types.length)

    // The finished re-masking keeps no literal, and neither does any audit entry.
    const [row] = await database.db.select().from(remaskings).where(eq(remaskings.id, done.id))
    expect(JSON.stringify(row)).not.toContain(PASSWORD)
  })

  it('records who asked and what changed in the audit trail', async () => {
    const entries = await database.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.organizationId, organizationId),
          inArray(auditEvents.action, ['remask.requested', 'remask.completed', 'masking.changed']),
        ),
      )
    const actions = entries.map((entry) => entry.action).sort()
    expect(actions).toEqual([
      'masking.changed',
      'remask.completed',
      'remask.completed',
      'remask.requested',
      'remask.requested',
    ])
    const requested = entries.filter((entry) => entry.action === 'remask.requested')
    expect(requested.every((entry) => entry.actorType === 'credential')).toBe(true)
    const changed = entries.find((entry) => entry.action === 'masking.changed')!
    expect(changed.metadata).toMatchObject({
      before: { selectors: [], patterns: [] },
      after: { selectors: ['form.login', 'div.secret'], patterns: [] },
    })
    expect(JSON.stringify(entries)).not.toContain(PASSWORD)
  })

  it('applies the organization’s settings at ingest from then on and hands the selectors to the recorder', async () => {
    signedIn.cookie = ownerCookie
    const form = new FormData()
    form.set('selectors', 'form.login\ndiv.secret')
    form.set('patterns', `${PASSWORD}\n@email`)
    expect(await saveMaskSettingsAction(null, form)).toMatchObject({ ok: true })
    const events = leakyRecording(Date.now() - 60_000)
    const batch = {
      session: {
        id: 'after-1',
        windowId: 'w1',
        startedAt: events[0]!.timestamp,
        lastActivityAt: events.at(-1)!.timestamp,
        url: 'https://shop.example.com/',
      },
      user: { anonymousId: 'anon-after' },
      page: { url: 'https://shop.example.com/', referrer: null },
      replay: { events, sequence: 0 },
    }
    const response = await sendBatch(batch, { key: ingestKey })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true, mask: { selectors: ['form.login', 'div.secret'] } })
    const stored = (await blobTexts((await sessionRow('after-1'))!.id)).join('\n')
    expect(stored).not.toContain(PASSWORD)
    expect(stored).toContain('login failed for ****************')
  })

  it('rewrites a session still receiving under the key it has, since other instances may hold it', async () => {
    const since = new Date(Date.now() - 30_000).toISOString()
    await ingestSession(ingestKey, 'recent-1', leakyRecording(Date.now() - 20_000), { perBatch: 6 })
    const id = (await sessionRow('recent-1'))!.id
    expect((await blobTexts(id)).join('\n')).toContain('Sign in with')
    const keyBefore = (await sessionKeysForRead(database.db, organizationId, ['recent-1'])).get('recent-1')!
    const done = await remask({ patterns: ['~SIGN IN WITH'], from: since }, false)
    expect(done.counts).toMatchObject({ sessions: 1, sessionsChanged: 1, sessionsKeptKey: 1 })
    expect((await blobTexts(id)).join('\n')).not.toContain('Sign in with')
    const keyAfter = (await sessionKeysForRead(database.db, organizationId, ['recent-1'])).get('recent-1')!
    expect(keyAfter.equals(keyBefore)).toBe(true)
  })
})
