import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { GET } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { replayBatches } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { dashboardMember, ingestAs } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let orgId: string
let sessionId: string
let foreignSessionId: string
let member: { id: string; cookie: string }
const recording = loadRecording('multi-page')

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Shop' })).id
  const otherOrg = (await createOrganization(database.db, { name: 'Other' })).id
  const key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
  const otherKey = (await createKey(database.db, { organizationId: otherOrg, type: 'ingest' })).key
  // Not flushed as final: the player replays sessions that are still being recorded too.
  sessionId = await ingestAs(database.db, key, 'route-multi-page', recording.events, { final: false })
  foreignSessionId = await ingestAs(database.db, otherKey, 'route-foreign', recording.events, {
    final: false,
  })
  member = await dashboardMember(database.db, orgId)
})
afterEach(() => setBlobStoreForTests(undefined))
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const URL_BASE = 'http://localhost:3000/api/dashboard/sessions'

function getEvents(id: string, cookie?: string): Promise<Response> {
  return GET(new Request(`${URL_BASE}/${id}/events`, { headers: cookie ? { cookie } : {} }), {
    params: Promise.resolve({ sessionId: id }),
  })
}

describe('GET /api/dashboard/sessions/{id}/events', () => {
  it("streams the session's events in order, across batches, uncached", async () => {
    const batches = await database.db
      .select()
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, sessionId))
    expect(batches.length).toBeGreaterThan(1)
    const response = await getEvents(sessionId, member.cookie)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    expect(response.body).toBeInstanceOf(ReadableStream)
    expect(await response.json()).toEqual(recording.events)
  })

  it('sends a long session in several chunks that join into the whole array', async () => {
    const key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
    // The recording twice over (the second copy a minute later): well over one 64 KiB chunk of JSON.
    const once = loadRecording('periodic-snapshots').events
    const long = [...once, ...once.map((event) => ({ ...event, timestamp: event.timestamp + 60_000 }))]
    const id = await ingestAs(database.db, key, 'route-long', long, { final: false })
    const response = await getEvents(id, member.cookie)
    const reader = response.body!.getReader()
    const chunks: Uint8Array[] = []
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value)
    expect(chunks.length).toBeGreaterThan(1)
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toEqual(long)
  })

  it('answers 401 when signed out or with a forged cookie', async () => {
    for (const cookie of [undefined, 'next-auth.session-token=forged']) {
      const response = await getEvents(sessionId, cookie)
      expect(response.status).toBe(401)
      expect(response.headers.get('cache-control')).toBe('private, no-store')
      expect(await response.json()).toEqual({ error: 'Your session has ended. Sign in again.' })
    }
  })

  it("answers 404 for another organization's session, an unknown id and a malformed id", async () => {
    for (const id of [foreignSessionId, '00000000-0000-4000-8000-000000000000', 'not-a-session']) {
      const response = await getEvents(id, member.cookie)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Session not found' })
    }
  })

  it('answers a member of the other organization only their own session', async () => {
    const [batch] = await database.db
      .select({ organizationId: replayBatches.organizationId })
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, foreignSessionId))
    const other = await dashboardMember(database.db, batch!.organizationId)
    expect((await getEvents(foreignSessionId, other.cookie)).status).toBe(200)
    expect((await getEvents(sessionId, other.cookie)).status).toBe(404)
  })

  it('answers an empty array for a session whose batches held no events', async () => {
    const key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
    // A stored batch whose event list is empty (the ingest route refuses such a batch).
    const id = await ingestAs(database.db, key, 'route-empty', recording.events.slice(0, 2), { final: false })
    setBlobStoreForTests(
      withGet(getBlobStore(), async () =>
        new TextEncoder().encode(JSON.stringify({ replay: { events: [] } })),
      ),
    )
    const response = await getEvents(id, member.cookie)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([])
  })

  it('answers 500 with a generic message when the recording is missing from storage', async () => {
    setBlobStoreForTests(withGet(getBlobStore(), async () => null))
    const response = await getEvents(sessionId, member.cookie)
    expect(response.status).toBe(500)
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    expect(await response.json()).toEqual({ error: 'Internal server error' })
  })
})

/** The real store with `get` replaced (the rest is inherited, so `this` still works). */
function withGet(store: BlobStore, get: BlobStore['get']): BlobStore {
  return Object.assign(Object.create(store) as BlobStore, { get })
}
