import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { DatabaseHandle } from '@/db/client'
import { jobRuns } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import {
  createJobsEngine,
  defineJob,
  type JobDefinition,
  type JobsEngine,
  NonRetriableError,
} from '@/lib/jobs'
import type { InProcessOptions } from '@/lib/jobs/in-process'
import { claimDue, updateOwned } from '@/lib/jobs/in-process/runs-store'
import { createTestDatabase } from '../helpers/db'

let handle: DatabaseHandle
const engines: JobsEngine[] = []

beforeAll(async () => {
  handle = await createTestDatabase()
  useDatabase(handle)
})
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop()))
})
afterAll(async () => {
  useDatabase(undefined)
  await handle.close()
})

const fast: InProcessOptions = {
  pollIntervalMs: 25,
  leaseMs: 400,
  backoff: { baseMs: 20, maxMs: 100 },
  stopTimeoutMs: 200,
}

async function startEngine(
  definitions: JobDefinition[],
  options: InProcessOptions = {},
): Promise<JobsEngine> {
  const engine = createJobsEngine({ kind: 'in-process' }, definitions, { inProcess: { ...fast, ...options } })
  engines.push(engine)
  await engine.start()
  return engine
}

async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 15))
  }
}

const runsOf = (functionId: string) =>
  handle.db.select().from(jobRuns).where(eq(jobRuns.functionId, functionId))

async function settled(functionId: string, count = 1) {
  return waitFor(async () => {
    const rows = await runsOf(functionId)
    return (
      rows.length >= count && rows.every((r) => r.status === 'completed' || r.status === 'failed') && rows
    )
  })
}

const uniqueName = (label: string) => `test/${label}.${randomUUID().slice(0, 8)}`

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A logger that keeps its records, for the tests about what the engine says and how often. */
function captureLogs() {
  const lines: { level: number; msg?: string; runs?: string[] }[] = []
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  return { log, lines }
}

/** A run as a send leaves it, written directly so the test controls who claims it. */
const queueRun = (functionId: string, eventName = functionId) =>
  handle.db
    .insert(jobRuns)
    .values({ functionId, idempotencyKey: randomUUID(), eventName, payload: {}, maxAttempts: 1 })
    .returning()

describe('in-process engine: events', () => {
  it('runs the handler of every definition triggered by the event, with its payload', async () => {
    const event = uniqueName('greet')
    const seen: unknown[] = []
    const defs = ['a', 'b'].map((suffix) =>
      defineJob({
        id: `${event}-${suffix}`,
        name: 'greet',
        trigger: { event },
        retries: 0,
        payload: z.object({ name: z.string() }),
        async handler({ event: e, attempt }) {
          seen.push({ fn: suffix, name: e.data.name, attempt, eventName: e.name })
        },
      }),
    )
    const engine = await startEngine(defs)
    await engine.send({ name: event, data: { name: 'Ada' }, id: randomUUID() })
    await engine.send({ name: uniqueName('unrelated'), data: {} })
    await settled(defs[0]!.id)
    await settled(defs[1]!.id)
    expect(seen).toHaveLength(2)
    expect(seen).toContainEqual({ fn: 'a', name: 'Ada', attempt: 0, eventName: event })
    expect(seen).toContainEqual({ fn: 'b', name: 'Ada', attempt: 0, eventName: event })
  })

  it('keeps events sent before start and runs them once started', async () => {
    const event = uniqueName('early')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'early',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler() {
        calls++
      },
    })
    const engine = createJobsEngine({ kind: 'in-process' }, [def], { inProcess: fast })
    engines.push(engine)
    await engine.send({ name: event, data: {} })
    expect((await runsOf(def.id))[0]?.status).toBe('queued')
    await engine.start()
    await settled(def.id)
    expect(calls).toBe(1)
  })

  it('runs duplicate sends with the same id once', async () => {
    const event = uniqueName('dup')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'dup',
      trigger: { event },
      retries: 0,
      payload: z.object({ n: z.number() }),
      async handler() {
        calls++
      },
    })
    const engine = await startEngine([def])
    const id = randomUUID()
    await engine.send([
      { name: event, data: { n: 1 }, id },
      { name: event, data: { n: 1 }, id },
    ])
    await engine.send({ name: event, data: { n: 1 }, id })
    await settled(def.id)
    await engine.send({ name: event, data: { n: 1 }, id })
    await new Promise((r) => setTimeout(r, 150))
    expect(await runsOf(def.id)).toHaveLength(1)
    expect(calls).toBe(1)
  })

  it('bounds the number of handlers running at once', async () => {
    const event = uniqueName('bounded')
    let running = 0
    let peak = 0
    const def = defineJob({
      id: event,
      name: 'bounded',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler() {
        running++
        peak = Math.max(peak, running)
        await new Promise((r) => setTimeout(r, 40))
        running--
      },
    })
    const engine = await startEngine([def], { concurrency: 2 })
    await engine.send(Array.from({ length: 6 }, () => ({ name: event, data: {} })))
    await settled(def.id, 6)
    expect(peak).toBe(2)
  })

  it('shares work between two engines on one database without running a run twice', async () => {
    const event = uniqueName('shared')
    const calls = new Map<string, number>()
    const def = defineJob({
      id: event,
      name: 'shared',
      trigger: { event },
      retries: 0,
      payload: z.object({ i: z.number() }),
      async handler({ runId }) {
        calls.set(runId, (calls.get(runId) ?? 0) + 1)
        await new Promise((r) => setTimeout(r, 5))
      },
    })
    // Healthy engines, so a lease long enough that none runs out mid-run: the 400 ms of the other
    // tests (which test leases running out) ran out on a CI machine at load 15, and the run was
    // taken over, which is the lease doing its job, not sharing going wrong.
    const a = await startEngine([def], { leaseMs: 10_000 })
    await startEngine([def], { leaseMs: 10_000 })
    await a.send(Array.from({ length: 12 }, (_, i) => ({ name: event, data: { i } })))
    const rows = await settled(def.id, 12)
    expect(rows.every((r) => r.status === 'completed')).toBe(true)
    expect(calls.size).toBe(12)
    expect([...calls.values()].every((n) => n === 1)).toBe(true)
  })
})

describe('in-process engine: steps, retries and failures', () => {
  it('memoizes completed steps across retries', async () => {
    const event = uniqueName('steps')
    const ran: string[] = []
    let failOnce = true
    const def = defineJob({
      id: event,
      name: 'steps',
      trigger: { event },
      retries: 2,
      payload: z.object({}),
      async handler({ step, attempt }) {
        const a = await step.run('a', async () => {
          ran.push(`a@${attempt}`)
          return { at: new Date(0), n: 1 }
        })
        const nothing = await step.run('void', async () => {
          ran.push(`void@${attempt}`)
        })
        const b = await step.run('b', async () => {
          ran.push(`b@${attempt}`)
          if (failOnce) {
            failOnce = false
            throw new Error('flaky')
          }
          return a.n + 1
        })
        return { a, b, nothing }
      },
    })
    const engine = await startEngine([def])
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(row?.status).toBe('completed')
    // each succeeded step ran exactly once; the failing one ran again on the retry
    expect(ran).toEqual(['a@0', 'void@0', 'b@0', 'b@1'])
    expect(row?.attempt).toBe(1)
    expect(row?.lastError).toContain('flaky')
    // results are stored as JSON, so a replay sees the same value a first run did
    expect(row?.steps).toEqual({
      a: { value: { at: new Date(0).toISOString(), n: 1 } },
      void: {},
      b: { value: 2 },
    })
  })

  it('keeps every result of steps run in parallel, and memoizes them across a retry', async () => {
    const event = uniqueName('parallel-steps')
    const ran: string[] = []
    let failOnce = true
    const def = defineJob({
      id: event,
      name: 'parallel steps',
      trigger: { event },
      retries: 2,
      payload: z.object({}),
      async handler({ step, attempt }) {
        // Saved together, these land in the same group-committed write unless it splits them.
        const results = await Promise.all(
          ['p1', 'p2', 'p3'].map((name) =>
            step.run(name, async () => {
              ran.push(`${name}@${attempt}`)
              return name
            }),
          ),
        )
        if (failOnce) {
          failOnce = false
          throw new Error('after the parallel steps')
        }
        return results
      },
    })
    const engine = await startEngine([def])
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(row?.status).toBe('completed')
    expect(ran.sort()).toEqual(['p1@0', 'p2@0', 'p3@0'])
    expect(row?.steps).toEqual({ p1: { value: 'p1' }, p2: { value: 'p2' }, p3: { value: 'p3' } })
  })

  it('retries with backoff until retries are exhausted, then fails with the last error', async () => {
    const event = uniqueName('flaky')
    const attempts: number[] = []
    const started: number[] = []
    const def = defineJob({
      id: event,
      name: 'flaky',
      trigger: { event },
      retries: 2,
      payload: z.object({}),
      async handler({ attempt }) {
        attempts.push(attempt)
        started.push(Date.now())
        throw new Error(`boom ${attempt}`)
      },
    })
    const engine = await startEngine([def])
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(attempts).toEqual([0, 1, 2])
    expect(row?.status).toBe('failed')
    expect(row?.attempt).toBe(3)
    expect(row?.lastError).toBe('Error: boom 2')
    // base 20 ms doubling: at least 20 ms before retry 1 and 40 ms before retry 2
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(15)
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(35)
  })

  it('fails at once on a NonRetriableError', async () => {
    const event = uniqueName('fatal')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'fatal',
      trigger: { event },
      retries: 5,
      payload: z.object({}),
      async handler() {
        calls++
        throw new NonRetriableError('record is gone')
      },
    })
    const engine = await startEngine([def])
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(calls).toBe(1)
    expect(row?.status).toBe('failed')
    expect(row?.lastError).toBe('NonRetriableError: record is gone')
  })

  it('fails at once when the payload does not match the schema', async () => {
    const event = uniqueName('invalid')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'invalid',
      trigger: { event },
      retries: 5,
      payload: z.object({ sessionId: z.uuid() }),
      async handler() {
        calls++
      },
    })
    const engine = await startEngine([def])
    await engine.send({ name: event, data: { sessionId: 'nope' } })
    const [row] = await settled(def.id)
    expect(calls).toBe(0)
    expect(row?.status).toBe('failed')
    expect(row?.lastError).toContain('Invalid payload')
  })

  it('sleeps without counting a failure and resumes after the wake-up time', async () => {
    const event = uniqueName('sleepy')
    const ran: string[] = []
    const def = defineJob({
      id: event,
      name: 'sleepy',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler({ step, attempt }) {
        await step.run('before', async () => ran.push(`before@${attempt}`))
        await step.sleep('nap', 0.15)
        await step.run('after', async () => ran.push(`after@${attempt}`))
      },
    })
    const engine = await startEngine([def])
    const sent = Date.now()
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(Date.now() - sent).toBeGreaterThanOrEqual(140)
    expect(row?.status).toBe('completed')
    expect(row?.attempt).toBe(0)
    expect(ran).toEqual(['before@0', 'after@0'])
  })
})

describe('in-process engine: crash and shutdown', () => {
  it('resumes a run whose worker died, without re-running its completed steps', async () => {
    const event = uniqueName('crash')
    const ran: string[] = []
    let hang = true
    const def = defineJob({
      id: event,
      name: 'crash',
      trigger: { event },
      retries: 2,
      payload: z.object({ v: z.number() }),
      async handler({ step, attempt, event: e }) {
        const first = await step.run('first', async () => {
          ran.push(`first@${attempt}`)
          return e.data.v * 2
        })
        return step.run('second', async () => {
          ran.push(`second@${attempt}`)
          // engine A's handler never gets past this: a process killed mid-step
          if (hang) await new Promise(() => {})
          return first + 1
        })
      },
    })
    const a = await startEngine([def])
    await a.send({ name: event, data: { v: 20 } })
    await waitFor(() => ran.includes('second@0'))
    await a.stop()
    const [stuck] = await runsOf(def.id)
    expect(stuck?.status).toBe('running')
    expect(stuck?.steps).toEqual({ first: { value: 40 } })

    hang = false
    await startEngine([def])
    const [row] = await settled(def.id)
    expect(row?.status).toBe('completed')
    expect(row?.steps).toEqual({ first: { value: 40 }, second: { value: 41 } })
    // the takeover counts as an attempt, as a lost worker does on Inngest
    expect(ran).toEqual(['first@0', 'second@0', 'second@1'])
    expect(row?.attempt).toBe(1)
  })

  it('fails a run interrupted on its last attempt', async () => {
    const event = uniqueName('crash-last')
    const def = defineJob({
      id: event,
      name: 'crash-last',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler() {},
    })
    // a row exactly as a dead worker leaves it: running, lease long expired
    await handle.db.insert(jobRuns).values({
      functionId: def.id,
      idempotencyKey: randomUUID(),
      eventName: event,
      payload: {},
      maxAttempts: 1,
      status: 'running',
      lockedUntil: sql`now() - interval '1 minute'`,
    })
    await startEngine([def])
    const [row] = await settled(def.id)
    expect(row?.status).toBe('failed')
    expect(row?.lastError).toContain('Interrupted')
  })

  it('hands a run back at its next step when stopped, for the next engine to finish', async () => {
    const event = uniqueName('graceful')
    const ran: string[] = []
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const def = defineJob({
      id: event,
      name: 'graceful',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler({ step, attempt }) {
        await step.run('one', async () => {
          ran.push(`one@${attempt}`)
          await gate
        })
        await step.run('two', async () => ran.push(`two@${attempt}`))
      },
    })
    const a = await startEngine([def], { stopTimeoutMs: 5000 })
    await a.send({ name: event, data: {} })
    await waitFor(() => ran.includes('one@0'))
    const stopping = a.stop()
    release()
    await stopping
    const [yielded] = await runsOf(def.id)
    expect(yielded?.status).toBe('queued')
    expect(yielded?.steps).toEqual({ one: {} })

    await startEngine([def])
    const [row] = await settled(def.id)
    expect(row?.status).toBe('completed')
    // a handed-back run did not fail, so it keeps its attempt number
    expect(ran).toEqual(['one@0', 'two@0'])
  })
})

describe('in-process engine: schedules', () => {
  it('enqueues a run per everySeconds tick, once across two engines, and stops with stop()', async () => {
    const id = uniqueName('every')
    const calls: string[] = []
    const def = defineJob({
      id,
      name: 'every',
      trigger: { cron: '* * * * *', everySeconds: 1 },
      retries: 0,
      payload: z.object({ cron: z.string() }),
      async handler({ event }) {
        calls.push(event.id)
        expect(event.name).toBe('inngest/scheduled.timer')
        expect(event.data.cron).toBe('* * * * *')
      },
    })
    const a = await startEngine([def])
    const b = await startEngine([def])
    await settled(id, 2)
    await a.stop()
    await b.stop()
    const rows = await runsOf(id)
    // both engines enqueued every tick; the unique key kept one run each, and each ran once
    for (const row of rows) expect(new Date(row.idempotencyKey).getUTCMilliseconds()).toBe(0)
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(rows.length)
    expect(calls.length).toBe(rows.filter((r) => r.status === 'completed').length)
    expect(new Set(calls).size).toBe(calls.length)
    const after = rows.length

    await new Promise((r) => setTimeout(r, 1300))
    expect((await runsOf(id)).length).toBe(after)
  })

  it('follows a cron expression', async () => {
    const id = uniqueName('cron')
    let calls = 0
    const def = defineJob({
      id,
      name: 'cron',
      // croner accepts a seconds field, which keeps this test short
      trigger: { cron: '* * * * * *' },
      retries: 0,
      payload: z.object({}),
      async handler() {
        calls++
      },
    })
    await startEngine([def])
    const rows = await settled(id, 1)
    expect(calls).toBeGreaterThanOrEqual(1)
    expect(rows[0]?.eventName).toBe('inngest/scheduled.timer')
  })
})

describe('in-process engine: definitions and limits', () => {
  const base = {
    id: 'test/limits',
    name: 'limits',
    trigger: { event: 'test/limits' },
    payload: z.object({}),
    async handler() {},
  }

  it('refuses retries Inngest would refuse, in defineJob and in the engine', () => {
    for (const retries of [-1, 1.5, 21, Number.NaN])
      expect(() => defineJob({ ...base, retries })).toThrow(/retries must be an integer from 0 to 20/)
    expect(defineJob({ ...base, retries: 20 }).retries).toBe(20)
    // a definition built by hand, past defineJob, is refused when the engine is made
    expect(() => createJobsEngine({ kind: 'in-process' }, [{ ...base, retries: 21 }])).toThrow(/retries/)
  })

  it('fails the attempt when a step result is over 4 MB of JSON, as Inngest would', async () => {
    const event = uniqueName('huge')
    let after = false
    const def = defineJob({
      ...base,
      id: event,
      trigger: { event },
      retries: 0,
      async handler({ step }) {
        await step.run('big', async () => 'x'.repeat(4 * 1024 * 1024))
        after = true
      },
    })
    // Not the 400 ms lease of the lease tests: building and measuring 4 MB of JSON took longer on
    // a CI machine at load 12, the lease ran out and the run was reclaimed as interrupted.
    const engine = await startEngine([def], { leaseMs: 10_000 })
    await engine.send({ name: event, data: {} })
    const [row] = await settled(def.id)
    expect(row?.status).toBe('failed')
    expect(row?.lastError).toMatch(/^StepResultTooLargeError: Step "big" returned 4\.0 MB .*limited to 4 MB/)
    expect(row?.steps).toEqual({})
    expect(after).toBe(false)
  })
})

describe('in-process engine: sending inside a transaction', () => {
  it("enqueues with the caller's transaction: runs after a commit, leaves nothing after a rollback", async () => {
    const event = uniqueName('tx')
    const seen: number[] = []
    const def = defineJob({
      id: event,
      name: 'tx',
      trigger: { event },
      retries: 0,
      payload: z.object({ n: z.number() }),
      async handler({ event: e }) {
        seen.push(e.data.n)
      },
    })
    const engine = await startEngine([def])
    // Without the handle this would wait on the open transaction forever on PGlite.
    await handle.db.transaction(async (tx) => {
      await engine.send({ name: event, data: { n: 1 } }, { db: tx })
    })
    await settled(def.id)

    await expect(
      handle.db.transaction(async (tx) => {
        await engine.send({ name: event, data: { n: 2 } }, { db: tx })
        expect(await tx.select().from(jobRuns).where(eq(jobRuns.functionId, def.id))).toHaveLength(2)
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    await pause(150)
    expect(await runsOf(def.id)).toHaveLength(1)
    expect(seen).toEqual([1])
  })
})

describe('in-process engine: claims', () => {
  it('claims due runs at most `limit` at a time and each once, with a fresh claim id per claim', async () => {
    const fn = uniqueName('claim')
    for (let i = 0; i < 5; i++) await queueRun(fn)
    const racing = await Promise.all([1, 2, 3].map(() => claimDue(handle.db, [fn], 2, 60_000)))
    const rest = await claimDue(handle.db, [fn], 5, 60_000)
    const claimed = [...racing.flat(), ...rest]
    expect(racing.every((batch) => batch.length <= 2)).toBe(true)
    expect(claimed.map((r) => r.id).sort()).toEqual((await runsOf(fn)).map((r) => r.id).sort())
    expect(claimed.every((r) => r.status === 'running' && r.claimId)).toBe(true)
    const claimIds = new Set(claimed.map((r) => r.claimId))
    expect(claimIds.size).toBe([...racing, rest].filter((batch) => batch.length > 0).length)
    expect(await claimDue(handle.db, [fn], 5, 60_000)).toEqual([])
  })

  it('lets only the latest claim write, whatever the attempt number says', async () => {
    const fn = uniqueName('fence')
    await queueRun(fn)
    const [first] = await claimDue(handle.db, [fn], 1, 60_000)
    await handle.db
      .update(jobRuns)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(jobRuns.functionId, fn))
    const [second] = await claimDue(handle.db, [fn], 1, 60_000)
    expect(second?.id).toBe(first?.id)
    expect(second?.claimId).not.toBe(first?.claimId)
    // a stale holder that still believes in the new attempt number is fenced off all the same
    expect(
      await updateOwned(handle.db, { ...first!, attempt: second!.attempt }, { lastError: 'stale' }),
    ).toBe(false)
    expect(await updateOwned(handle.db, second!, { lastError: 'current' })).toBe(true)
    expect((await runsOf(fn))[0]?.lastError).toBe('current')
  })

  it.each([
    { write: 'heartbeat', leaseMs: 300 },
    { write: 'step result', leaseMs: 60_000 },
  ])("drops a stale holder's $write after its run was claimed again", async ({ write, leaseMs }) => {
    const event = uniqueName('stale')
    const ran: string[] = []
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const def = defineJob({
      id: event,
      name: 'stale',
      trigger: { event },
      retries: 1,
      payload: z.object({}),
      async handler({ step, attempt }) {
        await step.run('one', async () => {
          ran.push(`one@${attempt}`)
          await gate
          return 'from the stale holder'
        })
        await step.run('two', async () => ran.push(`two@${attempt}`))
      },
    })
    const engine = await startEngine([def], { leaseMs })
    await engine.send({ name: event, data: {} })
    await waitFor(() => ran.includes('one@0'))
    // Another worker's claim, as after a hand-back: same attempt number, new claim id and lease.
    const theirs = randomUUID()
    await handle.db
      .update(jobRuns)
      .set({ claimId: theirs, lockedUntil: sql`now() + interval '1 hour'` })
      .where(eq(jobRuns.functionId, def.id))
    const [taken] = await runsOf(def.id)
    // a 300 ms lease beats every 100 ms; a 60 s one not before the step ends
    if (write === 'heartbeat') await pause(350)
    release()
    await pause(150)
    const [row] = await runsOf(def.id)
    expect(row).toMatchObject({ status: 'running', attempt: 0, claimId: theirs, steps: {} })
    expect(row?.lockedUntil).toEqual(taken?.lockedUntil)
    expect(ran).toEqual(['one@0'])
  })

  it('gives back the runs it claimed after stop() began, their attempt unspent', async () => {
    const event = uniqueName('late-claim')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'late-claim',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler() {
        calls++
      },
    })
    const [queued] = await queueRun(def.id, event)
    let hold: Promise<void> | undefined
    let release: () => void = () => {}
    const { log, lines } = captureLogs()
    const engine = createJobsEngine({ kind: 'in-process' }, [def], {
      inProcess: {
        ...fast,
        logger: log,
        // the first claim is held back until stop() has begun
        db: async () => {
          await hold
          return handle.db
        },
      },
    })
    engines.push(engine)
    hold = new Promise<void>((r) => {
      release = r
    })
    await engine.start()
    const stopping = engine.stop()
    release()
    await stopping
    expect(lines.find((l) => l.msg === 'stopping: gave claimed runs back')?.runs).toEqual([queued?.id])
    const [row] = await runsOf(def.id)
    expect(row).toMatchObject({ status: 'queued', attempt: 0, lockedUntil: null, claimId: null })
    expect(calls).toBe(0)

    await startEngine([def])
    const [done] = await settled(def.id)
    expect(done).toMatchObject({ status: 'completed', attempt: 0 })
    expect(calls).toBe(1)
  })
})

describe('in-process engine: operations', () => {
  it('warns once, at start, when it runs in production', async () => {
    const loud = captureLogs()
    const engine = await startEngine([], { production: true, logger: loud.log })
    await engine.stop()
    await engine.start()
    const warnings = loud.lines.filter((l) => l.level === 40)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.msg).toMatch(/IN-PROCESS IN PRODUCTION.*configure Inngest/)

    const quiet = captureLogs()
    await startEngine([], { production: false, logger: quiet.log })
    expect(quiet.lines.filter((l) => l.level === 40)).toEqual([])
  })

  it('polls less often while the database is down, and logs the outage and its end once', async () => {
    const event = uniqueName('outage')
    let calls = 0
    const def = defineJob({
      id: event,
      name: 'outage',
      trigger: { event },
      retries: 0,
      payload: z.object({}),
      async handler() {
        calls++
      },
    })
    await queueRun(def.id, event)
    let down = true
    let asked = 0
    const { log, lines } = captureLogs()
    await startEngine([def], {
      logger: log,
      pollIntervalMs: 10,
      maxPollIntervalMs: 80,
      db: async () => {
        asked++
        if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
        return handle.db
      },
    })
    await pause(500)
    // every 10 ms would be some 50 attempts; doubling up to 80 ms is about 8
    expect(asked).toBeGreaterThanOrEqual(4)
    expect(asked).toBeLessThanOrEqual(12)
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1)

    down = false
    await settled(def.id)
    expect(calls).toBe(1)
    expect(lines.filter((l) => l.msg === 'claiming job runs works again')).toHaveLength(1)
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1)
  })
})
