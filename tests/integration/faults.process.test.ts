/**
 * Killing the background worker with SIGKILL mid-processing and mid-delivery. The worker is a
 * real process (tests/helpers/crash-worker.ts: the in-process jobs engine with the real job
 * definitions) on the same database and blob files as this test, which ingests through the
 * real route handler and inspects the database. After the kill a second worker process takes
 * the dead one's runs over once their lease runs out, as a restarted server would.
 *
 * Two processes must share one database, so these cases need a real Postgres server and run
 * only when DATABASE_URL is set (CI runs the suite on Postgres too):
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run tests/integration/faults.process.test.ts
 */
import { and, count, eq, isNull } from 'drizzle-orm'
import postgres from 'postgres'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  issueActivities,
  jobRuns,
  outbox,
  signalMatches,
  signals,
  webhookDeliveries,
  webhookDeliveryAttempts,
} from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { EVENTS } from '@/lib/outbox/events'
import { CLAIM_LEASE_SECONDS } from '@/lib/webhooks/attempt'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, ingestSession, loadRecording } from '../helpers/pipeline'
import { recordedRows } from '../helpers/recorded'
import { seedSignal } from '../helpers/seed'
import { waitFor } from '../helpers/wait'
import { createTestPki, startReceiver, type TestPki, type TestReceiver } from '../helpers/webhooks'
import { killAllWorkers, startWorker, type WorkerOptions } from '../helpers/worker-process'

const serverUrl = process.env.DATABASE_URL?.trim()

/**
 * A short lease so that the next worker takes a dead one's run over within seconds; the
 * worker heartbeats every third of it. Long scheduled intervals keep the finalizer's sweep
 * (which would also dispatch what a dead worker left) out of the way: each case watches the
 * resumed run itself finish the work.
 */
const WORKER: WorkerOptions = { leaseMs: 3000, pollIntervalMs: 100 }
const QUIET_SCHEDULES = { FINALIZER_INTERVAL_SECONDS: '86400' }
/** A model that confirms every issue and matches every signal. */
const ANSWERING = {
  kind: 'answer',
  review: {
    verified: true,
    title: 'POST /api/checkout answers 500 when the order is placed',
    description: 'Placing an order fails with a server error.',
    stepsToReplicate: '1. Open /checkout\n2. Click "Place order"',
  },
  decision: { matched: true, reason: 'The order request failed with a 500.' },
} as const satisfies WorkerOptions['model']
// Spawning a worker compiles the app with tsx; waits are generous for a busy two-core machine.
const WAIT_MS = 40_000
const TEST_MS = 90_000

describe.skipIf(!serverUrl)('killing the worker process (SIGKILL) mid-processing and mid-delivery', () => {
  let database: TestDatabase
  /** Holds row locks and reads pg_stat_activity beside the app's pool. */
  let direct: postgres.Sql
  let pki: TestPki
  let receiver: TestReceiver

  beforeAll(async () => {
    database = await createTestDatabase()
    useDatabase(database)
    direct = postgres(database.url!, { max: 2, onnotice: () => {} })
    pki = createTestPki()
    receiver = await startReceiver(pki.issue(['hooks.test']))
  })

  afterEach(async () => {
    await killAllWorkers()
    receiver.behave((res) => res.writeHead(200).end('ok'))
  })

  afterAll(async () => {
    await killAllWorkers()
    await receiver?.close()
    pki?.dispose()
    await direct?.end()
    useDatabase(undefined)
    await database?.close()
  })

  const db = () => database.db
  const { newOrganization, sessionOf, issuesOf, outboxOf, linksOf } = recordedRows(db)

  async function runsFor(functionId: string, matches: (payload: Record<string, unknown>) => boolean) {
    const rows = await db().select().from(jobRuns).where(eq(jobRuns.functionId, functionId))
    return rows.filter((r) => matches(r.payload))
  }

  const forSession = (sessionId: string) => (p: Record<string, unknown>) => p.sessionId === sessionId

  async function finishedRuns(functionId: string, matches: (payload: Record<string, unknown>) => boolean) {
    return waitFor(
      `the ${functionId} runs to finish`,
      async () => {
        const mine = await runsFor(functionId, matches)
        return mine.length > 0 && mine.every((r) => r.status === 'completed' || r.status === 'failed')
          ? mine
          : undefined
      },
      WAIT_MS,
    )
  }

  /**
   * Holds a signal's row in another transaction, as a concurrent edit of the signal would.
   * `for no key update` lets a match row's foreign key check through and stops an update of
   * the row: a worker writing a match stops at the update of the signal's count, with its
   * earlier writes made, and the test can kill it exactly there.
   */
  async function holdSignalRow(signalId: string) {
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let taken!: () => void
    const locked = new Promise<void>((resolve) => {
      taken = resolve
    })
    const holder = direct.begin(async (tx) => {
      await tx`select id from signals where id = ${signalId} for no key update`
      taken()
      await released
    })
    await Promise.race([locked, holder])
    return {
      async release() {
        release()
        await holder.catch(() => {})
      },
    }
  }

  /** The worker's backend, found waiting for the held signal row in pg_stat_activity. */
  function waitForSignalUpdateToBlock() {
    return waitFor(
      'a worker to wait for the held signal row',
      async () => {
        const [row] = await direct<{ pid: number }[]>`
          select pid from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'
            and query ilike 'update "signals"%'`
        return row
      },
      WAIT_MS,
    )
  }

  /** Tables the backend has written in its open transaction (or in the statement under way). */
  async function tablesWrittenBy(pid: number) {
    const rows = await direct<{ table: string }[]>`
      select distinct relation::regclass::text as table from pg_locks
      where pid = ${pid} and mode = 'RowExclusiveLock' and relation is not null`
    return rows.map((r) => r.table)
  }

  /** A killed worker's backend ends when it next reads from its client and finds it gone. */
  function waitForBackendToEnd(pid: number) {
    return waitFor(
      'the dead worker’s database backend to end',
      async () => (await direct`select 1 from pg_stat_activity where pid = ${pid}`).length === 0,
      WAIT_MS,
    )
  }

  it(
    'rolls back a record step cut off by SIGKILL mid-transaction, and the next worker records it once',
    async () => {
      const { organizationId, key } = await newOrganization('Killed while recording')
      // A signal the session matches: its row is the last thing the record transaction updates.
      const signal = await seedSignal(db(), organizationId, {
        name: 'Failed requests',
        prompt: 'failed request',
      })
      const first = await startWorker(database.url!, WORKER, QUIET_SCHEDULES)

      // The worker's record step stops at its update of the signal's count, with the issue,
      // its link, the match and their outbox events written in its transaction, not committed.
      const lock = await holdSignalRow(signal.id)
      try {
        await ingestSession(key, 'kill-record', endingNow(loadRecording('network-500').events), {
          final: true,
          perBatch: 20,
        })
        const session = (await sessionOf(organizationId, 'kill-record'))!
        const waiting = await waitForSignalUpdateToBlock()
        expect(await tablesWrittenBy(waiting.pid)).toEqual(
          expect.arrayContaining([
            'issues',
            'issue_sessions',
            'issue_activities',
            'outbox',
            'signal_matches',
          ]),
        )

        await first.kill()
        await lock.release()
        // The dead worker's backend wakes, finds its client gone and rolls back.
        await waitForBackendToEnd(waiting.pid)

        // No partial rows: nothing of the interrupted step is visible.
        expect(await issuesOf(organizationId)).toEqual([])
        expect(await linksOf(session.id)).toEqual([])
        expect(await outboxOf(organizationId, EVENTS.issueCreated)).toEqual([])
        expect(await outboxOf(organizationId, EVENTS.signalMatched)).toEqual([])
        expect(
          await db().select().from(signalMatches).where(eq(signalMatches.sessionId, session.id)),
        ).toEqual([])
        expect((await sessionOf(organizationId, 'kill-record'))!.status).toBe('processing')
        const [interrupted] = await runsFor('process-session', forSession(session.id))
        expect(interrupted).toMatchObject({ status: 'running', attempt: 0 })
        expect(Object.keys(interrupted!.steps).sort()).toEqual(['analyze', 'claim'])

        await startWorker(database.url!, WORKER, QUIET_SCHEDULES)
        const runs = await finishedRuns('process-session', forSession(session.id))
        // One run, taken over once (a lease taken over counts an attempt), and completed.
        expect(runs.map((r) => ({ status: r.status, attempt: r.attempt }))).toEqual([
          { status: 'completed', attempt: 1 },
        ])

        const done = (await sessionOf(organizationId, 'kill-record'))!
        expect(done).toMatchObject({ status: 'processed', processingAttempts: 1 })
        expect(done.processedThroughSequence).toBe(done.batchCount - 1)
        const found = await issuesOf(organizationId)
        expect(found.map((i) => ({ kind: i.kind, sessionCount: i.sessionCount }))).toEqual([
          { kind: 'network_error', sessionCount: 1 },
        ])
        const issueId = found[0]!.id
        expect((await linksOf(session.id)).map((l) => l.issueId)).toEqual([issueId])
        const created = await db()
          .select({ n: count() })
          .from(issueActivities)
          .where(and(eq(issueActivities.issueId, issueId), eq(issueActivities.kind, 'created')))
        expect(created).toEqual([{ n: 1 }])
        const events = await outboxOf(organizationId, EVENTS.issueCreated)
        expect(events.map((e) => (e.payload as { issueId: string }).issueId)).toEqual([issueId])
        const [matched] = await db().select().from(signals).where(eq(signals.id, signal.id))
        expect(matched!.matchCount).toBe(1)
        expect(
          await db()
            .select({ n: count() })
            .from(signalMatches)
            .where(eq(signalMatches.sessionId, session.id)),
        ).toEqual([{ n: 1 }])
        expect(await outboxOf(organizationId, EVENTS.signalMatched)).toHaveLength(1)
        // The resumed run's last step handed every event on.
        const undispatched = await db()
          .select({ n: count() })
          .from(outbox)
          .where(and(eq(outbox.organizationId, organizationId), isNull(outbox.dispatchedAt)))
        expect(undispatched).toEqual([{ n: 0 }])
      } finally {
        await lock.release()
      }
    },
    TEST_MS,
  )

  it(
    'resumes a run killed while the model reviews its new issue, without recording anything twice',
    async () => {
      const { organizationId, key } = await newOrganization('Killed while reviewing')
      const first = await startWorker(database.url!, { ...WORKER, model: { kind: 'hang' } }, QUIET_SCHEDULES)
      await ingestSession(key, 'kill-review', endingNow(loadRecording('network-500').events), {
        final: true,
        perBatch: 20,
      })
      const session = (await sessionOf(organizationId, 'kill-review'))!
      // The worker's provider has the review call and will not answer: the ai-review step is
      // in flight, after the record step committed.
      await first.nextMessage('model-call', WAIT_MS)
      await first.kill()

      const recorded = await issuesOf(organizationId)
      expect(recorded).toHaveLength(1)
      expect(recorded[0]).toMatchObject({ kind: 'network_error', sessionCount: 1, aiVerified: null })
      expect((await sessionOf(organizationId, 'kill-review'))!.status).toBe('processed')
      const [interrupted] = await runsFor('process-session', forSession(session.id))
      expect(interrupted).toMatchObject({ status: 'running', attempt: 0 })
      expect(Object.keys(interrupted!.steps).sort()).toEqual(['analyze', 'claim', 'record'])
      // Written with the issues, handed on only by the run's last step.
      const pending = await outboxOf(organizationId, EVENTS.issueCreated)
      expect(pending.map((e) => ({ issueId: e.payload.issueId, dispatchedAt: e.dispatchedAt }))).toEqual([
        { issueId: recorded[0]!.id, dispatchedAt: null },
      ])

      await startWorker(database.url!, { ...WORKER, model: ANSWERING }, QUIET_SCHEDULES)
      const runs = await finishedRuns('process-session', forSession(session.id))
      expect(runs.map((r) => ({ status: r.status, attempt: r.attempt }))).toEqual([
        { status: 'completed', attempt: 1 },
      ])
      expect(Object.keys(runs[0]!.steps).sort()).toEqual([
        'ai-review',
        'ai-signals',
        'ai-summary',
        'analyze',
        'claim',
        'dispatch',
        'record',
      ])

      // The committed step was not run again: same issues, counted once, now reviewed.
      const after = await issuesOf(organizationId)
      expect(after).toHaveLength(1)
      expect(after[0]).toMatchObject({
        id: recorded[0]!.id,
        sessionCount: 1,
        aiVerified: true,
        title: ANSWERING.review.title,
      })
      expect((await linksOf(session.id)).map((l) => l.issueId)).toEqual([recorded[0]!.id])
      expect((await sessionOf(organizationId, 'kill-review'))!.processingAttempts).toBe(1)
      const events = await outboxOf(organizationId, EVENTS.issueCreated)
      expect(events.map((e) => e.eventId)).toEqual([pending[0]!.eventId])
      expect(events[0]!.dispatchedAt).not.toBeNull()
    },
    TEST_MS,
  )

  it(
    'records a signal match judged by the model whole or not at all when the worker is killed writing it',
    async () => {
      const { organizationId, key } = await newOrganization('Killed while matching')
      const signal = await seedSignal(db(), organizationId, {
        name: 'Lost orders',
        prompt: 'Orders that got lost',
      })
      const first = await startWorker(database.url!, { ...WORKER, model: ANSWERING }, QUIET_SCHEDULES)
      // With a model the match is written after the record step, by the ai-signals step: the
      // worker stops at its update of the signal's count, after writing the match itself.
      const lock = await holdSignalRow(signal.id)
      try {
        await ingestSession(key, 'kill-match', endingNow(loadRecording('network-500').events), {
          final: true,
          perBatch: 20,
        })
        const session = (await sessionOf(organizationId, 'kill-match'))!
        const waiting = await waitForSignalUpdateToBlock()
        const matchesOf = () =>
          db().select().from(signalMatches).where(eq(signalMatches.sessionId, session.id))
        // Not yet visible: a match is committed only together with its count and its event.
        expect(await matchesOf()).toEqual([])

        await first.kill()
        await lock.release()
        await waitForBackendToEnd(waiting.pid)
        expect(await matchesOf()).toEqual([])
        const [interrupted] = await runsFor('process-session', forSession(session.id))
        expect(interrupted).toMatchObject({ status: 'running', attempt: 0 })
        expect(Object.keys(interrupted!.steps).sort()).toEqual(['ai-review', 'analyze', 'claim', 'record'])

        await startWorker(database.url!, { ...WORKER, model: ANSWERING }, QUIET_SCHEDULES)
        const runs = await finishedRuns('process-session', forSession(session.id))
        expect(runs.map((r) => ({ status: r.status, attempt: r.attempt }))).toEqual([
          { status: 'completed', attempt: 1 },
        ])
        expect(runs[0]!.steps['ai-signals']).toEqual({ value: [signal.id] })
        const matches = await matchesOf()
        expect(matches.map((m) => ({ signal: m.signalId, matcher: m.evidence?.matcher }))).toEqual([
          { signal: signal.id, matcher: 'model' },
        ])
        const [counted] = await db().select().from(signals).where(eq(signals.id, signal.id))
        expect(counted!.matchCount).toBe(1)
        const events = await outboxOf(organizationId, EVENTS.signalMatched)
        expect(events.map((e) => e.payload)).toEqual([
          { signalId: signal.id, sessionId: session.id, orgId: organizationId },
        ])
        expect(events[0]!.dispatchedAt).not.toBeNull()
      } finally {
        await lock.release()
      }
    },
    TEST_MS,
  )

  it(
    'delivers a webhook again after the worker is killed mid-request, recorded as delivered once',
    async () => {
      const { organizationId, key } = await newOrganization('Killed while delivering', 'paid')
      const endpoint = await createEndpoint(db(), {
        organizationId,
        name: 'receiver',
        url: `https://hooks.test:${receiver.port}/hook`,
        events: ['issue.created'],
      })
      const webhooks = { ca: pki.caCert, hosts: { 'hooks.test': ['127.0.0.1'] } }
      const start = receiver.received.length
      // The first request is held open: the worker is killed while it waits for the answer.
      receiver.behave((res, index) => {
        if (index > start) res.writeHead(200).end('ok')
      })
      const first = await startWorker(database.url!, { ...WORKER, webhooks }, QUIET_SCHEDULES)
      await ingestSession(key, 'kill-delivery', endingNow(loadRecording('network-500').events), {
        final: true,
        perBatch: 20,
      })
      await waitFor(
        'the first delivery to reach the receiver',
        async () => receiver.received.length > start,
        WAIT_MS,
      )
      await first.kill()

      const [issue, ...others] = await issuesOf(organizationId)
      expect(others).toEqual([])
      const [event] = await outboxOf(organizationId, EVENTS.issueCreated)
      const deliveries = await db()
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.organizationId, organizationId))
      expect(deliveries).toHaveLength(1)
      const delivery = deliveries[0]!
      expect(delivery).toMatchObject({ eventId: event!.eventId, status: 'pending', attempts: 0 })
      // The killed worker recorded nothing of its attempt, and its claim on the delivery holds.
      expect(
        await db()
          .select()
          .from(webhookDeliveryAttempts)
          .where(eq(webhookDeliveryAttempts.deliveryId, delivery.id)),
      ).toEqual([])
      const ofThisOrganization = (p: Record<string, unknown>) => p.orgId === organizationId
      const [fanOut] = await runsFor('webhook-fan-out-issue-created', ofThisOrganization)
      // Killed inside the run's first-attempt step, after its fan-out step.
      expect(fanOut).toMatchObject({ idempotencyKey: event!.eventId, status: 'running', attempt: 0 })
      expect(Object.keys(fanOut!.steps)).toEqual(['fan-out'])
      const [claim] = await direct<{ held: boolean }[]>`
        select next_attempt_at > now() as held from webhook_deliveries where id = ${delivery.id}`
      expect(claim!.held).toBe(true)

      // The dead worker's claim lasts CLAIM_LEASE_SECONDS (60 s), longer than this test should
      // wait: the claim is moved back by exactly that, which is what the passing of that much
      // time does to it. Nothing else is touched.
      await direct`
        update webhook_deliveries
        set next_attempt_at = next_attempt_at - make_interval(secs => ${CLAIM_LEASE_SECONDS})
        where id = ${delivery.id}`
      await startWorker(database.url!, { ...WORKER, webhooks }, QUIET_SCHEDULES)
      const delivered = await waitFor(
        'the redelivery to be recorded',
        async () => {
          const [row] = await db()
            .select()
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.id, delivery.id))
          return row?.status === 'succeeded' ? row : undefined
        },
        WAIT_MS,
      )
      const fanOuts = await finishedRuns('webhook-fan-out-issue-created', ofThisOrganization)
      expect(fanOuts.map((r) => ({ id: r.id, status: r.status, attempt: r.attempt }))).toEqual([
        { id: fanOut!.id, status: 'completed', attempt: 1 },
      ])

      expect(delivered).toMatchObject({ attempts: 1, lastStatus: 200, lastError: null })
      const attempts = await db()
        .select()
        .from(webhookDeliveryAttempts)
        .where(eq(webhookDeliveryAttempts.deliveryId, delivery.id))
      expect(
        attempts.map((a) => ({ attempt: a.attempt, status: a.httpStatus, label: a.errorLabel })),
      ).toEqual([{ attempt: 1, status: 200, label: null }])
      // Sent twice (the kill came between sending and recording), as the same event: one id,
      // one body, each signed, so the receiver can deduplicate.
      const got = receiver.received.slice(start)
      expect(got).toHaveLength(2)
      for (const request of got) {
        expect(request.headers['service-webhook-id']).toBe(event!.eventId)
        expect(request.body).toBe(delivery.body)
        expect(() =>
          verifyWebhookSignature(request.body, String(request.headers['service-signature']), endpoint.secret),
        ).not.toThrow()
      }
      expect(JSON.parse(got[1]!.body)).toMatchObject({
        event: 'issue.created',
        id: event!.eventId,
        data: { issueId: issue!.id },
      })
      // Nothing left pending, and the issue behind it recorded once.
      const pending = await db()
        .select({ n: count() })
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.status, 'pending')),
        )
      expect(pending).toEqual([{ n: 0 }])
      expect(issue!.sessionCount).toBe(1)
    },
    TEST_MS,
  )
})
