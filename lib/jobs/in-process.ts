import { randomUUID } from 'node:crypto'
import { Cron } from 'croner'
import { and, asc, eq, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core'
import { jobRuns } from '@/db/schema'
import { type Db, getDb } from '@/lib/db'
import { logger } from '@/lib/log'
import { isNonRetriable } from './errors'
import type { JobDefinition, JobsEngine, SendEvent, StepTools } from './types'

export interface InProcessOptions {
  /** Where job_runs live; the app's database by default. */
  db?: () => Promise<Db>
  /** Handlers running at once in this process. */
  concurrency?: number
  /** How often to look for due runs that no local send or finish announced (other processes, backoffs, sleeps). */
  pollIntervalMs?: number
  /** How long a claim holds without a heartbeat; after that another process may take the run over. */
  leaseMs?: number
  /** Delay before retry n is baseMs * 2^(n-1), at most maxMs. */
  backoff?: { baseMs?: number; maxMs?: number }
  /** How long stop() waits for running handlers before abandoning them to the lease. */
  stopTimeoutMs?: number
  /** Completed runs older than this are deleted (failed ones are kept for inspection). */
  retentionMs?: number
}

type RunRow = typeof jobRuns.$inferSelect
type CronTrigger = { cron: string; everySeconds?: number }
type StepMemo = { value?: unknown }

/** The event name Inngest gives scheduled runs; used here too so handlers see the same event. */
export const SCHEDULED_EVENT = 'inngest/scheduled.timer'

const HOUR = 3_600_000
// setTimeout overflows past 2^31-1 ms; longer waits are taken in several hops.
const MAX_TIMER_MS = 2 ** 31 - 1
const MAX_ERROR_LENGTH = 4000

/** Ends the current attempt without failing it (a sleep, a shutdown, a lost lock). */
class Suspended extends Error {
  override name = 'Suspended'
}

/** Per-attempt state shared by the runner and the step tools it hands to the handler. */
interface Attempt {
  row: RunRow
  steps: Record<string, unknown>
  seen: Map<string, number>
  /** Set once the attempt must not write any more: it slept, yielded, lost its lock or was abandoned. */
  over: boolean
  /** Writing its outcome; a heartbeat racing that write must not read the result as a lost lock. */
  settling: boolean
  heartbeat?: ReturnType<typeof setInterval>
  done: Promise<void>
}

/**
 * Parses Inngest's cron syntax, including its optional `TZ=Area/City` prefix, so one string
 * means the same schedule on both engines.
 */
function parseCron(expression: string): Cron {
  const match = /^(?:CRON_)?TZ=(\S+)\s+(.+)$/.exec(expression.trim())
  return match
    ? new Cron(match[2]!, { paused: true, timezone: match[1] })
    : new Cron(expression.trim(), { paused: true })
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.slice(0, MAX_ERROR_LENGTH)
}

// Times are computed by the database so that every process compares against one clock.
const msFromNow = (ms: number) =>
  sql`now() + (${Math.round(ms)}::double precision * interval '1 millisecond')`

/**
 * Runs job definitions inside this process with the durable state in `job_runs`, so any
 * number of processes on one database share the work and a restart loses nothing.
 */
export class InProcessEngine implements JobsEngine {
  readonly kind = 'in-process' as const

  private readonly byId = new Map<string, JobDefinition>()
  private readonly byEvent = new Map<string, JobDefinition[]>()
  private readonly crons = new Map<string, { def: JobDefinition; trigger: CronTrigger; cron?: Cron }>()
  private readonly db: () => Promise<Db>
  private readonly concurrency: number
  private readonly pollIntervalMs: number
  private readonly leaseMs: number
  private readonly backoffBaseMs: number
  private readonly backoffMaxMs: number
  private readonly stopTimeoutMs: number
  private readonly retentionMs: number
  private readonly log = logger.child({ component: 'jobs', engine: 'in-process' })

  private started = false
  private stopping = false
  private pumping: Promise<void> | undefined
  private pumpAgain = false
  private readonly inFlight = new Set<Attempt>()
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()

  constructor(definitions: readonly JobDefinition[], options: InProcessOptions = {}) {
    this.db = options.db ?? getDb
    this.concurrency = Math.max(1, options.concurrency ?? 3)
    this.pollIntervalMs = options.pollIntervalMs ?? 1000
    this.leaseMs = options.leaseMs ?? 60_000
    this.backoffBaseMs = options.backoff?.baseMs ?? 1000
    this.backoffMaxMs = options.backoff?.maxMs ?? 10 * 60_000
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000
    this.retentionMs = options.retentionMs ?? 7 * 24 * HOUR

    for (const def of definitions) {
      if (this.byId.has(def.id)) throw new Error(`Duplicate job id ${def.id}`)
      this.byId.set(def.id, def)
      if ('event' in def.trigger) {
        const list = this.byEvent.get(def.trigger.event) ?? []
        list.push(def)
        this.byEvent.set(def.trigger.event, list)
      } else {
        // Parsed now so that a bad expression fails at start-up, not at the first tick.
        const cron = def.trigger.everySeconds ? undefined : parseCron(def.trigger.cron)
        if (def.trigger.everySeconds !== undefined && !(def.trigger.everySeconds > 0))
          throw new Error(`Job ${def.id}: everySeconds must be positive`)
        this.crons.set(def.id, { def, trigger: def.trigger, cron })
      }
    }
  }

  async send(input: SendEvent | SendEvent[]): Promise<void> {
    const events = Array.isArray(input) ? input : [input]
    const rows = new Map<string, typeof jobRuns.$inferInsert>()
    for (const event of events) {
      const key = event.id ?? randomUUID()
      for (const def of this.byEvent.get(event.name) ?? []) {
        rows.set(`${def.id}\u0000${key}`, {
          functionId: def.id,
          idempotencyKey: key,
          eventName: event.name,
          payload: event.data,
          maxAttempts: def.retries + 1,
        })
      }
    }
    if (rows.size === 0) return
    const db = await this.db()
    // The unique (function_id, idempotency_key) index is what makes a re-sent event a no-op.
    await db
      .insert(jobRuns)
      .values([...rows.values()])
      .onConflictDoNothing()
    this.wake()
  }

  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    this.stopping = false
    this.every(this.pollIntervalMs, () => this.wake())
    this.every(HOUR, () => void this.prune())
    for (const id of this.crons.keys()) this.scheduleNext(id, Date.now())
    this.log.info(
      { functions: [...this.byId.keys()], concurrency: this.concurrency, schedules: this.crons.size },
      'in-process jobs engine started',
    )
    this.wake()
  }

  async stop(): Promise<void> {
    if (!this.started) return
    this.started = false
    this.stopping = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    await this.pumping?.catch(() => {})

    const running = [...this.inFlight]
    let timeout: ReturnType<typeof setTimeout> | undefined
    const timedOut = await Promise.race([
      Promise.allSettled(running.map((a) => a.done)).then(() => false),
      new Promise<boolean>((resolve) => {
        timeout = setTimeout(() => resolve(true), this.stopTimeoutMs)
      }),
    ])
    clearTimeout(timeout)
    if (timedOut) {
      // Stuck handlers keep running, but without heartbeats their lease runs out and another
      // process (or this one, restarted) resumes them from their last completed step.
      for (const attempt of this.inFlight) this.abandon(attempt)
      this.log.warn({ runs: running.map((a) => a.row.id) }, 'jobs still running at stop; left to their lease')
    }
    this.stopping = false
    this.log.info('in-process jobs engine stopped')
  }

  // ---- runner ---------------------------------------------------------------------------

  private every(ms: number, fn: () => void): void {
    const timer = setInterval(fn, ms)
    timer.unref()
    this.timers.add(timer)
  }

  private wake(): void {
    if (!this.started) return
    if (this.pumping) {
      this.pumpAgain = true
      return
    }
    this.pumping = this.pump()
      .catch((error) => this.log.error({ err: error }, 'claiming job runs failed'))
      .finally(() => {
        this.pumping = undefined
      })
  }

  private async pump(): Promise<void> {
    do {
      this.pumpAgain = false
      const free = this.concurrency - this.inFlight.size
      if (!this.started || free <= 0 || this.byId.size === 0) return
      for (const row of await this.claim(free)) this.launch(row)
    } while (this.pumpAgain)
  }

  /**
   * One statement takes up to `limit` due runs: queued ones whose time has come, and running
   * ones whose lease expired (their process died). `skip locked` lets concurrent claimers
   * pass over each other's rows instead of queueing behind them or taking the same run.
   * Taking over an expired lease counts as an attempt, as a lost worker does on Inngest,
   * and moves `attempt` on, which also fences off the old worker's late writes.
   */
  private async claim(limit: number): Promise<RunRow[]> {
    const db = await this.db()
    const due = db
      .select({ id: jobRuns.id })
      .from(jobRuns)
      .where(
        and(
          inArray(jobRuns.functionId, [...this.byId.keys()]),
          or(
            and(eq(jobRuns.status, 'queued'), lte(jobRuns.runAfter, sql`now()`)),
            and(eq(jobRuns.status, 'running'), lt(jobRuns.lockedUntil, sql`now()`)),
          ),
        ),
      )
      .orderBy(asc(jobRuns.runAfter))
      .limit(limit)
      .for('update', { skipLocked: true })
    const wasRunning = sql`${jobRuns.status} = 'running'`
    return db
      .update(jobRuns)
      .set({
        status: 'running',
        attempt: sql`case when ${wasRunning} then ${jobRuns.attempt} + 1 else ${jobRuns.attempt} end`,
        lastError: sql`case when ${wasRunning} then 'Interrupted: the worker stopped before the run finished' else ${jobRuns.lastError} end`,
        lockedUntil: msFromNow(this.leaseMs),
        updatedAt: sql`now()`,
      })
      .where(inArray(jobRuns.id, due))
      .returning()
  }

  private launch(row: RunRow): void {
    const attempt: Attempt = {
      row,
      steps: { ...row.steps },
      seen: new Map(),
      over: false,
      settling: false,
      done: Promise.resolve(),
    }
    attempt.heartbeat = setInterval(
      () => void this.heartbeat(attempt),
      Math.max(10, Math.floor(this.leaseMs / 3)),
    )
    attempt.heartbeat.unref()
    this.inFlight.add(attempt)
    attempt.done = this.execute(attempt)
      .catch((error) => this.log.error({ err: error, runId: row.id }, 'job run bookkeeping failed'))
      .finally(() => {
        clearInterval(attempt.heartbeat)
        this.inFlight.delete(attempt)
        this.wake()
      })
  }

  private abandon(attempt: Attempt): void {
    attempt.over = true
    clearInterval(attempt.heartbeat)
    this.inFlight.delete(attempt)
  }

  /** Writes only while this attempt still owns the run. */
  private async write(attempt: Attempt, values: PgUpdateSetSource<typeof jobRuns>): Promise<boolean> {
    if (attempt.over) return false
    const db = await this.db()
    const updated = await db
      .update(jobRuns)
      .set({ ...values, updatedAt: sql`now()` })
      .where(this.owned(attempt))
      .returning({ id: jobRuns.id })
    if (updated.length === 0) {
      if (attempt.settling) return false
      attempt.over = true
      this.log.warn(
        { runId: attempt.row.id },
        'job run was taken over by another worker; dropping this attempt',
      )
      return false
    }
    return true
  }

  private owned(attempt: Attempt): SQL | undefined {
    return and(
      eq(jobRuns.id, attempt.row.id),
      eq(jobRuns.status, 'running'),
      eq(jobRuns.attempt, attempt.row.attempt),
    )
  }

  private async heartbeat(attempt: Attempt): Promise<void> {
    if (attempt.settling) return
    try {
      await this.write(attempt, { lockedUntil: msFromNow(this.leaseMs) })
    } catch (error) {
      this.log.warn({ err: error, runId: attempt.row.id }, 'job run heartbeat failed')
    }
  }

  private async execute(attempt: Attempt): Promise<void> {
    const { row } = attempt
    const def = this.byId.get(row.functionId)
    if (!def) return
    if (row.attempt >= row.maxAttempts) {
      await this.write(attempt, { status: 'failed', lockedUntil: null })
      this.log.error(
        { runId: row.id, functionId: row.functionId },
        'job run failed: interrupted on its last attempt',
      )
      return
    }

    const parsed = def.payload.safeParse(row.payload)
    if (!parsed.success) {
      await this.write(attempt, {
        status: 'failed',
        lockedUntil: null,
        lastError: describeError(new Error(`Invalid payload: ${parsed.error.message}`)),
      })
      return
    }

    try {
      await def.handler({
        event: {
          id: row.idempotencyKey,
          name: row.eventName,
          data: parsed.data,
          ts: row.createdAt.getTime(),
        },
        step: this.stepTools(attempt),
        attempt: row.attempt,
        runId: row.id,
      })
      // A handler that swallowed a Suspended must not turn a sleep into a completion.
      if (attempt.over) return
      attempt.settling = true
      await this.write(attempt, { status: 'completed', lockedUntil: null, completedAt: sql`now()` })
    } catch (error) {
      if (attempt.over || error instanceof Suspended) return
      attempt.settling = true
      await this.failAttempt(attempt, def, error)
    }
  }

  private async failAttempt(attempt: Attempt, def: JobDefinition, error: unknown): Promise<void> {
    const next = attempt.row.attempt + 1
    const lastError = describeError(error)
    const log = { runId: attempt.row.id, functionId: def.id, attempt: attempt.row.attempt, err: error }
    if (isNonRetriable(error) || next >= attempt.row.maxAttempts) {
      await this.write(attempt, { status: 'failed', attempt: next, lockedUntil: null, lastError })
      this.log.error(log, 'job run failed')
      return
    }
    const delay = Math.min(this.backoffBaseMs * 2 ** (next - 1), this.backoffMaxMs)
    await this.write(attempt, {
      status: 'queued',
      attempt: next,
      lockedUntil: null,
      lastError,
      runAfter: msFromNow(delay),
    })
    this.log.warn({ ...log, retryInMs: delay }, 'job run attempt failed; will retry')
  }

  private stepTools(attempt: Attempt): StepTools {
    // Inngest numbers a repeated step id rather than reusing its result; so do we.
    const keyFor = (id: string) => {
      const n = attempt.seen.get(id) ?? 0
      attempt.seen.set(id, n + 1)
      return n === 0 ? id : `${id}:${n}`
    }
    const memoized = (key: string): StepMemo | undefined =>
      Object.hasOwn(attempt.steps, key) ? (attempt.steps[key] as StepMemo) : undefined

    return {
      run: async <T>(id: string, fn: () => Promise<T>): Promise<T> => {
        if (attempt.over) throw new Suspended()
        const key = keyFor(id)
        const memo = memoized(key)
        if (memo) return memo.value as T
        if (this.stopping) await this.yieldRun(attempt)
        const value = await fn()
        // Stored and returned as JSON on every path, so a first run and a replay see the same value.
        const stored = JSON.parse(JSON.stringify({ value })) as StepMemo
        const saved = await this.write(attempt, {
          steps: sql`${jobRuns.steps} || jsonb_build_object(${key}::text, ${JSON.stringify(stored)}::jsonb)`,
          lockedUntil: msFromNow(this.leaseMs),
        })
        if (!saved) throw new Suspended()
        attempt.steps[key] = stored
        return stored.value as T
      },
      sleep: async (id: string, seconds: number): Promise<void> => {
        if (attempt.over) throw new Suspended()
        const key = keyFor(id)
        if (memoized(key)) return
        // Recorded as done before the wait: the attempt that wakes up finds it and goes on.
        const stored: StepMemo = { value: null }
        attempt.settling = true
        await this.write(attempt, {
          steps: sql`${jobRuns.steps} || jsonb_build_object(${key}::text, ${JSON.stringify(stored)}::jsonb)`,
          status: 'queued',
          lockedUntil: null,
          runAfter: msFromNow(seconds * 1000),
        })
        attempt.over = true
        throw new Suspended()
      },
    }
  }

  /** At shutdown a run gives its claim back at the next step instead of starting new work. */
  private async yieldRun(attempt: Attempt): Promise<never> {
    attempt.settling = true
    await this.write(attempt, { status: 'queued', lockedUntil: null, runAfter: sql`now()` })
    attempt.over = true
    throw new Suspended()
  }

  // ---- schedules ------------------------------------------------------------------------

  private nextTick(id: string, after: number): number | undefined {
    const schedule = this.crons.get(id)!
    if (schedule.trigger.everySeconds) {
      // Aligned to the epoch, so every process computes the same ticks and the unique key
      // collapses them into one run.
      const period = schedule.trigger.everySeconds * 1000
      return (Math.floor(after / period) + 1) * period
    }
    return schedule.cron?.nextRun(new Date(after))?.getTime()
  }

  private scheduleNext(id: string, after: number): void {
    const tick = this.nextTick(id, after)
    if (tick === undefined || !this.started) return
    this.arm(id, tick)
  }

  private arm(id: string, tick: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        if (!this.started) return
        // Timers may fire a little early, and long waits are split into hops.
        if (Date.now() < tick) return this.arm(id, tick)
        void this.enqueueTick(id, tick)
        this.scheduleNext(id, tick)
      },
      Math.min(Math.max(0, tick - Date.now()), MAX_TIMER_MS),
    )
    timer.unref()
    this.timers.add(timer)
  }

  private async enqueueTick(id: string, tick: number): Promise<void> {
    const { def, trigger } = this.crons.get(id)!
    try {
      const db = await this.db()
      await db
        .insert(jobRuns)
        .values({
          functionId: def.id,
          idempotencyKey: new Date(tick).toISOString(),
          eventName: SCHEDULED_EVENT,
          payload: { cron: trigger.cron },
          maxAttempts: def.retries + 1,
          runAfter: new Date(tick),
        })
        .onConflictDoNothing()
      this.wake()
    } catch (error) {
      this.log.error({ err: error, functionId: def.id }, 'enqueueing a scheduled run failed')
    }
  }

  private async prune(): Promise<void> {
    try {
      const db = await this.db()
      await db
        .delete(jobRuns)
        .where(and(eq(jobRuns.status, 'completed'), lt(jobRuns.completedAt, msFromNow(-this.retentionMs))))
    } catch (error) {
      this.log.warn({ err: error }, 'pruning old job runs failed')
    }
  }
}

export function createInProcessEngine(
  definitions: readonly JobDefinition[],
  options?: InProcessOptions,
): JobsEngine {
  return new InProcessEngine(definitions, options)
}
