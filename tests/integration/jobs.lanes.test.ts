import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { DatabaseHandle } from '@/db/client'
import { jobRuns } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { createJobsEngine, defineJob, type JobDefinition, type JobsEngine } from '@/lib/jobs'
import type { InProcessOptions } from '@/lib/jobs/in-process'
import { claimDue, claimDueInLanes, completeRuns, saveSteps } from '@/lib/jobs/in-process/runs-store'
import { createInngestClient, toInngestFunction } from '@/lib/jobs/inngest'
import { createTestDatabase } from '../helpers/db'

// A function with a concurrency limit of its own runs in its own lane: up to that many of its
// runs at once, beside (not within) the shared pool that every other function keeps.

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
  leaseMs: 2000,
  backoff: { baseMs: 20, maxMs: 100 },
  stopTimeoutMs: 200,
}

async function startEngine(definitions: JobDefinition[], options: InProcessOptions): Promise<JobsEngine> {
  const engine = createJobsEngine({ kind: 'in-process' }, definitions, { inProcess: { ...fast, ...options } })
  engines.push(engine)
  await engine.start()
  return engine
}

async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 15))
  }
}

const uniqueName = (label: string) => `test/${label}.${randomUUID().slice(0, 8)}`

const newCounter = () => ({ running: 0, peak: 0, done: 0 })

/** Handlers that hold until the gate opens, counting how many run at once. */
function gatedJob(label: string, gate: Promise<void>, concurrency?: number, counter = newCounter()) {
  const event = uniqueName(label)
  const def = defineJob({
    id: event,
    name: label,
    trigger: { event },
    retries: 0,
    ...(concurrency === undefined ? {} : { concurrency }),
    payload: z.object({ i: z.number() }),
    async handler() {
      counter.running++
      counter.peak = Math.max(counter.peak, counter.running)
      await gate
      counter.running--
      counter.done++
    },
  })
  return { event, def, counter }
}

async function statuses(functionId: string): Promise<string[]> {
  const rows = await handle.db
    .select({ status: jobRuns.status })
    .from(jobRuns)
    .where(eq(jobRuns.functionId, functionId))
  return rows.map((r) => r.status).sort()
}

describe('per-function concurrency (in-process lanes)', () => {
  it('runs a function with its own limit up to that many at once, while the shared pool keeps its bound', async () => {
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    // Two functions without a limit of their own, counted together: they share the pool.
    const pool = newCounter()
    const shared = gatedJob('shared-pool', gate, undefined, pool)
    const sharedToo = gatedJob('shared-pool-too', gate, undefined, pool)
    const laned = gatedJob('own-lane', gate, 5)
    const engine = await startEngine([shared.def, sharedToo.def, laned.def], { concurrency: 2 })

    await engine.send([
      ...Array.from({ length: 8 }, (_, i) => ({ name: laned.event, data: { i } })),
      ...Array.from({ length: 2 }, (_, i) => ({ name: shared.event, data: { i } })),
      ...Array.from({ length: 2 }, (_, i) => ({ name: sharedToo.event, data: { i } })),
    ])
    // All slots taken at the same time: 5 in the lane and 2 in the shared pool, which the
    // lane's runs never took although 3 more of them were due.
    await waitFor(() => laned.counter.running === 5 && pool.running === 2)
    expect((await statuses(laned.def.id)).filter((s) => s === 'running')).toHaveLength(5)
    const sharedRunning = [...(await statuses(shared.def.id)), ...(await statuses(sharedToo.def.id))]
    expect(sharedRunning.filter((s) => s === 'running')).toHaveLength(2)

    open()
    await waitFor(() => laned.counter.done === 8 && pool.done === 4)
    await waitFor(async () => (await statuses(laned.def.id)).every((s) => s === 'completed'))
    expect(laned.counter.peak).toBe(5)
    expect(pool.peak).toBe(2)
  })

  it('refuses a limit that is not a positive integer, and hands it to Inngest as its concurrency', () => {
    const base = {
      id: 'limited',
      name: 'limited',
      trigger: { event: 'test/limited' },
      retries: 0,
      payload: z.object({}),
      async handler() {},
    }
    expect(() => defineJob({ ...base, concurrency: 0 })).toThrow(/concurrency/)
    expect(() => defineJob({ ...base, concurrency: 1.5 })).toThrow(/concurrency/)
    // a definition built by hand, past defineJob, is refused when the engine is made
    expect(() => createJobsEngine({ kind: 'in-process' }, [{ ...base, concurrency: 0 }])).toThrow(
      /concurrency/,
    )
    const client = createInngestClient({ kind: 'in-process' })
    expect(toInngestFunction(defineJob({ ...base, concurrency: 16 }), client).opts.concurrency).toBe(16)
    expect(toInngestFunction(defineJob(base), client).opts.concurrency).toBeUndefined()
  })
})

const queueRun = (functionId: string) =>
  handle.db
    .insert(jobRuns)
    .values({ functionId, idempotencyKey: randomUUID(), eventName: functionId, payload: {}, maxAttempts: 2 })

describe('in-process runs store: lanes and batched completions', () => {
  it('claims each lane up to its own limit in one statement', async () => {
    const a = uniqueName('lane-a')
    const b = uniqueName('lane-b')
    for (let i = 0; i < 4; i++) await queueRun(a)
    for (let i = 0; i < 4; i++) await queueRun(b)
    const claimed = await claimDueInLanes(
      handle.db,
      [
        { functionIds: [a], limit: 3 },
        { functionIds: [b], limit: 1 },
      ],
      60_000,
    )
    expect(claimed.filter((r) => r.functionId === a)).toHaveLength(3)
    expect(claimed.filter((r) => r.functionId === b)).toHaveLength(1)
    expect(new Set(claimed.map((r) => r.claimId)).size).toBe(1)
  })

  it('completes only the runs still held under their claim', async () => {
    const fn = uniqueName('complete')
    for (let i = 0; i < 3; i++) await queueRun(fn)
    const held = await claimDue(handle.db, [fn], 3, 60_000)
    expect(held).toHaveLength(3)
    const [lost, ...kept] = held
    // Its lease ran out and another worker claimed it again: the first holder's completion is fenced off.
    await handle.db
      .update(jobRuns)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(jobRuns.id, lost!.id))
    const [retaken] = await claimDue(handle.db, [fn], 1, 60_000)
    expect(retaken?.id).toBe(lost!.id)

    const completed = await completeRuns(handle.db, held)
    expect([...completed].sort()).toEqual(kept.map((r) => r.id).sort())
    expect(await statuses(fn)).toEqual(['completed', 'completed', 'running'])
    // A second write of the same completions changes nothing.
    expect((await completeRuns(handle.db, kept)).size).toBe(0)
  })

  it('saves the step results of several runs in one statement, only where the run is still held', async () => {
    const fn = uniqueName('steps')
    for (let i = 0; i < 2; i++) await queueRun(fn)
    const [held, lost] = await claimDue(handle.db, [fn], 2, 60_000)
    await handle.db
      .update(jobRuns)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(jobRuns.id, lost!.id))
    await claimDue(handle.db, [fn], 1, 60_000)
    const json = (value: unknown) => JSON.stringify({ value })
    const saved = await saveSteps(
      handle.db,
      [
        { run: held!, key: 'a', json: json({ ids: ['x', 'y'], quote: 'it\'s "quoted"' }) },
        { run: lost!, key: 'a', json: json(1) },
      ],
      60_000,
    )
    expect([...saved]).toEqual([held!.id])
    const rows = await handle.db.select().from(jobRuns).where(eq(jobRuns.functionId, fn))
    expect(rows.find((r) => r.id === held!.id)?.steps).toEqual({
      a: { value: { ids: ['x', 'y'], quote: 'it\'s "quoted"' } },
    })
    expect(rows.find((r) => r.id === lost!.id)?.steps).toEqual({})
  })
})
