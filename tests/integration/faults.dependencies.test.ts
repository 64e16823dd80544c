/**
 * Faults of the service's other dependencies, over the real route handlers, the real jobs
 * engine and a real database (PGlite, or Postgres with DATABASE_URL): the blob store failing
 * while sessions are processed, while the dashboard streams a replay, while ingest writes
 * (through the real Vercel Blob adapter and SDK too) and while retention deletes; and the
 * language model's provider never answering.
 *
 * Covered elsewhere and not repeated here: a failed upload of a batch answers 500 with no row
 * and the retry succeeds (ingest.replay.test.ts), the database going away after the blob was
 * written (faults.database.test.ts), a recording missing from storage when the replay opens
 * (sessions.events-route.test.ts), and a model that fails at once (processing.pipeline.test.ts).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { and, count, eq, isNull } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { GET as getReplayEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { jobRuns, outbox, replaySessions, signalMatches, signals } from '@/db/schema'
import { buildJobDefinitions } from '@/inngest/app'
import { createLanguageModel, setLanguageModelForTests } from '@/lib/ai/model'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { createJobsEngine, type JobsEngine } from '@/lib/jobs'
import type { InProcessOptions } from '@/lib/jobs/in-process'
import { EVENTS } from '@/lib/outbox/events'
import { sweepRetention } from '@/lib/retention/sweep'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { S3BlobStore } from '@/lib/storage/s3'
import { sessionBlobFolder } from '@/lib/storage/session-blob-keys'
import type { BlobStore } from '@/lib/storage/types'
import { VercelBlobStore } from '@/lib/storage/vercel'
import { recorderBatches } from '../helpers/batches'
import { dashboardMember } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { recordedRows } from '../helpers/recorded'
import { seedSignal } from '../helpers/seed'
import { startVercelBlobFake } from '../helpers/vercel-blob-fake'
import { waitFor } from '../helpers/wait'

/** A store failure whose message carries details (an address, a token) no client may see. */
const OUTAGE = 'blob store unreachable: connect ECONNREFUSED 10.0.0.7:443 token=vercel_blob_rw_secret'
const WAIT_MS = 45_000

let database: TestDatabase
const engines: JobsEngine[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
})

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.stop()))
  setBlobStoreForTests(undefined)
  setLanguageModelForTests(undefined)
})

afterAll(async () => {
  useDatabase(undefined)
  await database?.close()
})

const db = () => database.db
const { newOrganization, sessionOf, issuesOf, outboxOf, linksOf } = recordedRows(db)

/**
 * The real job definitions on an engine of this test's own. The finalizer's schedule is
 * daily unless a case asks for it, so that no sweep starts runs a case does not expect.
 */
async function startEngine(inProcess: InProcessOptions, finalizerSeconds = 86_400): Promise<JobsEngine> {
  const config = parseConfig({ ...process.env, FINALIZER_INTERVAL_SECONDS: String(finalizerSeconds) })
  const engine = createJobsEngine({ kind: 'in-process' }, buildJobDefinitions(config), {
    inProcess: { pollIntervalMs: 50, stopTimeoutMs: 2000, ...inProcess },
  })
  engines.push(engine)
  await engine.start()
  return engine
}

async function runsOf(sessionId: string) {
  const rows = await db()
    .select()
    .from(jobRuns)
    .where(eq(jobRuns.functionId, 'process-session'))
    .orderBy(jobRuns.createdAt)
  return rows.filter((r) => (r.payload as { sessionId?: string }).sessionId === sessionId)
}

async function finishedRuns(sessionId: string, howMany = 1) {
  return waitFor(
    'the processing runs to finish',
    async () => {
      const mine = await runsOf(sessionId)
      return mine.length >= howMany && mine.every((r) => r.status === 'completed' || r.status === 'failed')
        ? mine
        : undefined
    },
    WAIT_MS,
  )
}

/** Nothing written for the session by analysis: no issue, link or event. */
async function expectNothingRecorded(organizationId: string, sessionId: string) {
  expect(await issuesOf(organizationId)).toEqual([])
  expect(await linksOf(sessionId)).toEqual([])
  expect(await outboxOf(organizationId, EVENTS.issueCreated)).toEqual([])
}

/** Exactly one issue, seen in this one session, announced by one event that was handed on. */
async function expectRecordedOnce(organizationId: string, sessionId: string) {
  const found = await issuesOf(organizationId)
  expect(found).toHaveLength(1)
  expect(found[0]).toMatchObject({ kind: 'network_error', sessionCount: 1 })
  expect((await linksOf(sessionId)).map((l) => l.issueId)).toEqual([found[0]!.id])
  const events = await outboxOf(organizationId, EVENTS.issueCreated)
  expect(events.map((e) => (e.payload as { issueId: string }).issueId)).toEqual([found[0]!.id])
  expect(events[0]!.dispatchedAt).not.toBeNull()
  return found[0]!
}

/** The real store with some methods replaced; the rest is inherited, so `this` still works. */
function overriding(real: BlobStore, methods: Partial<Omit<BlobStore, 'kind'>>): BlobStore {
  return Object.assign(Object.create(real) as BlobStore, methods)
}

/** The real store, with reads failing while `down` says so. */
function readsFailWhile(down: () => boolean) {
  const real = getBlobStore()
  let failures = 0
  const store = overriding(real, {
    get: async (key) => {
      if (down()) {
        failures++
        throw new Error(OUTAGE)
      }
      return real.get(key)
    },
    stream: async (key) => {
      if (down()) {
        failures++
        throw new Error(OUTAGE)
      }
      return real.stream(key)
    },
  })
  return { store, failures: () => failures }
}

describe('the blob store failing while a session is processed', () => {
  it('retries the run while reads fail and, once the store answers, records the session exactly once', async () => {
    const { organizationId, key } = await newOrganization('Blob outage, short')
    let down = true
    const outage = readsFailWhile(() => down)
    setBlobStoreForTests(outage.store)
    // Retries seconds apart: the test sees the failed state before the retries run out.
    await startEngine({ backoff: { baseMs: 2000, maxMs: 4000 } })
    await ingestSession(key, 'blob-short', endingNow(loadRecording('network-500').events), { final: true })
    const session = (await sessionOf(organizationId, 'blob-short'))!

    const [retrying] = await waitFor(
      'a failed attempt waiting for its retry',
      async () => {
        const runs = await runsOf(session.id)
        return runs[0]?.status === 'queued' && runs[0].attempt >= 1 ? runs : undefined
      },
      WAIT_MS,
    )
    expect(retrying!.lastError).toContain('blob store unreachable')
    const failed = (await sessionOf(organizationId, 'blob-short'))!
    expect(failed.status).toBe('failed')
    expect(failed.failureReason).toMatch(
      /^Analysis failed: the recording could not be read or analysed \(run [0-9a-f-]{36}\)\./,
    )
    expect(failed.failureReason).not.toContain('blob store unreachable')
    await expectNothingRecorded(organizationId, session.id)

    down = false
    const [run, ...others] = await finishedRuns(session.id)
    expect(others).toEqual([])
    expect(run).toMatchObject({ status: 'completed' })
    expect(run!.attempt).toBeGreaterThanOrEqual(1)
    expect(outage.failures()).toBeGreaterThanOrEqual(1)
    const done = (await sessionOf(organizationId, 'blob-short'))!
    // The retry resumed the run's own claim: the session was claimed once.
    expect(done).toMatchObject({ status: 'processed', processingAttempts: 1, failureReason: null })
    expect(done.processedThroughSequence).toBe(done.batchCount - 1)
    await expectRecordedOnce(organizationId, session.id)
  }, 60_000)

  it('fails the run when the store stays down through every retry, then the finalizer processes it once', async () => {
    const { organizationId, key } = await newOrganization('Blob outage, long')
    let down = true
    setBlobStoreForTests(readsFailWhile(() => down).store)
    await startEngine({ backoff: { baseMs: 20, maxMs: 50 } })
    await ingestSession(key, 'blob-long', endingNow(loadRecording('network-500').events), { final: true })
    const session = (await sessionOf(organizationId, 'blob-long'))!

    const [gaveUp] = await finishedRuns(session.id)
    // process-session has 3 retries: 4 attempts, every one stopped by the outage.
    expect(gaveUp).toMatchObject({ status: 'failed', attempt: 4, maxAttempts: 4 })
    expect(gaveUp!.lastError).toContain('blob store unreachable')
    const failed = (await sessionOf(organizationId, 'blob-long'))!
    expect(failed).toMatchObject({ status: 'failed', processingAttempts: 1 })
    expect(failed.failureReason).toMatch(
      /^Analysis failed: the recording could not be read or analysed \(run [0-9a-f-]{36}\)\./,
    )
    expect(failed.failureReason).not.toContain('blob store unreachable')
    await expectNothingRecorded(organizationId, session.id)

    // The store is back; the scheduled finalizer asks again for failed sessions with attempts left.
    down = false
    await startEngine({ backoff: { baseMs: 20, maxMs: 50 } }, 1)
    const done = await waitFor(
      'the finalizer to have the session processed',
      async () => {
        const row = await sessionOf(organizationId, 'blob-long')
        return row?.status === 'processed' ? row : undefined
      },
      WAIT_MS,
    )
    expect(done).toMatchObject({ processingAttempts: 2, failureReason: null })
    const runs = await finishedRuns(session.id, 2)
    expect(runs.map((r) => r.status)).toEqual(['failed', 'completed'])
    await expectRecordedOnce(organizationId, session.id)
  }, 60_000)
})

/** A model provider on loopback that takes every request and never answers. */
async function startSilentProvider() {
  const requests: Array<{ path: string; closed: boolean }> = []
  const server: Server = createServer((req) => {
    const request = { path: req.url ?? '', closed: false }
    requests.push(request)
    req.resume()
    req.socket.on('close', () => {
      request.closed = true
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('the language model provider never answering', () => {
  it('keeps the deterministic results after the call times out, and finishes the runs', async () => {
    const provider = await startSilentProvider()
    // Three calls wait out AI_TIMEOUT_SECONDS, two of them one after the other: the shortest
    // timeout an operator may set keeps the case short.
    setConfigForTests(parseConfig({ ...process.env, AI_TIMEOUT_SECONDS: '1' }))
    try {
      // The real AI SDK provider over real HTTP: only the provider's silence is made up.
      setLanguageModelForTests(
        createLanguageModel({
          kind: 'model',
          provider: 'openai-compatible',
          model: 'silent-model',
          baseUrl: provider.url,
        }),
      )
      const reviewed = await newOrganization('Model silent, review')
      const judged = await newOrganization('Model silent, signal')
      const signal = await seedSignal(db(), judged.organizationId, { name: 'Cart visits', prompt: '/cart' })
      await startEngine({ concurrency: 3 })
      // Side by side, so that the two calls wait out their timeouts at the same time: a new
      // issue the model is asked to review, and a signal it is asked to judge.
      await ingestSession(reviewed.key, 'model-review', endingNow(loadRecording('network-500').events), {
        final: true,
      })
      await ingestSession(judged.key, 'model-signal', endingNow(loadRecording('clean').events), {
        final: true,
      })
      const reviewSession = (await sessionOf(reviewed.organizationId, 'model-review'))!
      const signalSession = (await sessionOf(judged.organizationId, 'model-signal'))!

      const [reviewRun] = await finishedRuns(reviewSession.id)
      const [signalRun] = await finishedRuns(signalSession.id)
      // Neither call failed the run: the timeout is a fallback, not an error.
      for (const run of [reviewRun!, signalRun!])
        expect(run).toMatchObject({ status: 'completed', attempt: 0 })
      expect(reviewRun!.steps['ai-review']).toEqual({ value: 0 })
      expect(signalRun!.steps['ai-signals']).toEqual({ value: [signal.id] })
      // The session with an issue is also summarised by the model (issue 18); that call times
      // out the same way and leaves the deterministic summary.
      expect(reviewRun!.steps['ai-summary']).toEqual({ value: false })
      expect(signalRun!.steps['ai-summary']).toBeUndefined()
      // One call each reached the provider, and the client hung up on it: nothing left open.
      expect(provider.requests.map((r) => r.path)).toEqual([
        '/v1/chat/completions',
        '/v1/chat/completions',
        '/v1/chat/completions',
      ])
      await waitFor('the timed-out connections to close', async () =>
        provider.requests.every((r) => r.closed),
      )

      const issue = await expectRecordedOnce(reviewed.organizationId, reviewSession.id)
      const [event] = await outboxOf(reviewed.organizationId, EVENTS.issueCreated)
      // The deterministic text stands, unverified.
      expect(issue.aiVerified).toBeNull()
      expect(issue.title).toBe((event!.payload as { title: string }).title)

      const matches = await db().select().from(signalMatches).where(eq(signalMatches.signalId, signal.id))
      expect(matches.map((m) => ({ session: m.sessionId, matcher: m.evidence?.matcher }))).toEqual([
        { session: signalSession.id, matcher: 'deterministic' },
      ])
      const [counted] = await db().select().from(signals).where(eq(signals.id, signal.id))
      expect(counted!.matchCount).toBe(1)
      expect(await outboxOf(judged.organizationId, EVENTS.signalMatched)).toHaveLength(1)
      for (const session of [reviewSession, signalSession]) {
        const [row] = await db().select().from(replaySessions).where(eq(replaySessions.id, session.id))
        expect(row!.status).toBe('processed')
      }
      const undispatched = await db()
        .select({ n: count() })
        .from(outbox)
        .where(and(eq(outbox.organizationId, judged.organizationId), isNull(outbox.dispatchedAt)))
      expect(undispatched).toEqual([{ n: 0 }])
    } finally {
      setConfigForTests(undefined)
      await provider.close()
    }
  }, 90_000)
})

describe('the blob store failing under the dashboard replay', () => {
  const replayUrl = (id: string) => `http://localhost:3000/api/dashboard/sessions/${id}/events`
  const fetchReplay = (id: string, cookie: string) =>
    getReplayEvents(new Request(replayUrl(id), { headers: { cookie } }), {
      params: Promise.resolve({ sessionId: id }),
    })

  async function recordedSession() {
    const { organizationId, key } = await newOrganization('Replay outage')
    const events = loadRecording('multi-page').events
    await ingestSession(key, 'replay', events, { perBatch: 20 })
    const session = (await sessionOf(organizationId, 'replay'))!
    const member = await dashboardMember(db(), organizationId)
    return { session, member, events }
  }

  it('answers 500 with a generic JSON error when the store cannot be reached', async () => {
    const { session, member, events } = await recordedSession()
    const real = getBlobStore()
    setBlobStoreForTests(readsFailWhile(() => true).store)
    const response = await fetchReplay(session.id, member.cookie)
    expect(response.status).toBe(500)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('x-request-id')).toBeTruthy()
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({ error: 'Internal server error' })
    expect(text).not.toMatch(/unreachable|ECONNREFUSED|10\.0\.0\.7|token/)

    // The same request once the store answers: the whole replay, so nothing was lost.
    setBlobStoreForTests(real)
    const again = await fetchReplay(session.id, member.cookie)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(events)
  })

  it('breaks the download, never answering a shorter array, when a later batch cannot be read', async () => {
    const { session, member } = await recordedSession()
    expect(session.batchCount).toBeGreaterThan(1)
    let reads = 0
    // The first batch is read, then the store goes away in the middle of the stream.
    setBlobStoreForTests(readsFailWhile(() => ++reads > 1).store)
    const response = await fetchReplay(session.id, member.cookie)
    // The status line left with the first batch; the failure can only show in the body.
    expect(response.status).toBe(200)
    await expect(response.text()).rejects.toThrow()
    expect(reads).toBeGreaterThan(1)
  })
})

/** A Vercel Blob API that answers every call 503 `service_unavailable`, as during an outage. */
async function startUnavailableBlobApi() {
  let requests = 0
  const server: Server = createServer((req, res) => {
    requests++
    req.resume()
    res
      .writeHead(503, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { code: 'service_unavailable', message: 'Service unavailable' } }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/blob`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('blob writes failing', () => {
  it('answers a final batch whose upload fails with 500, asks for no processing, and processes the re-send once', async () => {
    const { organizationId, key } = await newOrganization('Upload outage')
    const real = getBlobStore()
    setBlobStoreForTests(
      overriding(real, {
        put: async () => {
          throw new Error(OUTAGE)
        },
      }),
    )
    await startEngine({})
    const events = endingNow(loadRecording('network-500').events)
    const [batch] = recorderBatches({ sessionId: 'upload-final', events, final: true })
    const failed = await sendBatch(batch, { key })
    expect(failed.status).toBe(500)
    const text = await failed.text()
    expect(JSON.parse(text)).toEqual({
      error: 'Internal server error',
      requestId: failed.headers.get('x-request-id'),
    })
    expect(text).not.toMatch(/unreachable|ECONNREFUSED|token/)
    // No partial rows: no session, and no event asking for its processing.
    expect(await sessionOf(organizationId, 'upload-final')).toBeUndefined()
    expect(await outboxOf(organizationId, EVENTS.sessionFinalize)).toEqual([])

    setBlobStoreForTests(real)
    const again = await sendBatch(batch, { key })
    expect(again.status).toBe(200)
    const session = (await sessionOf(organizationId, 'upload-final'))!
    const [run, ...others] = await finishedRuns(session.id)
    expect(others).toEqual([])
    expect(run).toMatchObject({ status: 'completed', attempt: 0 })
    expect(await outboxOf(organizationId, EVENTS.sessionFinalize)).toHaveLength(1)
    await expectRecordedOnce(organizationId, session.id)
  })

  it('answers ingest with 500 when Vercel Blob keeps failing, instead of waiting out the SDK’s retries', async () => {
    const { organizationId, key } = await newOrganization('Vercel Blob outage')
    const fake = await startVercelBlobFake()
    const outage = await startUnavailableBlobApi()
    try {
      // The real adapter and SDK; the store's API answers 503, which the SDK retries for
      // half an hour. A one-second deadline stands in for the adapter's default of 15 s.
      process.env.VERCEL_BLOB_API_URL = outage.url
      setBlobStoreForTests(new VercelBlobStore(fake.token, { deadlineMs: 1000 }))
      const events = endingNow(loadRecording('network-500').events)
      const [batch] = recorderBatches({ sessionId: 'vercel-outage', events, final: false })
      const failed = await sendBatch(batch, { key })
      expect(failed.status).toBe(500)
      expect(await failed.json()).toEqual({
        error: 'Internal server error',
        requestId: failed.headers.get('x-request-id'),
      })
      expect(outage.requests()).toBeGreaterThanOrEqual(1)
      expect(await sessionOf(organizationId, 'vercel-outage')).toBeUndefined()

      process.env.VERCEL_BLOB_API_URL = fake.apiUrl
      const again = await sendBatch(batch, { key })
      expect(again.status).toBe(200)
      const session = (await sessionOf(organizationId, 'vercel-outage'))!
      expect(session.batchCount).toBe(1)
      expect([...fake.blobs.keys()]).toHaveLength(1)
    } finally {
      await outage.close()
      await fake.close()
    }
  })

  it('answers ingest with 500 when an S3 server takes the upload and never answers', async () => {
    const { organizationId, key } = await newOrganization('S3 outage')
    let requests = 0
    const silent: Server = createServer(() => {
      requests++
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const credentials = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY }
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER'
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER'
    try {
      // The real adapter and SDK; a one-second deadline stands in for the default of 15 s.
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      setBlobStoreForTests(
        new S3BlobStore(
          { kind: 's3', bucket: 'replays', region: 'us-east-1', endpoint, forcePathStyle: true },
          { deadlineMs: 1000 },
        ),
      )
      const events = endingNow(loadRecording('network-500').events)
      const [batch] = recorderBatches({ sessionId: 's3-outage', events, final: false })
      const failed = await sendBatch(batch, { key })
      expect(failed.status).toBe(500)
      expect(await failed.json()).toEqual({
        error: 'Internal server error',
        requestId: failed.headers.get('x-request-id'),
      })
      expect(requests).toBeGreaterThanOrEqual(1)
      expect(await sessionOf(organizationId, 's3-outage')).toBeUndefined()
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
      // The later tests of this file must not find credentials they never set.
      for (const [name, value] of [
        ['AWS_ACCESS_KEY_ID', credentials.id],
        ['AWS_SECRET_ACCESS_KEY', credentials.secret],
      ] as const)
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
    }
  })

  it('keeps the session rows when retention cannot delete its replay files, and the next run deletes both', async () => {
    const { organizationId, key } = await newOrganization('Retention outage')
    await ingestSession(key, 'expired', loadRecording('clean').events, { perBatch: 20 })
    const session = (await sessionOf(organizationId, 'expired'))!
    await db()
      .update(replaySessions)
      .set({ startedAt: new Date(Date.now() - 40 * 86_400_000) })
      .where(eq(replaySessions.id, session.id))
    const real = getBlobStore()
    const folder = sessionBlobFolder(organizationId, 'expired')
    const stored = await real.list(folder)
    expect(stored.length).toBe(session.batchCount)
    // The store deletes one file, then the connection drops.
    let deletes = 0
    const failing = overriding(real, {
      delete: async (keys) => {
        if (deletes++ === 0) await real.delete(keys.slice(0, 1))
        throw new Error(OUTAGE)
      },
    })

    await expect(sweepRetention(db(), failing)).rejects.toThrow('blob store unreachable')
    // The row stays, so the next run finds the session again; no file is left without a row.
    expect(await sessionOf(organizationId, 'expired')).toBeDefined()
    expect((await real.list(folder)).length).toBe(stored.length - 1)

    const result = await sweepRetention(db(), real)
    expect(result.sessions).toBeGreaterThanOrEqual(1)
    expect(await sessionOf(organizationId, 'expired')).toBeUndefined()
    expect(await real.list(folder)).toEqual([])
  })
})
