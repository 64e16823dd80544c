import { createHash, randomBytes } from 'node:crypto'
import { deflateSync, gzipSync } from 'node:zlib'
import { count, eq } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { replayBatches, replaySessions } from '@/db/schema'
import { replayIngest as POST } from '@/inngest/replay-ingest'
import { analyzeEvents } from '@/lib/analysis'
import { MAX_MESSAGE_CHARS, MAX_URL_CHARS } from '@/lib/analysis/bounds'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { INGEST_LIMITS } from '@/lib/ingest/limits'
import { createOrganization } from '@/lib/orgs/create-organization'
import { useRateLimiter } from '@/lib/ratelimit'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  type Answer,
  allowAllRateLimiter,
  answerOf,
  assertPrototypesClean,
  deeplyNested,
  endlessBody,
  forbidErrorLogs,
  fuzzRuns,
  headerValue,
  hostileBytes,
  hostileJson,
  hostileKey,
  hostileString,
  INGEST_TABLES,
  jsonOf,
  ownEntries,
  pollutionPayload,
  replayEventsWith,
  replayStrings,
  rowCounts,
  spliceBytes,
  streamingInit,
  utf8Damage,
} from '../helpers/fuzz'
import { INGEST_URL } from '../helpers/ingest'

/**
 * Hostile input at POST /api/sdk/replay through the real route handler: whatever the body,
 * the answer is 200 or a 4xx in the spec's shape, never a 500 or a hang; a refused batch
 * leaves no row and no blob; nothing reaches Object.prototype.
 */

let database: TestDatabase
let key: string
let puts = 0

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const org = await createOrganization(database.db, { name: 'Fuzz' })
  key = (await createKey(database.db, { organizationId: org.id, type: 'ingest' })).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
forbidErrorLogs()
beforeEach(() => {
  useRateLimiter(allowAllRateLimiter)
  // Counts uploads: a refused batch must not leave a blob behind either.
  const real = getBlobStore()
  const counting: BlobStore = {
    kind: real.kind,
    put: (k, body, options) => {
      puts++
      return real.put(k, body, options)
    },
    get: (k) => real.get(k),
    stream: (k) => real.stream(k),
    delete: (keys) => real.delete(keys),
    list: (prefix) => real.list(prefix),
  }
  setBlobStoreForTests(counting)
})
afterEach(() => {
  setBlobStoreForTests(undefined)
  useRateLimiter(undefined)
  assertPrototypesClean()
})

type Body = string | Uint8Array

/** A fixed string that does not compress (hash chain): what a random id of that length is like. */
const incompressible = (length: number) =>
  Array.from({ length: Math.ceil(length / 44) }, (_, i) =>
    createHash('sha256').update(String(i)).digest('base64'),
  )
    .join('')
    .slice(0, length)

function send(body: Body, headers: Record<string, string> = {}, url = INGEST_URL): Promise<Answer> {
  const merged = new Headers({ 'content-type': 'application/json', 'x-service-api-key': key, ...headers })
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  return answerOf('POST /api/sdk/replay', () =>
    POST(new Request(url, { method: 'POST', headers: merged, body: new Uint8Array(bytes) })),
  )
}

let sessions = 0
const freshSession = () => `fuzz-${++sessions}-${randomBytes(4).toString('hex')}`

/** A small valid batch (normal flush, so no processing starts in the background). */
const validBatch = () => makeBatch({ sessionId: freshSession(), events: 3 })

interface Detail {
  path: unknown[]
  message: string
  code: string
}

/** The spec's 400: `{error: 'Invalid replay batch', details: [...]}` with well-formed details. */
function expectInvalidBatch(answer: Answer): Detail[] {
  expect(answer.status, answer.text.slice(0, 300)).toBe(400)
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
  const body = jsonOf(answer) as { error: unknown; details: unknown }
  expect(Object.keys(body).sort()).toEqual(['details', 'error'])
  expect(body.error).toBe('Invalid replay batch')
  const details = body.details as Detail[]
  expect(Array.isArray(details) && details.length > 0).toBe(true)
  for (const detail of details) {
    expect(Array.isArray(detail.path)).toBe(true)
    for (const step of detail.path) expect(['string', 'number']).toContain(typeof step)
    expect(typeof detail.message).toBe('string')
    expect(typeof detail.code).toBe('string')
  }
  return details
}

/** Any non-200 answer: a 4xx with a JSON `{error: string}` body, and never a 5xx. */
function expectClientError(answer: Answer): void {
  expect(answer.status, answer.text.slice(0, 300)).toBeGreaterThanOrEqual(400)
  expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500)
  const body = jsonOf(answer) as { error?: unknown }
  expect(typeof body.error).toBe('string')
  expect(answer.headers.get('access-control-allow-origin')).toBe('*')
}

async function batchCount(): Promise<number> {
  const [row] = await database.db.select({ n: count() }).from(replayBatches)
  return Number(row!.n)
}

/** Runs a request and checks "refused ⇒ nothing written, accepted ⇒ exactly one batch". */
async function sendAndAccount(body: Body, headers?: Record<string, string>): Promise<Answer> {
  const before = await rowCounts(database.db, INGEST_TABLES)
  const putsBefore = puts
  const answer = await send(body, headers)
  const after = await rowCounts(database.db, INGEST_TABLES)
  if (answer.status === 200) {
    expect(jsonOf(answer)).toEqual({ ok: true })
    expect(after.replayBatches).toBe(before.replayBatches + 1)
    expect(puts).toBe(putsBefore + 1)
  } else {
    expectClientError(answer)
    expect(after).toEqual(before)
    expect(puts).toBe(putsBefore)
  }
  return answer
}

// ---------------------------------------------------------------------------------------
// The batch schema, path by path, with what a wrong value at each path looks like.

type Kind =
  | 'object'
  | 'string'
  | 'nonEmptyString'
  | 'epoch'
  | 'sequence'
  | 'integer'
  | 'number'
  | 'array'
  | 'enum'
  | 'any'

interface PathSpec {
  path: (string | number)[]
  kind: Kind
  nullable?: boolean
  optional?: boolean
}

const SCHEMA_PATHS: PathSpec[] = [
  { path: ['session'], kind: 'object' },
  { path: ['session', 'id'], kind: 'nonEmptyString' },
  { path: ['session', 'windowId'], kind: 'nonEmptyString' },
  { path: ['session', 'startedAt'], kind: 'epoch' },
  { path: ['session', 'lastActivityAt'], kind: 'epoch' },
  { path: ['session', 'url'], kind: 'string' },
  { path: ['user'], kind: 'object' },
  { path: ['user', 'anonymousId'], kind: 'nonEmptyString' },
  { path: ['user', 'id'], kind: 'string', nullable: true, optional: true },
  { path: ['user', 'properties'], kind: 'object', nullable: true, optional: true },
  { path: ['page'], kind: 'object' },
  { path: ['page', 'url'], kind: 'string' },
  { path: ['page', 'referrer'], kind: 'string', nullable: true, optional: true },
  { path: ['page', 'viewport'], kind: 'object', nullable: true, optional: true },
  { path: ['page', 'viewport', 'width'], kind: 'number' },
  { path: ['page', 'viewport', 'height'], kind: 'number' },
  { path: ['replay'], kind: 'object' },
  { path: ['replay', 'events'], kind: 'array' },
  { path: ['replay', 'events', 0], kind: 'object' },
  { path: ['replay', 'events', 1, 'timestamp'], kind: 'epoch' },
  { path: ['replay', 'events', 1, 'type'], kind: 'integer' },
  { path: ['replay', 'events', 2, 'data'], kind: 'any' },
  { path: ['replay', 'sequence'], kind: 'sequence' },
  { path: ['metadata'], kind: 'object', nullable: true, optional: true },
  { path: ['metadata', 'userAgent'], kind: 'string', nullable: true, optional: true },
  { path: ['metadata', 'language'], kind: 'string', nullable: true, optional: true },
  { path: ['flush'], kind: 'enum', optional: true },
]

const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whether `value` is acceptable at a path of this spec (the oracle for "wrong"). */
function fits(spec: PathSpec, value: unknown): boolean {
  if (value === undefined) return spec.optional === true
  if (value === null) return spec.nullable === true || spec.kind === 'any'
  switch (spec.kind) {
    case 'object':
      return isPlainObject(value)
    case 'string':
      return typeof value === 'string'
    case 'nonEmptyString':
      return typeof value === 'string' && value.length > 0
    case 'epoch':
      return typeof value === 'number' && value >= 0 && value <= 8.64e15
    case 'sequence':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 2_147_483_647
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'array':
      return Array.isArray(value) && value.length > 0
    case 'enum':
      return value === 'normal' || value === 'final'
    case 'any':
      return true
  }
}

const numericEdges = fc.constantFrom(-1, -0.5, 0.5, 1.5, 8.64e15 + 1, 1e300, -1e300, 2 ** 31, -(2 ** 31))

/** A value that does not fit the path: found by generating broadly and keeping the misfits. */
const wrongFor = (spec: PathSpec): fc.Arbitrary<unknown> =>
  // Event data may be anything at all: only leaving it out is wrong.
  spec.kind === 'any'
    ? fc.constant(undefined)
    : fc
        .oneof(
          hostileJson,
          numericEdges,
          fc.constantFrom(undefined, null, '', [], {}, 'final ', 'NORMAL', '1', true),
        )
        .filter((value) => !fits(spec, value))

/** A copy of `root` with the value at `path` replaced (or removed, for undefined). */
function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>
  let node = copy
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>
  const last = path.at(-1)!
  if (value === undefined) delete node[last]
  else node[last] = value
  return copy
}

/** Two paths overlap when one is a prefix of the other (a wrong parent reports on the parent). */
const overlaps = (a: unknown[], b: unknown[]) =>
  a.slice(0, Math.min(a.length, b.length)).every((step, i) => step === b[i])

describe('POST /api/sdk/replay with hostile bodies', () => {
  it('answers any JSON value that is not a batch with 400 Invalid replay batch, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileJson, pollutionPayload), async (value) => {
        const answer = await sendAndAccount(JSON.stringify(value) ?? 'null')
        expectInvalidBatch(answer)
      }),
      fuzzRuns(150),
    )
  })

  it('answers a wrong type at any path of the batch schema with 400 naming that path', async () => {
    const cases = fc
      .constantFrom(...SCHEMA_PATHS)
      .chain((spec) => fc.tuple(fc.constant(spec), wrongFor(spec)))
    await fc.assert(
      fc.asyncProperty(cases, async ([spec, value]) => {
        const body = setAt(validBatch(), spec.path, value)
        const answer = await sendAndAccount(JSON.stringify(body))
        const details = expectInvalidBatch(answer)
        expect(
          details.some((d) => overlaps(d.path, spec.path)),
          `${JSON.stringify(spec.path)}: ${JSON.stringify(details)}`,
        ).toBe(true)
      }),
      fuzzRuns(200),
    )
  })

  const FREE_TEXT: (string | number)[][] = [
    ['session', 'id'],
    ['session', 'windowId'],
    ['session', 'url'],
    ['user', 'anonymousId'],
    ['user', 'id'],
    ['page', 'url'],
    ['page', 'referrer'],
    ['metadata', 'userAgent'],
    ['metadata', 'language'],
    ['user', 'properties', 'email'],
    ['user', 'properties', 'name'],
    ['replay', 'events', 2, 'data'],
  ]

  it('stores or refuses any string in a free-text field (NUL, lone surrogates, 12k chars), never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FREE_TEXT), hostileString, async (path, value) => {
        const body = setAt(validBatch(), path, value)
        const answer = await sendAndAccount(JSON.stringify(body))
        // The spec allows any non-empty string here; a clear 400 is tolerable, a 500 is not.
        expect([200, 400]).toContain(answer.status)
      }),
      {
        ...fuzzRuns(150),
        examples: [
          [['session', 'id'], 'a\u0000b'],
          [['session', 'id'], incompressible(6000)],
          [['page', 'url'], '\ud800'],
          [['user', 'properties', 'email'], 'a\u0000@example.com'],
          [['user', 'properties', 'name'], '\udfff'],
        ],
      },
    )
  })

  it('accepts arbitrary keys and values in user.properties and event data, or refuses them cleanly', async () => {
    const extras = fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 6 }).map(ownEntries)
    await fc.assert(
      fc.asyncProperty(extras, extras, async (properties, data) => {
        let body = setAt(validBatch(), ['user', 'properties'], properties)
        body = setAt(body, ['replay', 'events', 2, 'data'], data)
        const answer = await sendAndAccount(JSON.stringify(body))
        expect([200, 400]).toContain(answer.status)
      }),
      fuzzRuns(100),
    )
  })

  it('plants nothing on Object.prototype with __proto__, constructor and prototype keys at every level', async () => {
    const LEVELS: (string | number)[][] = [
      [],
      ['session'],
      ['user'],
      ['user', 'properties'],
      ['page'],
      ['page', 'viewport'],
      ['replay'],
      ['replay', 'events', 0],
      ['replay', 'events', 0, 'data'],
      ['metadata'],
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(LEVELS, { minLength: 1 }),
        pollutionPayload,
        fc.constantFrom('application/json', 'text/plain'),
        async (levels, payload, contentType) => {
          const body = validBatch() as unknown as Record<string, unknown>
          for (const level of levels) {
            let node = body
            for (const step of level) node = node[step] as Record<string, unknown>
            // defineProperty, not assignment: `node.__proto__ = v` would swap the prototype
            // instead of adding the key that JSON.stringify writes out.
            for (const [k, v] of Object.entries(payload))
              Object.defineProperty(node, k, {
                value: v,
                enumerable: true,
                writable: true,
                configurable: true,
              })
          }
          const answer = await sendAndAccount(JSON.stringify(body), { 'content-type': contentType })
          expect([200, 400]).toContain(answer.status)
          assertPrototypesClean()
          if (answer.status === 200) {
            // What was stored for the session comes from the batch's own fields only.
            const [session] = await database.db
              .select({ email: replaySessions.userEmail, name: replaySessions.userName })
              .from(replaySessions)
              .where(eq(replaySessions.externalId, (body.session as { id: string }).id))
            expect(session!.email).toBe('ada@example.com')
            expect(session!.name).toBe('Ada')
          }
        },
      ),
      fuzzRuns(60),
    )
  })

  it('answers 400, not a stack overflow, for 10,000 and 1,000,000 levels of nesting', async () => {
    for (const depth of [10_000, 1_000_000]) {
      for (const kind of ['array', 'object'] as const) {
        expectInvalidBatch(await sendAndAccount(deeplyNested(depth, kind)))
      }
    }
  })

  it('stores or refuses deep nesting inside opaque places (event data, user.properties), never a 500', async () => {
    for (const path of [
      ['replay', 'events', 2, 'data'],
      ['user', 'properties', 'deep'],
    ]) {
      for (const depth of [1_000, 10_000, 100_000]) {
        const placeholder = '"__DEEP__"'
        const json = JSON.stringify(setAt(validBatch(), path, '__DEEP__')).replace(
          placeholder,
          deeplyNested(depth),
        )
        const answer = await sendAndAccount(json)
        expect([200, 400], `${path.join('.')} at depth ${depth}: ${answer.text.slice(0, 200)}`).toContain(
          answer.status,
        )
      }
    }
  })

  it('answers invalid UTF-8 anywhere in the body with 200 or 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(utf8Damage, async (damage) => {
        // A fresh batch (and session) each run, so an accepted body is a new batch.
        const answer = await sendAndAccount(spliceBytes(JSON.stringify(validBatch()), damage))
        expect([200, 400]).toContain(answer.status)
        if (answer.status === 400) expectInvalidBatch(answer)
      }),
      fuzzRuns(80),
    )
  })

  it('answers arbitrary bytes with 400 Invalid replay batch, also under Content-Encoding gzip and deflate', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBytes,
        fc.constantFrom(undefined, 'gzip', 'deflate', 'GZIP', ' gzip '),
        async (bytes, encoding) => {
          const answer = await sendAndAccount(bytes, encoding ? { 'content-encoding': encoding } : {})
          expectInvalidBatch(answer)
        },
      ),
      fuzzRuns(100),
    )
  })

  it('answers well-formed gzip of a non-batch with 400 and a gzip bomb with 413, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson, async (value) => {
        const answer = await sendAndAccount(gzipSync(Buffer.from(JSON.stringify(value) ?? 'null')), {
          'content-encoding': 'gzip',
        })
        expectInvalidBatch(answer)
      }),
      fuzzRuns(40),
    )
    for (const [encoding, pack] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
    ] as const) {
      const bomb = pack(Buffer.alloc(INGEST_LIMITS.maxDecodedBytes + 1024, 0x20))
      const answer = await sendAndAccount(bomb, { 'content-encoding': encoding })
      expect(answer.status).toBe(413)
      expect(jsonOf(answer)).toEqual({ error: INGEST_LIMITS.tooLargeMessage })
    }
  })

  it('refuses any Content-Type but JSON or text with 415, and any other Content-Encoding with 415', async () => {
    const body = () => JSON.stringify(validBatch())
    const contentType = fc.oneof(
      headerValue,
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json-patch+json',
        'application/jsonx',
        'text/html',
        'APPLICATION/JSON; charset=utf-16',
        'text/plain;charset=UTF-8',
        ';',
        'application/json\u0001',
      ),
    )
    await fc.assert(
      fc.asyncProperty(contentType, async (type) => {
        const answer = await sendAndAccount(body(), { 'content-type': type })
        const main = new Headers({ 'content-type': type })
          .get('content-type')!
          .split(';')[0]!
          .trim()
          .toLowerCase()
        if (main === '' || main === 'application/json' || main === 'text/plain')
          expect(answer.status).toBe(200)
        else {
          expect(answer.status).toBe(415)
          expect(jsonOf(answer)).toEqual({ error: 'Content-Type must be application/json or text/plain' })
        }
      }),
      fuzzRuns(80),
    )
    await fc.assert(
      fc.asyncProperty(
        headerValue.filter((v) => !['', 'identity', 'gzip', 'deflate'].includes(v.trim().toLowerCase())),
        async (encoding) => {
          const answer = await sendAndAccount(body(), { 'content-encoding': encoding })
          expect(answer.status).toBe(415)
        },
      ),
      fuzzRuns(40),
    )
  })

  it('answers any credential it does not know with 401 and the spec body, in header or query', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, fc.string({ unit: 'binary', maxLength: 300 }), async (header, query) => {
        const before = await batchCount()
        const viaHeader = await send(JSON.stringify(validBatch()), { 'x-service-api-key': header })
        expect(viaHeader.status).toBe(401)
        expect([{ error: 'Missing API key' }, { error: 'Invalid or revoked API key' }]).toContainEqual(
          jsonOf(viaHeader),
        )
        const url = new URL(INGEST_URL)
        url.searchParams.set('api_key', query)
        const merged = new Headers({ 'content-type': 'application/json' })
        const viaQuery = await answerOf('POST /api/sdk/replay?api_key', () =>
          POST(new Request(url, { method: 'POST', headers: merged, body: JSON.stringify(validBatch()) })),
        )
        expect(viaQuery.status).toBe(401)
        expect(await batchCount()).toBe(before)
      }),
      fuzzRuns(80),
    )
  })
})

describe('POST /api/sdk/replay size limits', () => {
  it('stores a batch of 150,000 minimal events within the size cap exactly once', async () => {
    const batch = validBatch()
    const events = Array.from({ length: 150_000 }, (_, i) => ({
      type: 3,
      timestamp: 1_763_800_000_000 + i,
      data: 0,
    }))
    const body = JSON.stringify({ ...batch, replay: { ...batch.replay, events } })
    expect(body.length).toBeLessThan(INGEST_LIMITS.maxDecodedBytes)
    const answer = await sendAndAccount(body)
    expect(answer.status).toBe(200)
    const [session] = await database.db
      .select({ events: replaySessions.eventCount, batches: replaySessions.batchCount })
      .from(replaySessions)
      .where(eq(replaySessions.externalId, batch.session.id))
    expect(session).toEqual({ events: 150_000, batches: 1 })
  })

  it('answers 413 with {error} for a body over the cap, declared or not, and stores nothing', async () => {
    const over = `{"pad":"${'x'.repeat(INGEST_LIMITS.maxDecodedBytes)}"}`
    const answer = await sendAndAccount(over)
    expect(answer.status).toBe(413)
    expect(jsonOf(answer)).toEqual({ error: INGEST_LIMITS.tooLargeMessage })
    // A declared length over the cap is refused before a byte is read.
    const declared = await sendAndAccount('{}', {
      'content-length': String(INGEST_LIMITS.maxDecodedBytes + 1),
    })
    expect(declared.status).toBe(413)
  })

  it('stops reading a body that never ends at the cap and answers 413', async () => {
    for (const encoding of [undefined, 'gzip']) {
      const endless = endlessBody()
      const headers = new Headers({ 'content-type': 'application/json', 'x-service-api-key': key })
      if (encoding) headers.set('content-encoding', encoding)
      const answer = await answerOf('endless POST /api/sdk/replay', () =>
        POST(new Request(INGEST_URL, streamingInit({ method: 'POST', headers, body: endless.stream }))),
      )
      expect(answer.status).toBe(413)
      expect(jsonOf(answer)).toEqual({ error: INGEST_LIMITS.tooLargeMessage })
      const cap = encoding ? INGEST_LIMITS.maxWireBytes : INGEST_LIMITS.maxDecodedBytes
      // Bounded memory: what was read is the cap plus at most the chunks in flight.
      expect(endless.pulled()).toBeLessThanOrEqual(cap + 4 * 64 * 1024)
      expect(endless.cancelled()).toBe(true)
    }
  })
})

/**
 * What an accepted batch goes on to (issue 14): the analyser over events whose every string
 * field is up to a megabyte of the shapes that made patterns backtrack. It must finish (the
 * test timeout is the hang detector, nothing is timed) with findings cut to the bounds.
 */
describe('analysis of events with long hostile strings', () => {
  it('terminates with bounded findings whatever the strings', async () => {
    await fc.assert(
      fc.asyncProperty(replayStrings, async (strings) => {
        const result = await analyzeEvents(replayEventsWith(strings))
        expect(result.eventCount).toBeGreaterThan(10)
        for (const finding of result.findings) {
          expect(finding.fingerprint).toMatch(/^[0-9a-f]{64}$/)
          const message = finding.evidence.message
          if (typeof message === 'string') expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS)
          expect(finding.url.length).toBeLessThanOrEqual(MAX_URL_CHARS)
        }
        // However long the input, the result stays small enough to store.
        expect(JSON.stringify(result).length).toBeLessThan(1_000_000)
      }),
      fuzzRuns(10),
    )
    // A few seconds when it passes; the margin is for shrinking a failure to a readable case.
  }, 120_000)
})
