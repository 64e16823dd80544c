import { randomBytes } from 'node:crypto'
import { count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { outbox, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { useRateLimiter } from '@/lib/ratelimit'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { allowAllRateLimiter, INGEST_TABLES, rowCounts } from '../helpers/fuzz'
import { sendBatch } from '../helpers/ingest'

/**
 * The ingest fast path: keys from the short-lived credential cache, and a batch's rows in one
 * statement. Through the route handler on the real database: the cache never outlives a
 * revocation on this instance, and the one statement stores each batch exactly once, with its
 * counters and its outbox event, under concurrency and re-sends.
 */

let database: TestDatabase
let organizationId: string
let key: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Fast path' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
beforeEach(() => {
  useRateLimiter(allowAllRateLimiter)
})
afterEach(() => {
  useRateLimiter(undefined)
  setBlobStoreForTests(undefined)
})

const freshSession = () => `fast-${randomBytes(6).toString('hex')}`

async function rowsFor(externalId: string) {
  const [session] = await database.db
    .select()
    .from(replaySessions)
    .where(eq(replaySessions.externalId, externalId))
  const batches = session
    ? await database.db.select().from(replayBatches).where(eq(replayBatches.sessionId, session.id))
    : []
  return { session, batches }
}

async function totalBatches() {
  const [row] = await database.db.select({ n: count() }).from(replayBatches)
  return row!.n
}

/** The blob keys in a session's folder: exactly the stored batches' keys, no orphans. */
async function blobsOf(batches: { blobKey: string }[]) {
  return getBlobStore().list(batches[0]!.blobKey.split('/').slice(0, 4).join('/'))
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

describe('ingest: the cached key', () => {
  it('is refused at its next request once revoked on this instance, storing nothing', async () => {
    const own = await createKey(database.db, { organizationId, type: 'ingest' })
    const sessionId = freshSession()
    expect((await sendBatch(makeBatch({ sessionId, sequence: 0 }), { key: own.key })).status).toBe(200)
    // Resolved and cached now: the next request is served from the cache.
    expect((await sendBatch(makeBatch({ sessionId, sequence: 1 }), { key: own.key })).status).toBe(200)

    await revokeKey(database.db, { id: own.id })
    const before = await totalBatches()
    const refused = await sendBatch(makeBatch({ sessionId, sequence: 2 }), { key: own.key })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'Invalid or revoked API key' })
    expect(await totalBatches()).toBe(before)
    expect((await rowsFor(sessionId)).batches).toHaveLength(2)
  })
})

describe('ingest: one statement per batch', () => {
  it('stores each batch of a known session once under concurrent sends and re-sends', async () => {
    const sessionId = freshSession()
    expect((await sendBatch(makeBatch({ sessionId, sequence: 0, events: 5 }), { key })).status).toBe(200)
    const bodies = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify(makeBatch({ sessionId, sequence: i + 1, events: 3 + i })),
    )
    // Each batch three times, all at once, in random order.
    const sends = shuffled([...bodies, ...bodies, ...bodies])
    const responses = await Promise.all(sends.map((body) => sendBatch(body, { key })))
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200))

    const { session, batches } = await rowsFor(sessionId)
    expect(batches.map((b) => b.sequence).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 11 }, (_, i) => i),
    )
    const expectedEvents = 5 + bodies.reduce((sum, _, i) => sum + 3 + i, 0)
    expect(session).toMatchObject({
      batchCount: 11,
      eventCount: expectedEvents,
      byteSize: batches.reduce((sum, b) => sum + b.byteSize, 0),
      status: 'receiving',
    })
    expect(await blobsOf(batches)).toEqual(batches.map((b) => b.blobKey).sort())
  })

  it('creates a session once when its first batches arrive together', async () => {
    const sessionId = freshSession()
    const bodies = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify(makeBatch({ sessionId, sequence: i, events: 4 })),
    )
    const responses = await Promise.all([...bodies, ...bodies].map((body) => sendBatch(body, { key })))
    expect(responses.map((r) => r.status)).toEqual(Array(12).fill(200))

    const sessions = await database.db
      .select()
      .from(replaySessions)
      .where(eq(replaySessions.externalId, sessionId))
    expect(sessions).toHaveLength(1)
    const { session, batches } = await rowsFor(sessionId)
    expect(batches).toHaveLength(6)
    expect(session).toMatchObject({ batchCount: 6, eventCount: 24 })
    expect(await blobsOf(batches)).toEqual(batches.map((b) => b.blobKey).sort())
  })

  it('a re-send changes nothing: not the counters, not a processed session', async () => {
    const sessionId = freshSession()
    const body = JSON.stringify(makeBatch({ sessionId, sequence: 0 }))
    expect((await sendBatch(body, { key })).status).toBe(200)
    await database.db
      .update(replaySessions)
      .set({ status: 'processed', processingAttempts: 2 })
      .where(eq(replaySessions.externalId, sessionId))
    const before = await rowsFor(sessionId)

    expect((await sendBatch(body, { key })).status).toBe(200)
    const after = await rowsFor(sessionId)
    expect(after).toEqual(before)
    expect(await blobsOf(after.batches)).toEqual([after.batches[0]!.blobKey])
  })

  it('merges what a later batch tells about its session, as the transaction did', async () => {
    const sessionId = freshSession()
    const first = makeBatch({ sessionId, sequence: 0, start: 1_763_800_010_000 })
    first.user.properties = null
    first.metadata = { userAgent: 'First agent', language: 'de' }
    expect((await sendBatch(first, { key })).status).toBe(200)

    const later = makeBatch({ sessionId, sequence: 1, start: 1_763_800_020_000 })
    later.session.startedAt = 1_763_799_000_000
    later.user.id = 'user-42'
    later.user.properties = { email: 'grace@example.com', name: 'Grace', plan: 'pro' }
    later.metadata = { userAgent: 'Second agent', language: 'fr' }
    expect((await sendBatch(later, { key })).status).toBe(200)

    const { session } = await rowsFor(sessionId)
    expect(session).toMatchObject({
      startedAt: new Date(1_763_799_000_000),
      lastActivityAt: new Date(later.replay.events.at(-1)!.timestamp as number),
      userId: 'user-42',
      userProperties: { email: 'grace@example.com', name: 'Grace', plan: 'pro' },
      userEmail: 'grace@example.com',
      userName: 'Grace',
      // The first values the recorder sent are kept.
      userAgent: 'First agent',
      language: 'de',
      entryUrl: first.session.url,
      viewport: { width: 1280, height: 800 },
      batchCount: 2,
    })
  })
})

describe('ingest: flush final', () => {
  async function eventsFor(sessionRowId: string) {
    const rows = await database.db.select().from(outbox).where(eq(outbox.organizationId, organizationId))
    return rows.filter((e) => (e.payload as { sessionId?: string }).sessionId === sessionRowId)
  }

  it('writes exactly one outbox event with its batch, however often and concurrently it is sent', async () => {
    const sessionId = freshSession()
    expect((await sendBatch(makeBatch({ sessionId, sequence: 0 }), { key })).status).toBe(200)
    const final = JSON.stringify(makeBatch({ sessionId, sequence: 1, flush: 'final' }))
    const responses = await Promise.all(Array.from({ length: 10 }, () => sendBatch(final, { key })))
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200))

    const { session, batches } = await rowsFor(sessionId)
    expect(batches).toHaveLength(2)
    expect(session!.processingRequestedAt).toBeInstanceOf(Date)
    const events = await eventsFor(session!.id)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      name: 'session/finalize.requested',
      payload: { organizationId, sessionId: session!.id },
      dedupeKey: `session.finalize:${session!.id}:1`,
    })
    expect(events[0]!.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(events[0]!.dispatchedAt).toBeInstanceOf(Date)
  })

  it('writes one event for a session whose only batch is final', async () => {
    const sessionId = freshSession()
    const final = JSON.stringify(makeBatch({ sessionId, sequence: 0, flush: 'final' }))
    const responses = await Promise.all(Array.from({ length: 5 }, () => sendBatch(final, { key })))
    expect(responses.map((r) => r.status)).toEqual(Array(5).fill(200))
    const { session } = await rowsFor(sessionId)
    expect(session).toMatchObject({ batchCount: 1 })
    expect(session!.processingRequestedAt).toBeInstanceOf(Date)
    expect(await eventsFor(session!.id)).toHaveLength(1)
  })

  it('writes no event when the batch is not stored (the blob upload failed)', async () => {
    const real = getBlobStore()
    setBlobStoreForTests({ ...real, kind: real.kind, put: () => Promise.reject(new Error('down')) })
    const sessionId = freshSession()
    const before = await rowCounts(database.db, INGEST_TABLES)
    const failed = await sendBatch(makeBatch({ sessionId, sequence: 0, flush: 'final' }), { key })
    expect(failed.status).toBe(500)
    expect(await rowCounts(database.db, INGEST_TABLES)).toEqual(before)
  })
})

describe('ingest: hostile bodies', () => {
  it('stores SQL-looking text verbatim: parameters, never statement text', async () => {
    const hostile = "x'); drop table replay_sessions; --"
    const sessionId = `${freshSession()}${hostile}`
    const batch = makeBatch({ sessionId, sequence: 0, flush: 'final' })
    batch.session.windowId = `$1 ${hostile}`
    batch.session.url = `https://example.com/?q=${hostile}`
    batch.page.url = `https://example.com/$2::text/${hostile}`
    batch.user.id = `'::jsonb ${hostile}`
    batch.user.properties = { email: hostile, name: '$17', [hostile]: { nested: "'" } }
    batch.metadata = { userAgent: `${hostile}\\`, language: "'" }
    expect((await sendBatch(batch, { key })).status).toBe(200)

    const { session, batches } = await rowsFor(sessionId)
    expect(session).toMatchObject({
      externalId: sessionId,
      entryUrl: batch.session.url,
      userId: batch.user.id,
      userProperties: batch.user.properties,
      userEmail: hostile,
      userName: '$17',
      userAgent: `${hostile}\\`,
      language: "'",
    })
    expect(batches).toHaveLength(1)
    expect(batches[0]).toMatchObject({ windowId: batch.session.windowId, pageUrl: batch.page.url })
    const [events] = await database.db
      .select({ n: count() })
      .from(outbox)
      .where(eq(outbox.dedupeKey, `session.finalize:${session!.id}:0`))
    expect(events!.n).toBe(1)
  })

  it.each([
    ['a session id given as an operator object', { session: { id: { $ne: null } } }],
    ['a NUL in the session id', { sessionIdSuffix: '\u0000' }],
    ['a sequence past int4', { sequence: 2_147_483_648 }],
    ['a sequence given as SQL', { sequence: '0; drop table outbox' }],
    ['an unknown flush', { flush: "final' or '1'='1" }],
  ])('answers %s with the spec 400 and changes nothing', async (_label, change) => {
    let puts = 0
    const real = getBlobStore()
    setBlobStoreForTests({
      ...real,
      kind: real.kind,
      put: (k, body, options) => {
        puts++
        return real.put(k, body, options)
      },
    })
    const batch = makeBatch({ sessionId: freshSession() }) as unknown as Record<
      string,
      Record<string, unknown>
    >
    if ('session' in change) batch.session = { ...batch.session, ...change.session }
    if ('sessionIdSuffix' in change) batch.session!.id = `${batch.session!.id}${change.sessionIdSuffix}`
    if ('sequence' in change) batch.replay!.sequence = change.sequence
    if ('flush' in change) (batch as Record<string, unknown>).flush = change.flush
    const before = await rowCounts(database.db, INGEST_TABLES)

    const response = await sendBatch(batch, { key })
    expect(response.status).toBe(400)
    const answer = (await response.json()) as { error: string; details: unknown[] }
    expect(answer.error).toBe('Invalid replay batch')
    expect(answer.details.length).toBeGreaterThan(0)
    expect(await rowCounts(database.db, INGEST_TABLES)).toEqual(before)
    expect(puts).toBe(0)
  })
})
