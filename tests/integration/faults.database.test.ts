/**
 * Database faults, over the real route handlers and the real jobs engine. The app's database
 * is opened through a TCP proxy (tests/helpers/tcp-proxy.ts) that the test cuts and restores.
 *
 * These cases need a real Postgres server and run only when DATABASE_URL is set; on PGlite
 * (in-process, no socket to cut) the whole file is skipped. CI runs the suite on Postgres
 * too, so they run there:
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run tests/integration/faults.database.test.ts
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { and, count, eq } from 'drizzle-orm'
import postgres from 'postgres'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type DatabaseHandle } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { issueSessions, issues, jobRuns, outbox, replayBatches, replaySessions } from '@/db/schema'
import { buildJobDefinitions } from '@/inngest/app'
import type { StoredBatch } from '@/lib/analysis-worker/pool'
import { getSessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createJobsEngine } from '@/lib/jobs'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { sendBatch } from '../helpers/ingest'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'
import { waitFor } from '../helpers/wait'

const serverUrl = process.env.DATABASE_URL?.trim()

/**
 * Long enough for postgres.js's connect_timeout (10 s) to have answered, short enough that a
 * request that never settles fails the test instead of hanging it: a fault must produce an
 * answer, not a stuck request.
 */
const SETTLE_MS = 15_000

function settles<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${SETTLE_MS} ms`)), SETTLE_MS)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

/** A body as the recorder sends it: one batch of a session. */
async function* noBatches(): AsyncGenerator<StoredBatch> {}

function batchBody(sessionId: string, sequence: number, flush: 'normal' | 'final' = 'normal') {
  const now = Date.now() - 60_000
  const events = [
    { type: 4, timestamp: now, data: { href: 'http://127.0.0.1/', width: 1280, height: 800 } },
    { type: 3, timestamp: now + 10, data: { source: 2, type: 2, id: 1, x: 1, y: 1 } },
  ]
  return recorderBatches({ sessionId, events, firstSequence: sequence, final: flush === 'final' })[0]
}

/** Asserts the answer of a request made while the database was unreachable. */
async function expectClearServerError(response: Response, options: { requestIdInBody: boolean }) {
  expect([500, 503]).toContain(response.status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const requestId = response.headers.get('x-request-id')
  expect(requestId).toBeTruthy()
  const text = await response.text()
  const body = JSON.parse(text) as { error?: unknown; requestId?: unknown }
  expect(typeof body.error).toBe('string')
  if (options.requestIdInBody) expect(body.requestId).toBe(requestId)
  // Nothing of the driver's failure reaches the client: no stack, no address, no error code.
  expect(text).not.toMatch(/ECONNRE|CONNECTION_|at .*\(|127\.0\.0\.1|postgres/i)
}

describe.skipIf(!serverUrl)('database faults (real Postgres through a cuttable proxy)', () => {
  let proxy: TcpProxy
  let app: DatabaseHandle
  /** A direct connection (not through the proxy) for assertions while the app's is cut. */
  let direct: DatabaseHandle
  let databaseName: string
  let organizationId: string
  let ingestKey: string
  let apiKey: string

  beforeAll(async () => {
    const server = new URL(serverUrl!)
    databaseName = `test_faults_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} })
    try {
      await admin.unsafe(`create database "${databaseName}"`)
    } finally {
      await admin.end()
    }
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) })
    const proxied = new URL(serverUrl!)
    proxied.hostname = '127.0.0.1'
    proxied.port = String(proxy.port)
    proxied.pathname = `/${databaseName}`
    app = await openMigratedDatabase({ kind: 'postgres', url: proxied.toString() }, { maxConnections: 5 })
    const directUrl = new URL(serverUrl!)
    directUrl.pathname = `/${databaseName}`
    direct = await createDb({ kind: 'postgres', url: directUrl.toString() }, { maxConnections: 2 })
    useDatabase(app)
    organizationId = (await createOrganization(app.db, { name: 'Faults' })).id
    ingestKey = (await createKey(app.db, { organizationId, type: 'ingest' })).key
    apiKey = (await createKey(app.db, { organizationId, type: 'api' })).key
  })

  afterAll(async () => {
    useDatabase(undefined)
    await app?.close()
    await direct?.close()
    await proxy?.close()
    if (!databaseName) return
    const cleanup = postgres(serverUrl!, { max: 1, onnotice: () => {} })
    try {
      await cleanup.unsafe(`drop database if exists "${databaseName}" with (force)`)
    } finally {
      await cleanup.end()
    }
  })

  afterEach(async () => {
    await proxy.restore()
    setBlobStoreForTests(undefined)
  })

  async function batchesOf(externalId: string) {
    return direct.db
      .select({ id: replayBatches.id, sequence: replayBatches.sequence, blobKey: replayBatches.blobKey })
      .from(replayBatches)
      .innerJoin(replaySessions, eq(replaySessions.id, replayBatches.sessionId))
      .where(
        and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)),
      )
  }

  async function sessionOf(externalId: string) {
    const [row] = await direct.db
      .select()
      .from(replaySessions)
      .where(
        and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)),
      )
    return row
  }

  it('answers ingest with a clear JSON error while the database is cut, and stores the re-sent batch once', async () => {
    const body = batchBody('cut-ingest', 0)
    await proxy.cut()
    // The first request meets the pool's broken connections, the second a refused connect.
    for (const attempt of ['first', 'second']) {
      const response = await settles(`${attempt} ingest while cut`, sendBatch(body, { key: ingestKey }))
      await expectClearServerError(response, { requestIdInBody: true })
    }
    expect(await sessionOf('cut-ingest')).toBeUndefined()

    await proxy.restore()
    const again = await settles('ingest after restore', sendBatch(body, { key: ingestKey }))
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ ok: true })
    const third = await settles('re-send after restore', sendBatch(body, { key: ingestKey }))
    expect(third.status).toBe(200)
    expect(await batchesOf('cut-ingest')).toHaveLength(1)
    expect(await sessionOf('cut-ingest')).toMatchObject({ batchCount: 1, eventCount: 2 })
  })

  it('leaves no row when the database drops after the blob is written, and stores the re-sent batch once', async () => {
    const real = getBlobStore()
    const written: string[] = []
    // A second batch of an existing session, so the transaction has a session row to update.
    const first = await settles('first batch', sendBatch(batchBody('cut-after-blob', 0), { key: ingestKey }))
    expect(first.status).toBe(200)
    // The blob upload succeeds, then the database goes away before the rows are written.
    const cutAfterPut: BlobStore = {
      ...real,
      kind: real.kind,
      put: async (key, data, options) => {
        await real.put(key, data, options)
        written.push(key)
        await proxy.cut()
      },
    }
    setBlobStoreForTests(cutAfterPut)

    const body = batchBody('cut-after-blob', 1)
    const response = await settles('ingest cut after the blob', sendBatch(body, { key: ingestKey }))
    await expectClearServerError(response, { requestIdInBody: true })
    expect(written).toHaveLength(1)
    // No partial rows: neither the batch nor the session's counters moved.
    expect((await batchesOf('cut-after-blob')).map((b) => b.sequence)).toEqual([0])
    expect(await sessionOf('cut-after-blob')).toMatchObject({ batchCount: 1, eventCount: 2 })

    await proxy.restore()
    setBlobStoreForTests(real)
    const again = await settles('re-send after restore', sendBatch(body, { key: ingestKey }))
    expect(again.status).toBe(200)
    const batches = await batchesOf('cut-after-blob')
    expect(batches.map((b) => b.sequence).sort()).toEqual([0, 1])
    // The re-send found the blob written before the failure (same key) and made one row of it.
    expect(batches.find((b) => b.sequence === 1)!.blobKey).toBe(written[0])
    expect(await sessionOf('cut-after-blob')).toMatchObject({ batchCount: 2, eventCount: 4 })
  })

  it('answers the Data API with a clear JSON error while cut, and recovers without a restart', async () => {
    // A connection is open and idle in the pool when the cut comes: the pool must notice.
    expect((await api.listIssues(apiKey)).status).toBe(200)
    await proxy.cut()
    const response = await settles('Data API while cut', api.listIssues(apiKey))
    await expectClearServerError(response, { requestIdInBody: false })
    const second = await settles('Data API again while cut', api.listIssues(apiKey))
    await expectClearServerError(second, { requestIdInBody: false })

    await proxy.restore()
    const after = await settles('Data API after restore', api.listIssues(apiKey))
    expect(after.status).toBe(200)
    expect(await after.json()).toEqual({ issues: [], nextCursor: null })
  })

  it('answers promptly when the database host accepts connections and drops them at once', async () => {
    // What a TCP load balancer or pooler in front of a stopped database does: the connect
    // succeeds, the connection closes before the startup reply. Each request must still
    // settle with a clear error rather than wait for the database to come back.
    expect((await api.listIssues(apiKey)).status).toBe(200)
    await proxy.cut('reset')
    const resetBefore = proxy.reset
    // The first request meets the pool's broken connection; the later ones must dial anew.
    for (const attempt of ['first', 'second']) {
      const listed = await settles(`${attempt} Data API request while reset`, api.listIssues(apiKey))
      await expectClearServerError(listed, { requestIdInBody: false })
    }
    const ingested = await settles(
      'ingest while reset',
      sendBatch(batchBody('reset-ingest', 0), { key: ingestKey }),
    )
    await expectClearServerError(ingested, { requestIdInBody: true })
    expect(proxy.reset).toBeGreaterThan(resetBefore)

    await proxy.restore()
    expect((await settles('Data API after restore', api.listIssues(apiKey))).status).toBe(200)
    const again = await settles(
      'ingest after restore',
      sendBatch(batchBody('reset-ingest', 0), { key: ingestKey }),
    )
    expect(again.status).toBe(200)
    expect(await batchesOf('reset-ingest')).toHaveLength(1)
  })

  it('finishes processing a session cut off mid-analysis exactly once after the database returns', async () => {
    const events = endingNow(loadRecording('network-500').events)
    await ingestSession(ingestKey, 'cut-processing', events, { perBatch: 20 })
    const session = await sessionOf('cut-processing')
    const real = getBlobStore()
    let reached!: () => void
    const stalled = new Promise<void>((resolve) => {
      reached = resolve
    })
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let first = true
    const hold = async () => {
      if (!first) return
      first = false
      reached()
      await gate
    }
    // The first read of the session's events waits until the test has cut the database.
    const gated: BlobStore = {
      ...real,
      kind: real.kind,
      get: async (key) => {
        await hold()
        return real.get(key)
      },
      stream: async (key) => {
        await hold()
        return real.stream(key)
      },
    }
    // A warm analysis worker: one started cold from TypeScript source under a loaded machine
    // can take longer than the cut lasts, and the whole pass would then run after the restore.
    const analysis = getSessionAnalysis()
    await analysis.pool.analyse(noBatches(), {}, analysis.budget)
    setBlobStoreForTests(gated)
    const engine: JobsEngine = createJobsEngine({ kind: 'in-process' }, buildJobDefinitions(getConfig()), {
      inProcess: {
        pollIntervalMs: 50,
        leaseMs: 400,
        stopTimeoutMs: 200,
        backoff: { baseMs: 50, maxMs: 200 },
      },
    })
    try {
      await engine.send({
        name: EVENTS.sessionFinalize,
        id: randomUUID(),
        data: { organizationId, sessionId: session!.id },
      })
      await engine.start()
      await settles('the analysis to reach the blob read', stalled)
      await proxy.cut()
      release()
      // Long enough for the analysis to fail its writes and for the engine to poll, find its
      // lease expired and retry several times against the refused database (poll 50 ms,
      // lease 400 ms, backoff <= 200 ms); nothing is asserted about timing.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect((await sessionOf('cut-processing'))!.status).not.toBe('processed')

      await proxy.restore()
      const done = await waitFor('the session to be processed', async () => {
        const row = await sessionOf('cut-processing')
        return row?.status === 'processed' ? row : undefined
      })
      const runs = await waitFor('the runs to finish', async () => {
        const all = await direct.db.select().from(jobRuns).where(eq(jobRuns.functionId, 'process-session'))
        const mine = all.filter((r) => (r.payload as { sessionId?: string }).sessionId === session!.id)
        return mine.length && mine.every((r) => r.status !== 'running' && r.status !== 'queued')
          ? mine
          : undefined
      })
      expect(runs.map((r) => r.status)).toEqual(['completed'])
      // The run met the cut: the first claim (attempt 0) could not finish or record its
      // failure, so a later claim took over its expired lease (which counts an attempt).
      expect(runs[0]!.attempt).toBeGreaterThan(0)
      // Every batch was analysed: the last sequence processed is the last one stored.
      expect(done.processedThroughSequence).toBe(done.batchCount - 1)

      const found = await direct.db
        .select()
        .from(issues)
        .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'network_error')))
      expect(found).toHaveLength(1)
      expect(found[0]!.sessionCount).toBe(1)
      const links = await direct.db
        .select({ n: count() })
        .from(issueSessions)
        .where(eq(issueSessions.sessionId, session!.id))
      expect(links[0]!.n).toBe(1)
      const created = await direct.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.name, EVENTS.issueCreated), eq(outbox.organizationId, organizationId)))
      expect(created.filter((e) => (e.payload as { issueId: string }).issueId === found[0]!.id)).toHaveLength(
        1,
      )
    } finally {
      release()
      await engine.stop()
    }
  })
})
