import { InngestTestEngine } from '@inngest/test'
import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { jobRuns, outbox, replaySessions } from '@/db/schema'
import { buildJobDefinitions, getJobsEngine } from '@/inngest/app'
import { el, page, txt } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'
import { AnalysisPool } from '@/lib/analysis-worker/pool'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { getConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createInngestClient, toInngestFunction } from '@/lib/jobs/inngest'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { MAX_PROCESSING_ATTEMPTS, sweepSessions } from '@/lib/processing/finalizer'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { heldAnalysisPool } from '../helpers/held-analysis'
import { sendBatch } from '../helpers/ingest'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

let database: TestDatabase
let app: JobsEngine
let orgId: string
let ingestKey: string
let apiKey: string
const defaults = getConfig()

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Shop' })).id
  ingestKey = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
  apiKey = (await createKey(database.db, { organizationId: orgId, type: 'api' })).key
  app = getJobsEngine()
  await app.start()
})
afterEach(async () => {
  setConfigForTests(defaults)
  await setAnalysisPoolForTests(undefined)
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

const MB = 1024 * 1024

/** Text of `length` characters that gzip shrinks well but is not one repeated character. */
function filler(seed: string, length: number): string {
  return seed.repeat(Math.ceil(length / seed.length)).slice(0, length)
}

function consoleError(at: number, message: string, trace: string[]): RrwebEvent {
  return {
    type: 6,
    timestamp: at,
    data: {
      plugin: 'rrweb/console@1',
      payload: { level: 'error', trace, payload: [JSON.stringify(message)] },
    },
  }
}

/**
 * What an ingest key holder can send: 1 MB error messages, 300 KB stack lines and a page with
 * 1 MB of CSS, each batch within the ingest limits (gzip on the wire).
 */
function hostileEvents(errors: number): RrwebEvent[] {
  const start = Date.now() - 120_000
  const css = filler('.a{color:red} .b > .c:hover{margin:0 0 0 0} ', MB)
  const events: RrwebEvent[] = [
    { type: 4, timestamp: start, data: { href: 'http://127.0.0.1/hostile', width: 1280, height: 800 } },
    {
      type: 2,
      timestamp: start + 1,
      data: {
        initialOffset: { top: 0, left: 0 },
        node: page([el(6, 'body')], [el(4, 'style', {}, [{ ...txt(5, css), isStyle: true }])]),
      },
    },
  ]
  for (let i = 0; i < errors; i++) {
    const message = `TypeError: ${filler(`value ${i} (a (b (c)))  at x.y[z] `, MB)}`
    const trace = [
      `at f (${filler('http://127.0.0.1/assets/app.js:1:1/', 300 * 1024)})`,
      `at g (${filler('  (  (  ) ', 300 * 1024)})`,
    ]
    events.push(consoleError(start + 10 + i, message, trace))
  }
  return events
}

/** Sends events through the ingest route handler, one event a batch, gzipped as the recorder may. */
async function ingestHostile(externalId: string, events: RrwebEvent[], perBatch = 1): Promise<string> {
  for (const batch of recorderBatches({ sessionId: externalId, events, perBatch })) {
    const response = await sendBatch(batch, { key: ingestKey, gzip: true })
    expect(response.status, await response.clone().text()).toBe(200)
  }
  return sessionIdOf(externalId)
}

async function sessionIdOf(externalId: string): Promise<string> {
  const [row] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, orgId), eq(replaySessions.externalId, externalId)))
  return row!.id
}

async function sessionRow(id: string) {
  const [row] = await database.db.select().from(replaySessions).where(eq(replaySessions.id, id))
  return row!
}

const settled = (id: string) =>
  waitFor(
    `session ${id} to be processed or failed`,
    async () => {
      const row = await sessionRow(id)
      return row.status === 'processed' || row.status === 'failed' ? row : undefined
    },
    90_000,
  )

function withBudget(analysis: { timeoutSeconds: number; memoryMb: number }) {
  setConfigForTests({ ...defaults, analysis })
}

/** An ordinary session with one JavaScript error: its issue must show up in the Data API. */
async function ordinarySessionIsProcessed(externalId: string) {
  await ingestSession(ingestKey, externalId, endingNow(loadRecording('js-error-after-click').events), {
    final: true,
    perBatch: 20,
  })
  const row = await settled(await sessionIdOf(externalId))
  expect(row.failureReason).toBeNull()
  expect(row.status).toBe('processed')
  const response = await api.listIssues(apiKey, { limit: 100 })
  expect(response.status).toBe(200)
  const { issues } = (await response.json()) as { issues: { title: string; sessionCount: number }[] }
  expect(issues.map((issue) => issue.title)).toEqual(
    expect.arrayContaining([expect.stringContaining("reading 'price'")]),
  )
}

async function finalizeRequests(sessionId: string) {
  const rows = await database.db.select().from(outbox).where(eq(outbox.name, EVENTS.sessionFinalize))
  return rows.filter((row) => (row.payload as { sessionId?: string }).sessionId === sessionId).length
}

describe('a hostile session is analysed off the server thread', () => {
  it('answers the Data API while the worker is stuck on it, then processes the next session', async () => {
    withBudget({ timeoutSeconds: 30, memoryMb: 256 })
    const held = heldAnalysisPool()
    await setAnalysisPoolForTests(held.pool)

    const id = await ingestHostile('hostile', hostileEvents(4))
    // The worker has taken the first batch and is blocked (synchronously) on it.
    await waitFor('the worker to hold the hostile session', async () => held.held() >= 1, 30_000)
    const response = await api.listIssues(apiKey)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ issues: expect.any(Array), nextCursor: null })
    // Answered while the analysis had not got past its first batch.
    expect(held.held()).toBe(1)
    expect((await sessionRow(id)).status).toBe('processing')

    held.release()
    const row = await settled(id)
    if (row.status === 'failed') expect(row.failureReason).toMatch(/^Analysis stopped: /)
    else expect(row.failureReason).toBeNull()

    await ordinarySessionIsProcessed('after-hostile')
  }, 180_000)

  it('fails a session over its time budget with the reason, once, and processes the next one', async () => {
    // The held worker never lets go: like a recording whose analysis never ends.
    withBudget({ timeoutSeconds: 1, memoryMb: 256 })
    const held = heldAnalysisPool()
    await setAnalysisPoolForTests(held.pool)

    const id = await ingestHostile('too-slow', hostileEvents(1))
    const row = await settled(id)
    expect(row.status).toBe('failed')
    expect(row.failureReason).toMatch(
      /^Analysis stopped: the recording took more than 1 s to analyse \(limit ANALYSIS_TIMEOUT_SECONDS\)\. It is not retried/,
    )
    expect(row.processingClaim).toBeNull()
    expect(row.processingAttempts).toBeGreaterThanOrEqual(MAX_PROCESSING_ATTEMPTS)
    expect(held.pool.workerCount).toBe(0)

    // The run ended without spending its retries, and the finalizer does not ask again.
    const mine = await waitFor('the run to end', async () => {
      const runs = await database.db.select().from(jobRuns).where(eq(jobRuns.functionId, 'process-session'))
      const rows = runs.filter((run) => (run.payload as { sessionId?: string }).sessionId === id)
      return rows.every((run) => run.status !== 'running' && run.status !== 'queued') ? rows : undefined
    })
    expect(mine.map((run) => [run.status, run.attempt])).toEqual([['completed', 0]])
    const asked = await finalizeRequests(id)
    await sweepSessions(database.db, app, { idleSeconds: 0 })
    expect(await finalizeRequests(id)).toBe(asked)
    expect((await sessionRow(id)).status).toBe('failed')

    await setAnalysisPoolForTests(new AnalysisPool({ size: 1, idleMs: 60_000 }))
    withBudget({ timeoutSeconds: 60, memoryMb: 256 })
    await ordinarySessionIsProcessed('after-too-slow')
  }, 120_000)

  it('fails a session over its memory budget with the reason and processes the next one', async () => {
    const pool = new AnalysisPool({ size: 1, idleMs: 60_000 })
    await setAnalysisPoolForTests(pool)
    // One batch of about 9 MB of JSON cannot even be parsed within a 16 MB heap.
    withBudget({ timeoutSeconds: 60, memoryMb: 16 })
    const id = await ingestHostile('too-big', hostileEvents(5), 10)
    const row = await settled(id)
    expect(row.status).toBe('failed')
    expect(row.failureReason).toMatch(
      /^Analysis stopped: the recording needed more than 16 MB of memory to analyse \(limit ANALYSIS_MEMORY_MB\)\./,
    )

    withBudget({ timeoutSeconds: 60, memoryMb: 256 })
    await ordinarySessionIsProcessed('after-too-big')
    expect(pool.workerCount).toBe(1)
  }, 120_000)
})

describe('the same budget on Inngest', () => {
  it('ends the process-session function with the session failed, without an error to retry', async () => {
    withBudget({ timeoutSeconds: 1, memoryMb: 256 })
    const held = heldAnalysisPool()
    await setAnalysisPoolForTests(held.pool)
    // Not flushed as final: only the Inngest function below processes it.
    await ingestSession(ingestKey, 'inngest-too-slow', endingNow(loadRecording('console-error').events), {
      final: false,
    })
    const id = await sessionIdOf('inngest-too-slow')
    const definition = buildJobDefinitions(getConfig()).find((d) => d.id === 'process-session')!
    const client = createInngestClient({ kind: 'inngest', dev: true })
    const engine = new InngestTestEngine({ function: toInngestFunction(definition, client) })
    const { result, error } = await engine.execute({
      events: [
        {
          name: EVENTS.sessionFinalize,
          data: { organizationId: orgId, sessionId: id },
          id: 'evt-too-slow',
          ts: Date.now(),
        },
      ],
    })
    expect(error).toBeUndefined()
    expect(result).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/^Analysis stopped: the recording took more than 1 s to analyse/),
    })
    expect(held.held()).toBe(1)
    const row = await sessionRow(id)
    expect(row.status).toBe('failed')
    expect(row.failureReason).toBe((result as { reason: string }).reason)
  }, 60_000)
})
