import { MockLanguageModelV3 } from 'ai/test'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  insights,
  issueActivities,
  issueSessions,
  issues,
  jobRuns,
  outbox,
  replaySessions,
  signals,
} from '@/db/schema'
import { buildJobDefinitions, getJobsEngine } from '@/inngest/app'
import { setLanguageModelForTests } from '@/lib/ai/model'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { intervalFigures } from '@/lib/insights/figures'
import { generateInsightsForInterval } from '@/lib/insights/generate'
import { createJobsEngine } from '@/lib/jobs'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { sweepSessions } from '@/lib/processing/finalizer'
import { createSignal } from '@/lib/signals/create-signal'
import { getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

let database: TestDatabase
let organizationId: string
let key: string
let app: JobsEngine

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
  app = getJobsEngine()
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})
afterEach(() => setBlobStoreForTests(undefined))

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

async function issuesOfKind(kind: string) {
  return database.db
    .select()
    .from(issues)
    .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, kind)))
}

describe('session processing through the in-process engine', () => {
  it('turns the same error in 3 sessions of different lengths into one issue seen in 3 sessions', async () => {
    await app.start()
    for (const n of [1, 2, 3]) {
      const recording = loadRecording(`same-error-3-sessions-${n}`)
      await ingestSession(key, `same-error-${n}`, endingNow(recording.events), { final: true, perBatch: 25 })
    }
    for (const n of [1, 2, 3]) await processed(`same-error-${n}`)
    const errors = await issuesOfKind('js_error')
    expect(errors).toHaveLength(1)
    const [issue] = errors
    expect(issue).toMatchObject({ sessionCount: 3, status: 'unresolved', sourceType: 'session_analysis' })
    expect(issue!.title).toContain('price')
    expect(issue!.stepsToReplicate).toMatch(/1\./)
    // Whichever session was analysed first filed it, with why it got its priority (issue 15).
    expect(issue!.priorityReason).toMatch(/^Uncaught errors start at high; (\+1 blocking|not blocking): the /)
    expect(issue!.previewUrl).toMatch(
      new RegExp(`^${getConfig().baseUrl}/issues/${issue!.id}\\?session=[0-9a-f-]{36}&t=\\d+$`),
    )
    const links = await database.db.select().from(issueSessions).where(eq(issueSessions.issueId, issue!.id))
    expect(links).toHaveLength(3)
    const created = await database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.name, EVENTS.issueCreated), eq(outbox.organizationId, organizationId)))
    expect(created.filter((e) => (e.payload as { issueId: string }).issueId === issue!.id)).toHaveLength(1)
    expect(created[0]!.payload).toMatchObject({
      issueId: issue!.id,
      orgId: organizationId,
      sourceType: 'session_analysis',
    })
  })

  it('changes nothing when a batch is sent again', async () => {
    const before = await sessionRow('same-error-1')
    const recording = loadRecording('same-error-3-sessions-1')
    const [issue] = await issuesOfKind('js_error')
    // The first batch again: stored once already, so the session is not re-opened.
    await ingestSession(key, 'same-error-1', endingNow(recording.events).slice(0, 25), { perBatch: 25 })
    const after = await sessionRow('same-error-1')
    expect(after).toMatchObject({
      status: 'processed',
      batchCount: before!.batchCount,
      eventCount: before!.eventCount,
    })
    const [again] = await issuesOfKind('js_error')
    expect(again!.sessionCount).toBe(issue!.sessionCount)
  })

  it('processes a session once when flush: final races the finalizer', async () => {
    // Both triggers are queued before the engine runs, so their runs start together.
    await app.stop()
    const events = endingNow(loadRecording('js-error-after-click').events)
    await ingestSession(key, 'race', events, { final: true, perBatch: 6 })
    await Promise.all([
      sweepSessions(database.db, app, { idleSeconds: 0 }),
      sweepSessions(database.db, app, { idleSeconds: 0 }),
    ])
    const session = await sessionRow('race')
    const queued = await database.db.select().from(jobRuns).where(eq(jobRuns.functionId, 'process-session'))
    expect(queued.filter((r) => (r.payload as { sessionId?: string }).sessionId === session!.id).length).toBe(
      2,
    )
    await app.start()
    await processed('race')
    await waitFor('both runs to finish', async () => {
      const runs = await database.db.select().from(jobRuns).where(eq(jobRuns.functionId, 'process-session'))
      const mine = runs.filter((r) => (r.payload as { sessionId?: string }).sessionId === session!.id)
      return mine.every((r) => r.status === 'completed') ? mine : undefined
    })
    const row = await sessionRow('race')
    expect(row!.status).toBe('processed')
    expect(row!.processingAttempts).toBe(1)
    const links = await database.db
      .select({ n: count() })
      .from(issueSessions)
      .where(eq(issueSessions.sessionId, row!.id))
    expect(links[0]!.n).toBe(1)
  })

  it('re-opens a processed session for a late batch and never counts it twice', async () => {
    const events = endingNow(loadRecording('js-error-after-click').events)
    await ingestSession(key, 'late', events, { final: true })
    const first = await processed('late')
    const [issue] = await issuesOfKind('js_error')
    const countBefore = issue!.sessionCount
    const more = endingNow(loadRecording('js-error-after-click').events, 1000).filter((e) => e.type === 3)
    await ingestSession(key, 'late', more.length ? more : events.slice(-1), {
      firstSequence: first.batchCount,
      final: true,
    })
    await waitFor('the late batch to be processed', async () => {
      const row = await sessionRow('late')
      return row?.status === 'processed' && row.processedThroughSequence === first.batchCount
        ? row
        : undefined
    })
    const [after] = await issuesOfKind('js_error')
    expect(after!.sessionCount).toBe(countBefore)
  })

  it('resumes a run killed in the middle of processing, without duplicates', async () => {
    await app.stop()
    const events = endingNow(loadRecording('network-500').events)
    await ingestSession(key, 'crash', events, { perBatch: 20 })
    const real = getBlobStore()
    let reads = 0
    const stalling: BlobStore = {
      ...real,
      kind: real.kind,
      get: (blobKey) => (++reads >= 2 ? new Promise(() => {}) : real.get(blobKey)),
    }
    setBlobStoreForTests(stalling)
    const config = getConfig()
    const options = {
      pollIntervalMs: 50,
      leaseMs: 400,
      stopTimeoutMs: 100,
      backoff: { baseMs: 50, maxMs: 200 },
    }
    const first = createJobsEngine({ kind: 'in-process' }, buildJobDefinitions(config), {
      inProcess: options,
    })
    const session = await sessionRow('crash')
    await first.send({
      name: EVENTS.sessionFinalize,
      id: crypto.randomUUID(),
      data: { organizationId, sessionId: session!.id },
    })
    await first.start()
    await waitFor('the first engine to stall mid-analysis', async () => reads >= 2)
    await first.stop()
    expect((await sessionRow('crash'))!.status).toBe('processing')

    setBlobStoreForTests(real)
    const second = createJobsEngine({ kind: 'in-process' }, buildJobDefinitions(config), {
      inProcess: options,
    })
    await second.start()
    try {
      const done = await processed('crash')
      expect(done.processingAttempts).toBe(1)
      const networkIssues = await issuesOfKind('network_error')
      expect(networkIssues).toHaveLength(1)
      expect(networkIssues[0]!.sessionCount).toBe(1)
      // The run is marked completed after its last step has committed the session: wait for it.
      const mine = await waitFor('the resumed run to complete', async () => {
        const runs = await database.db.select().from(jobRuns).where(eq(jobRuns.functionId, 'process-session'))
        const ofSession = runs.filter((r) => (r.payload as { sessionId?: string }).sessionId === session!.id)
        return ofSession.every((r) => r.status !== 'running' && r.status !== 'queued') ? ofSession : undefined
      })
      expect(mine).toHaveLength(1)
      expect(mine[0]!.status).toBe('completed')
    } finally {
      await second.stop()
      await app.start()
    }
  })

  it('finds nothing in a clean session and in a session full of traps', async () => {
    for (const name of ['clean', 'traps']) {
      const before = await database.db.select({ n: count() }).from(issues)
      await ingestSession(key, name, endingNow(loadRecording(name).events), { final: true })
      const row = await processed(name)
      const links = await database.db
        .select({ n: count() })
        .from(issueSessions)
        .where(eq(issueSessions.sessionId, row.id))
      expect(links[0]!.n, name).toBe(0)
      expect((await database.db.select({ n: count() }).from(issues))[0]!.n).toBe(before[0]!.n)
    }
  })

  it('matches a signal once per session, also after re-processing, and backfills a new one', async () => {
    const { signal } = await createSignal(database.db, {
      organizationId,
      name: 'Checkout failures',
      prompt: 'failed request on /checkout',
    })
    await ingestSession(key, 'signal-1', endingNow(loadRecording('network-500').events), { final: true })
    await processed('signal-1')
    await waitFor('the backfill to finish', async () => {
      const [row] = await database.db.select().from(signals).where(eq(signals.id, signal.id))
      return row?.backfillStatus === 'completed' ? row : undefined
    })
    const [row] = await database.db.select().from(signals).where(eq(signals.id, signal.id))
    // the crash session (earlier, same page) is found by the backfill, signal-1 by processing
    expect(row!.matchCount).toBe(2)
    expect(row!.lastMatchAt).toBeInstanceOf(Date)
  })

  it('returns a resolved issue to unresolved when it is seen again, and records why', async () => {
    // the issue of the three same-error sessions (its title names the property read)
    const issue = (await issuesOfKind('js_error')).find((i) => i.title.includes("'price'"))
    await database.db
      .update(issues)
      .set({ status: 'resolved', updatedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(issues.id, issue!.id))
    await ingestSession(key, 'regression', endingNow(loadRecording('same-error-3-sessions-2').events), {
      final: true,
    })
    await processed('regression')
    const [after] = await database.db.select().from(issues).where(eq(issues.id, issue!.id))
    expect(after).toMatchObject({ status: 'unresolved', sessionCount: issue!.sessionCount + 1 })
    const activity = await database.db
      .select()
      .from(issueActivities)
      .where(and(eq(issueActivities.issueId, issue!.id), eq(issueActivities.kind, 'regressed')))
    expect(activity).toHaveLength(1)
    const recurred = await database.db.select().from(outbox).where(eq(outbox.name, EVENTS.issueRecurred))
    expect(recurred.map((e) => (e.payload as { issueId: string }).issueId)).toContain(issue!.id)
  })

  it('lets a configured model review new issues, and creates them even when the model fails', async () => {
    const review = {
      verified: true,
      title: 'Failed request: POST /api/checkout answers 500 when placing an order',
      description: 'Placing an order fails with a server error.',
      stepsToReplicate: '1. Open /checkout\n2. Click "Place order"',
    }
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    }
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: JSON.stringify(review) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    })
    setLanguageModelForTests(model)
    try {
      await ingestSession(key, 'ai-1', endingNow(loadRecording('network-failed').events), { final: true })
      await processed('ai-1')
      // The review is the step after the one that marks the session processed.
      const reviewed = await waitFor('the model to review the new issues', async () => {
        const rows = await database.db
          .select()
          .from(issues)
          .where(and(eq(issues.organizationId, organizationId), eq(issues.aiVerified, true)))
        return rows.length > 0 ? rows : undefined
      })
      expect(reviewed.length).toBeGreaterThanOrEqual(1)
      expect(reviewed[0]).toMatchObject({
        title: review.title,
        description: review.description,
        stepsToReplicate: review.stepsToReplicate,
      })

      setLanguageModelForTests(
        new MockLanguageModelV3({
          doGenerate: async () => {
            throw new Error('provider down')
          },
        }),
      )
      await ingestSession(key, 'ai-2', endingNow(loadRecording('console-error').events), { final: true })
      await processed('ai-2')
      const consoleIssues = await issuesOfKind('console_error')
      expect(consoleIssues).toHaveLength(1)
      expect(consoleIssues[0]!.aiVerified).toBeNull()
    } finally {
      setLanguageModelForTests(undefined)
    }
  })

  it('analyses a growing session again on each final flush, counting it and sending its events once', async () => {
    const { signal } = await createSignal(database.db, {
      organizationId,
      name: 'Rage on drafts',
      prompt: 'rage clicks',
    })
    const recording = endingNow(loadRecording('rage-click').events, 10_000)
    const last = recording.at(-1)!
    // What the recorder sends after a reload: more of the same session, flushed as final again.
    const later = (ms: number) => [
      {
        type: 3,
        timestamp: last.timestamp + ms,
        data: { source: 1, positions: [{ x: 5, y: 5, id: 1, timeOffset: 0 }] },
      },
    ]
    const passes = [recording, later(1000), later(2000)]
    let sequence = 0
    for (const [pass, events] of passes.entries()) {
      sequence = await ingestSession(key, 'growing', events, { final: true, firstSequence: sequence })
      const row = await waitFor(`pass ${pass + 1} to be processed`, async () => {
        const current = await sessionRow('growing')
        return current?.status === 'processed' && current.processedThroughSequence === sequence - 1
          ? current
          : undefined
      })
      // Each pass starts with fresh attempts: a re-opened session is not a retry.
      expect(row.processingAttempts, `pass ${pass + 1}`).toBe(1)
      const rage = await issuesOfKind('rage_click')
      expect(rage, `pass ${pass + 1}`).toHaveLength(1)
      expect(rage[0]!.sessionCount).toBe(1)
      const links = await database.db.select().from(issueSessions).where(eq(issueSessions.sessionId, row.id))
      expect(links).toHaveLength(1)
      const sent = await database.db.select().from(outbox).where(eq(outbox.organizationId, organizationId))
      const about = (name: string, field: string, id: string) =>
        sent.filter((e) => e.name === name && (e.payload as Record<string, unknown>)[field] === id)
      expect(about(EVENTS.issueCreated, 'issueId', rage[0]!.id)).toHaveLength(1)
      expect(about(EVENTS.issueRecurred, 'issueId', rage[0]!.id)).toHaveLength(0)
      expect(about(EVENTS.signalMatched, 'sessionId', row.id)).toHaveLength(1)
      expect(about(EVENTS.sessionFinalize, 'sessionId', row.id)).toHaveLength(pass + 1)
    }
    const [matched] = await database.db.select().from(signals).where(eq(signals.id, signal.id))
    expect(matched!.matchCount).toBe(1)
  })

  it('writes one insight for an interval with sessions, and none for an empty one', async () => {
    const interval = { start: new Date(Date.now() - 3_600_000), end: new Date(Date.now() + 60_000) }
    expect(await generateInsightsForInterval(database.db, interval)).toBe(1)
    expect(await generateInsightsForInterval(database.db, interval)).toBe(0)
    const [insight] = await database.db
      .select()
      .from(insights)
      .where(eq(insights.organizationId, organizationId))
    expect(insight!.sessionsCount).toBeGreaterThanOrEqual(8)
    expect(insight!.contentPreview.length).toBeLessThanOrEqual(280)
    expect(insight!.content).toContain('sessions from')
    const empty = { start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-01-02T00:00:00Z') }
    expect(await generateInsightsForInterval(database.db, empty)).toBe(0)

    // The ids behind each (kind, page) come back as a list on both drivers (on postgres.js,
    // which does not fetch array types, an array aggregate would arrive as text).
    const figures = await intervalFigures(database.db, organizationId, interval.start, interval.end)
    const orgIssues = await database.db
      .select({ id: issues.id, kind: issues.kind })
      .from(issues)
      .where(and(eq(issues.organizationId, organizationId), eq(issues.sourceType, 'session_analysis')))
    expect(figures.frictionByPage.length).toBeGreaterThan(0)
    const listed = figures.frictionByPage.flatMap((row) => row.issueIds)
    expect(new Set(listed)).toEqual(new Set(orgIssues.map((issue) => issue.id)))
  })
})
