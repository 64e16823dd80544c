import { createHash, randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { credentials, outbox, replayBatches, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { isSealedBytes } from '@/lib/crypto/sealed'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  useRateLimiter as installRateLimiter,
} from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { readSessionEvents, sessionBatches } from '@/lib/sessions/read-events'
import { createBlobStore, getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { preflight, sendBatch } from '../helpers/ingest'
import { startS3Server } from '../helpers/s3-server'
import { storedBatchText } from '../helpers/stored-batch'

let database: TestDatabase
let organizationId: string
let ingestKey: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const org = await createOrganization(database.db, { name: 'Acme' })
  organizationId = org.id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
afterEach(() => {
  setBlobStoreForTests(undefined)
})

let sessionCounter = 0
const freshSession = () => `session-${++sessionCounter}-${randomBytes(4).toString('hex')}`

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

describe('POST /api/sdk/replay: accepting batches', () => {
  it('stores a batch: 200 {ok: true}, the session and batch rows, the body exactly as sent', async () => {
    const sessionId = freshSession()
    const batch = makeBatch({ sessionId })
    const body = JSON.stringify(batch)
    const response = await sendBatch(body, { key: ingestKey })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.headers.get('cache-control')).toBe('no-store')

    const { session, batches } = await rowsFor(sessionId)
    expect(session).toMatchObject({
      organizationId,
      status: 'receiving',
      entryUrl: 'https://shop.example.com/checkout',
      anonymousId: 'anon-1',
      userId: null,
      userEmail: 'ada@example.com',
      userName: 'Ada',
      userAgent: batch.metadata.userAgent,
      language: 'en-GB',
      viewport: { width: 1280, height: 800 },
      batchCount: 1,
      eventCount: 50,
      byteSize: Buffer.byteLength(body),
    })
    expect(session!.startedAt.getTime()).toBe(batch.session.startedAt)
    expect(session!.lastActivityAt.getTime()).toBe(batch.session.lastActivityAt)
    expect(batches).toHaveLength(1)
    expect(batches[0]).toMatchObject({
      windowId: 'window-1',
      sequence: 0,
      eventCount: 50,
      firstTimestamp: batch.replay.events[0]!.timestamp,
      lastTimestamp: batch.replay.events.at(-1)!.timestamp,
      byteSize: Buffer.byteLength(body),
      pageUrl: batch.page.url,
      flush: 'normal',
    })
    // Stored sealed with the session's data key (docs/privacy.md#encryption), opened as sent.
    const stored = await getBlobStore().get(batches[0]!.blobKey)
    expect(isSealedBytes(stored!)).toBe(true)
    expect(Buffer.from(stored!).toString()).not.toContain(batch.session.id)
    expect(await storedBatchText(database.db, batches[0]!.blobKey)).toBe(body)
  })

  it('adds later batches to the session and keeps what identify() learnt', async () => {
    const sessionId = freshSession()
    await sendBatch(makeBatch({ sessionId, sequence: 0, events: 10 }), { key: ingestKey })
    const second = makeBatch({ sessionId, sequence: 1, events: 20 })
    second.user = {
      anonymousId: 'anon-1',
      id: 'user-42',
      properties: { email: 'ada@example.com', name: 'Ada L.' },
    }
    expect((await sendBatch(second, { key: ingestKey })).status).toBe(200)
    const third = makeBatch({ sessionId, sequence: 2, events: 5 })
    third.user = { anonymousId: 'anon-1', id: null, properties: null }
    expect((await sendBatch(third, { key: ingestKey })).status).toBe(200)
    const { session, batches } = await rowsFor(sessionId)
    expect(batches.map((b) => b.sequence).sort()).toEqual([0, 1, 2])
    expect(session).toMatchObject({ batchCount: 3, eventCount: 35, userId: 'user-42', userName: 'Ada L.' })
    expect(session!.lastActivityAt.getTime()).toBe(third.session.lastActivityAt)
  })

  it('accepts the key as the api_key query parameter with a text/plain body (sendBeacon)', async () => {
    const sessionId = freshSession()
    const response = await sendBatch(makeBatch({ sessionId }), {
      key: ingestKey,
      via: 'query',
      contentType: 'text/plain;charset=UTF-8',
    })
    expect(response.status).toBe(200)
    expect((await rowsFor(sessionId)).batches).toHaveLength(1)
  })

  it('accepts a body without Content-Type', async () => {
    const response = await sendBatch(makeBatch({ sessionId: freshSession() }), {
      key: ingestKey,
      contentType: null,
    })
    expect(response.status).toBe(200)
  })

  it('accepts a gzip body and stores the decoded JSON', async () => {
    const sessionId = freshSession()
    const body = JSON.stringify(makeBatch({ sessionId, events: 200 }))
    const response = await sendBatch(body, { key: ingestKey, gzip: true })
    expect(response.status).toBe(200)
    const { batches } = await rowsFor(sessionId)
    expect(await storedBatchText(database.db, batches[0]!.blobKey)).toBe(body)
  })
})

describe('POST /api/sdk/replay: credentials', () => {
  it('401 Missing API key without a key', async () => {
    const response = await sendBatch(makeBatch(), { key: null })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: 'Missing API key' })
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('401 Missing API key for an empty header', async () => {
    const response = await sendBatch(makeBatch(), { key: null, headers: { 'x-service-api-key': '  ' } })
    expect(await response.json()).toEqual({ error: 'Missing API key' })
  })

  it.each([
    ['an unknown key', () => `svc_pk_${randomBytes(32).toString('base64url')}`],
    [
      'a key of another kind',
      async () => (await createKey(database.db, { organizationId, type: 'api' })).key,
    ],
    ['a legacy MCP key', async () => (await createKey(database.db, { organizationId, type: 'mcp' })).key],
    ['garbage', () => 'hello'],
    [
      'a revoked key',
      async () => {
        const key = await createKey(database.db, { organizationId, type: 'ingest' })
        await revokeKey(database.db, { id: key.id })
        return key.key
      },
    ],
  ])('401 Invalid or revoked API key for %s, and nothing stored', async (_label, makeKey) => {
    const before = await totalBatches()
    const response = await sendBatch(makeBatch({ sessionId: freshSession() }), { key: await makeKey() })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: 'Invalid or revoked API key' })
    expect(await totalBatches()).toBe(before)
  })

  it('records when a key was last used', async () => {
    const key = await createKey(database.db, { organizationId, type: 'ingest' })
    await sendBatch(makeBatch({ sessionId: freshSession() }), { key: key.key })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const [row] = await database.db.select().from(credentials).where(eq(credentials.id, key.id))
    expect(row!.lastUsedAt).toBeInstanceOf(Date)
  })
})

describe('POST /api/sdk/replay: validation', () => {
  type Batch = ReturnType<typeof makeBatch>
  const cases: [string, (b: Batch) => unknown, (string | number)[]][] = [
    ['session missing', (b) => ({ ...b, session: undefined }), ['session']],
    ['user missing', (b) => ({ ...b, user: undefined }), ['user']],
    ['page missing', (b) => ({ ...b, page: undefined }), ['page']],
    ['replay missing', (b) => ({ ...b, replay: undefined }), ['replay']],
    ['session.id empty', (b) => ({ ...b, session: { ...b.session, id: '' } }), ['session', 'id']],
    ['session.id a number', (b) => ({ ...b, session: { ...b.session, id: 7 } }), ['session', 'id']],
    [
      'session.windowId empty',
      (b) => ({ ...b, session: { ...b.session, windowId: '' } }),
      ['session', 'windowId'],
    ],
    [
      'session.startedAt a string',
      (b) => ({ ...b, session: { ...b.session, startedAt: 'today' } }),
      ['session', 'startedAt'],
    ],
    [
      'session.lastActivityAt missing',
      (b) => ({ ...b, session: { ...b.session, lastActivityAt: undefined } }),
      ['session', 'lastActivityAt'],
    ],
    [
      'session.startedAt beyond a Date',
      (b) => ({ ...b, session: { ...b.session, startedAt: 1e300 } }),
      ['session', 'startedAt'],
    ],
    ['session.url missing', (b) => ({ ...b, session: { ...b.session, url: undefined } }), ['session', 'url']],
    [
      'user.anonymousId empty',
      (b) => ({ ...b, user: { ...b.user, anonymousId: '' } }),
      ['user', 'anonymousId'],
    ],
    ['user.id a number', (b) => ({ ...b, user: { ...b.user, id: 42 } }), ['user', 'id']],
    [
      'user.properties an array',
      (b) => ({ ...b, user: { ...b.user, properties: [1] } }),
      ['user', 'properties'],
    ],
    ['page.url missing', (b) => ({ ...b, page: { ...b.page, url: undefined } }), ['page', 'url']],
    ['page.referrer a number', (b) => ({ ...b, page: { ...b.page, referrer: 3 } }), ['page', 'referrer']],
    [
      'page.viewport without height',
      (b) => ({ ...b, page: { ...b.page, viewport: { width: 100 } } }),
      ['page', 'viewport', 'height'],
    ],
    [
      'page.viewport without width',
      (b) => ({ ...b, page: { ...b.page, viewport: { height: 100 } } }),
      ['page', 'viewport', 'width'],
    ],
    ['replay.events empty', (b) => ({ ...b, replay: { ...b.replay, events: [] } }), ['replay', 'events']],
    [
      'replay.events not an array',
      (b) => ({ ...b, replay: { ...b.replay, events: {} } }),
      ['replay', 'events'],
    ],
    [
      'an event without timestamp',
      (b) => ({ ...b, replay: { ...b.replay, events: [{ type: 3, data: {} }] } }),
      ['replay', 'events', 0, 'timestamp'],
    ],
    [
      'an event with a fractional type',
      (b) => ({ ...b, replay: { ...b.replay, events: [{ type: 3.5, timestamp: 1, data: {} }] } }),
      ['replay', 'events', 0, 'type'],
    ],
    [
      'an event without data',
      (b) => ({ ...b, replay: { ...b.replay, events: [{ type: 3, timestamp: 1 }] } }),
      ['replay', 'events', 0, 'data'],
    ],
    [
      'an event that is not an object',
      (b) => ({ ...b, replay: { ...b.replay, events: ['x'] } }),
      ['replay', 'events', 0],
    ],
    [
      'events out of order',
      (b) => ({
        ...b,
        replay: {
          ...b.replay,
          events: [
            { type: 3, timestamp: 10, data: {} },
            { type: 3, timestamp: 9, data: {} },
          ],
        },
      }),
      ['replay', 'events', 1, 'timestamp'],
    ],
    [
      'replay.sequence negative',
      (b) => ({ ...b, replay: { ...b.replay, sequence: -1 } }),
      ['replay', 'sequence'],
    ],
    [
      'replay.sequence fractional',
      (b) => ({ ...b, replay: { ...b.replay, sequence: 1.5 } }),
      ['replay', 'sequence'],
    ],
    [
      'replay.sequence missing',
      (b) => ({ ...b, replay: { ...b.replay, sequence: undefined } }),
      ['replay', 'sequence'],
    ],
    [
      'replay.sequence a string',
      (b) => ({ ...b, replay: { ...b.replay, sequence: '1' } }),
      ['replay', 'sequence'],
    ],
    ['metadata.userAgent a number', (b) => ({ ...b, metadata: { userAgent: 5 } }), ['metadata', 'userAgent']],
    ['metadata a string', (b) => ({ ...b, metadata: 'x' }), ['metadata']],
    ['flush unknown', (b) => ({ ...b, flush: 'later' }), ['flush']],
  ]

  it.each(cases)(
    '%s: 400 Invalid replay batch with the issue, nothing stored',
    async (_label, mutate, path) => {
      const before = await totalBatches()
      const response = await sendBatch(mutate(makeBatch({ sessionId: freshSession(), events: 3 })), {
        key: ingestKey,
      })
      expect(response.status).toBe(400)
      const body = (await response.json()) as {
        error: string
        details: { path: unknown[]; message: string; code: string }[]
      }
      expect(body.error).toBe('Invalid replay batch')
      expect(body.details.length).toBeGreaterThan(0)
      const issue = body.details.find((d) => JSON.stringify(d.path) === JSON.stringify(path))
      expect(issue, JSON.stringify(body.details)).toBeDefined()
      expect(typeof issue!.message).toBe('string')
      expect(typeof issue!.code).toBe('string')
      expect(await totalBatches()).toBe(before)
    },
  )

  it('lists every issue of a body at once', async () => {
    const response = await sendBatch({ session: {}, user: {}, page: {}, replay: {} }, { key: ingestKey })
    const body = (await response.json()) as { details: unknown[] }
    expect(body.details.length).toBeGreaterThanOrEqual(8)
  })

  it.each([
    ['metadata null', { metadata: null }],
    ['metadata absent', { metadata: undefined }],
    ['user.id and properties null', { user: { anonymousId: 'a', id: null, properties: null } }],
    ['viewport null, referrer null', { page: { url: 'https://x.example/', referrer: null, viewport: null } }],
    ['flush absent (normal)', { flush: undefined }],
  ])('accepts %s', async (_label, patch) => {
    const response = await sendBatch(
      { ...makeBatch({ sessionId: freshSession(), events: 3 }), ...patch },
      { key: ingestKey },
    )
    expect(response.status).toBe(200)
  })

  it('stores unknown event fields and shapes as sent', async () => {
    const sessionId = freshSession()
    const batch = makeBatch({ sessionId, events: 2 })
    batch.replay.events.push({
      type: 5,
      timestamp: 1_763_900_000_000,
      data: { tag: 'custom', payload: { a: [1, 'x'] } },
      delay: 3,
    })
    const body = JSON.stringify(batch)
    expect((await sendBatch(body, { key: ingestKey })).status).toBe(200)
    const { batches } = await rowsFor(sessionId)
    expect(await storedBatchText(database.db, batches[0]!.blobKey)).toBe(body)
  })

  it.each([
    ['invalid JSON', '{"session":'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
  ])('%s: 400 Invalid replay batch, never a 500', async (_label, body) => {
    const response = await sendBatch(body, { key: ingestKey })
    expect(response.status).toBe(400)
    const answer = (await response.json()) as { error: string; details: unknown[] }
    expect(answer.error).toBe('Invalid replay batch')
    expect(answer.details.length).toBeGreaterThan(0)
  })

  it('415 for a body that is neither JSON nor text', async () => {
    const response = await sendBatch(makeBatch(), {
      key: ingestKey,
      contentType: 'application/x-www-form-urlencoded',
    })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: 'Content-Type must be application/json or text/plain' })
  })

  it('415 for an unsupported Content-Encoding, 400 for a broken gzip body', async () => {
    const br = await sendBatch(makeBatch(), { key: ingestKey, headers: { 'content-encoding': 'br' } })
    expect(br.status).toBe(415)
    const broken = await sendBatch('not gzip at all', {
      key: ingestKey,
      headers: { 'content-encoding': 'gzip' },
    })
    expect(broken.status).toBe(400)
    expect(((await broken.json()) as { error: string }).error).toBe('Invalid replay batch')
  })
})

describe('POST /api/sdk/replay: size limits', () => {
  it('413 for more than 10 MiB of JSON', async () => {
    const body = JSON.stringify(makeBatch({ sessionId: freshSession(), targetBytes: 10.5 * 1024 * 1024 }))
    const response = await sendBatch(body, { key: ingestKey })
    expect(response.status).toBe(413)
    expect(((await response.json()) as { error: string }).error).toMatch(/too large/)
  })

  it('413 for a gzip bomb, without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20))
    expect(bomb.byteLength).toBeLessThan(1024 * 1024)
    const response = await sendBatch(bomb, { key: ingestKey, headers: { 'content-encoding': 'gzip' } })
    expect(response.status).toBe(413)
  })

  it('413 for more than 5 MiB on the wire when compressed', async () => {
    const noise = gzipSync(randomBytes(6 * 1024 * 1024))
    const response = await sendBatch(noise, { key: ingestKey, headers: { 'content-encoding': 'gzip' } })
    expect(response.status).toBe(413)
  })

  it('accepts a batch just under the limit', async () => {
    const body = JSON.stringify(makeBatch({ sessionId: freshSession(), targetBytes: 9 * 1024 * 1024 }))
    expect((await sendBatch(body, { key: ingestKey, gzip: true })).status).toBe(200)
  })
})

describe('POST /api/sdk/replay: CORS', () => {
  it('answers the preflight without a key', () => {
    const response = preflight()
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = response.headers.get('access-control-allow-headers')!.toLowerCase()
    expect(allowed).toContain('x-service-api-key')
    expect(allowed).toContain('content-type')
    expect(allowed).toContain('content-encoding')
    expect(response.headers.get('access-control-max-age')).toBe('86400')
  })

  it('puts CORS headers on errors too', async () => {
    for (const response of [
      await sendBatch('{', { key: ingestKey }),
      await sendBatch(makeBatch(), { key: 'svc_pk_nope' }),
    ]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(response.headers.get('access-control-expose-headers')).toContain('Retry-After')
    }
  })
})

describe('POST /api/sdk/replay: idempotency and failures', () => {
  it('stores a batch sent twice once, answering 200 both times', async () => {
    const sessionId = freshSession()
    const body = JSON.stringify(makeBatch({ sessionId }))
    expect((await sendBatch(body, { key: ingestKey })).status).toBe(200)
    expect((await sendBatch(body, { key: ingestKey })).status).toBe(200)
    const { session, batches } = await rowsFor(sessionId)
    expect(batches).toHaveLength(1)
    expect(session).toMatchObject({ batchCount: 1, eventCount: 50 })
  })

  it('stores 20 concurrent duplicates once, answering 200 to all', async () => {
    const sessionId = freshSession()
    const body = JSON.stringify(makeBatch({ sessionId }))
    const responses = await Promise.all(Array.from({ length: 20 }, () => sendBatch(body, { key: ingestKey })))
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200))
    const { session, batches } = await rowsFor(sessionId)
    expect(batches).toHaveLength(1)
    expect(session).toMatchObject({ batchCount: 1, eventCount: 50 })
    const blobs = await getBlobStore().list(batches[0]!.blobKey.split('/').slice(0, 4).join('/'))
    expect(blobs).toEqual([batches[0]!.blobKey])
  })

  it('keeps the first of two different batches sent with one sequence, and only its blob', async () => {
    const sessionId = freshSession()
    const first = makeBatch({ sessionId, events: 10 })
    const second = makeBatch({ sessionId, events: 12 })
    await Promise.all([sendBatch(first, { key: ingestKey }), sendBatch(second, { key: ingestKey })])
    const { session, batches } = await rowsFor(sessionId)
    expect(batches).toHaveLength(1)
    expect(session!.eventCount).toBe(batches[0]!.eventCount)
    const folder = batches[0]!.blobKey.split('/').slice(0, 4).join('/')
    expect(await getBlobStore().list(folder)).toEqual([batches[0]!.blobKey])
  })

  it('answers 500 when the blob upload fails, stores no row, and a retry succeeds', async () => {
    const real = getBlobStore()
    const failing: BlobStore = {
      ...real,
      kind: real.kind,
      put: async () => Promise.reject(new Error('blob store down: secret detail')),
    }
    setBlobStoreForTests(failing)
    const sessionId = freshSession()
    const body = JSON.stringify(makeBatch({ sessionId }))
    const failed = await sendBatch(body, { key: ingestKey })
    expect(failed.status).toBe(500)
    const answer = (await failed.json()) as { error: string; requestId: string }
    expect(answer.error).toBe('Internal server error')
    expect(answer.requestId).toBe(failed.headers.get('x-request-id'))
    expect(JSON.stringify(answer)).not.toContain('secret detail')
    expect(await rowsFor(sessionId)).toEqual({ session: undefined, batches: [] })

    setBlobStoreForTests(real)
    const retried = await sendBatch(body, { key: ingestKey })
    expect(retried.status).toBe(200)
    expect((await rowsFor(sessionId)).batches).toHaveLength(1)
  })
})

describe('POST /api/sdk/replay: through the S3-compatible store', () => {
  it('stores batches in the bucket and the session reads its events back from there', async () => {
    const server = await startS3Server()
    // The SDK's credential chain; the adapter has no credential settings of its own
    process.env.AWS_ACCESS_KEY_ID = server.accessKeyId
    process.env.AWS_SECRET_ACCESS_KEY = server.secretAccessKey
    try {
      const s3 = createBlobStore({
        kind: 's3',
        bucket: server.bucket,
        region: server.region,
        endpoint: server.endpoint,
        forcePathStyle: true,
      })
      setBlobStoreForTests(s3)
      const sessionId = freshSession()
      const first = makeBatch({ sessionId, sequence: 0, events: 10 })
      const second = makeBatch({ sessionId, sequence: 1, events: 5 })
      expect((await sendBatch(first, { key: ingestKey })).status).toBe(200)
      expect((await sendBatch(second, { key: ingestKey })).status).toBe(200)
      // A retried batch lands on the same object
      expect((await sendBatch(first, { key: ingestKey })).status).toBe(200)

      const { session, batches } = await rowsFor(sessionId)
      expect(session).toMatchObject({ batchCount: 2, eventCount: 15 })
      const keys = batches.map((b) => b.blobKey).sort()
      const folder = keys[0]!.split('/').slice(0, 4).join('/')
      expect(await s3.list(folder)).toEqual(keys)
      const events = []
      for await (const event of readSessionEvents(s3, await sessionBatches(database.db, session!.id)))
        events.push(event)
      expect(events).toEqual([...first.replay.events, ...second.replay.events])
    } finally {
      await server.stop()
    }
  })
})

describe('POST /api/sdk/replay: session state', () => {
  it('flush: final records a processing request and dispatches it through the jobs engine, once', async () => {
    const sessionId = freshSession()
    await sendBatch(makeBatch({ sessionId, sequence: 0 }), { key: ingestKey })
    const finalBatch = JSON.stringify(makeBatch({ sessionId, sequence: 1, flush: 'final' }))
    expect((await sendBatch(finalBatch, { key: ingestKey })).status).toBe(200)
    expect((await sendBatch(finalBatch, { key: ingestKey })).status).toBe(200)
    const { session } = await rowsFor(sessionId)
    expect(session!.processingRequestedAt).toBeInstanceOf(Date)
    const events = await database.db.select().from(outbox).where(eq(outbox.organizationId, organizationId))
    const mine = events.filter((e) => (e.payload as { sessionId?: string }).sessionId === session!.id)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({
      name: 'session/finalize.requested',
      payload: { organizationId, sessionId: session!.id },
    })
    expect(mine[0]!.dispatchedAt).toBeInstanceOf(Date)
  })

  it('a normal batch asks for nothing: the finalizer picks the session up later', async () => {
    const sessionId = freshSession()
    await sendBatch(makeBatch({ sessionId }), { key: ingestKey })
    const { session } = await rowsFor(sessionId)
    expect(session!.processingRequestedAt).toBeNull()
    expect(session!.status).toBe('receiving')
  })

  it('re-opens a processed session when a late batch arrives', async () => {
    const sessionId = freshSession()
    await sendBatch(makeBatch({ sessionId, sequence: 0 }), { key: ingestKey })
    await database.db
      .update(replaySessions)
      .set({ status: 'processed' })
      .where(eq(replaySessions.externalId, sessionId))
    await sendBatch(makeBatch({ sessionId, sequence: 1 }), { key: ingestKey })
    const { session } = await rowsFor(sessionId)
    expect(session).toMatchObject({ status: 'receiving', batchCount: 2 })
  })

  it('keeps sessions of different organizations apart even with the same session id', async () => {
    const other = await createOrganization(database.db, { name: 'Other' })
    const otherKey = (await createKey(database.db, { organizationId: other.id, type: 'ingest' })).key
    const sessionId = freshSession()
    await sendBatch(makeBatch({ sessionId }), { key: ingestKey })
    await sendBatch(makeBatch({ sessionId }), { key: otherKey })
    const rows = await database.db
      .select()
      .from(replaySessions)
      .where(eq(replaySessions.externalId, sessionId))
    expect(rows.map((r) => r.organizationId).sort()).toEqual([organizationId, other.id].sort())
  })
})

describe('POST /api/sdk/replay: rate limit', () => {
  freezeRateLimitClock()
  it('answers 429 with Retry-After after 100 requests a minute per key', async () => {
    const key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
    const body = JSON.stringify(makeBatch({ sessionId: freshSession(), events: 2 }))
    for (let i = 0; i < 100; i++) {
      const response = await sendBatch(body, { key })
      expect(response.status).toBe(200)
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(99 - i))
    }
    const refused = await sendBatch(body, { key })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({ error: 'Rate limit exceeded' })
    const retryAfter = refused.headers.get('retry-after')!
    expect(retryAfter).toMatch(/^\d+$/)
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(retryAfter)).toBeLessThanOrEqual(60)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    // another key is not affected
    expect((await sendBatch(makeBatch({ sessionId: freshSession() }), { key: ingestKey })).status).toBe(200)
  })
  it('answers the same last 200 and 429, headers and all, with the plain-Redis limiter as in-process', async () => {
    const body = JSON.stringify(makeBatch({ sessionId: freshSession(), events: 2 }))
    const redis = createRedisRateLimiter({
      url: 'redis://127.0.0.1:6379',
      // Its keys expire by themselves, two minutes after this test.
      keyPrefix: `ingest-test:${randomBytes(6).toString('hex')}`,
    })
    // Both limiters read Date.now: one instant, mid-minute, for both runs.
    const clock = vi
      .spyOn(Date, 'now')
      .mockReturnValue((Math.floor(Date.now() / 60_000) + 1) * 60_000 + 30_000)
    const seen = []
    try {
      for (const limiter of [createMemoryRateLimiter(), redis]) {
        installRateLimiter(limiter)
        const key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
        // The first 99 of the minute's 100 are spent directly, not over HTTP.
        const keyId = createHash('sha256').update(key).digest('base64url')
        for (let i = 0; i < 99; i++) await limiter.limit(RATE_LIMITS.ingest, keyId)
        const answers = [await sendBatch(body, { key }), await sendBatch(body, { key })]
        seen.push(
          await Promise.all(
            answers.map(async (answer) => ({
              status: answer.status,
              body: await answer.json(),
              headers: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'].map(
                (name) => answer.headers.get(name),
              ),
            })),
          ),
        )
      }
    } finally {
      clock.mockRestore()
      await redis.close()
    }
    const [memory, plainRedis] = seen
    expect(plainRedis).toEqual(memory)
    expect(memory?.map((answer) => answer.status)).toEqual([200, 429])
    expect(memory?.[1]?.body).toEqual({ error: 'Rate limit exceeded' })
    expect(memory?.[1]?.headers.slice(0, 2)).toEqual(['100', '0'])
    expect(memory?.[1]?.headers[3]).toBe('30')
  })
})
