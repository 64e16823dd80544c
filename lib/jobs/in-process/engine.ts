import type { JobDefinition, JobsEngine, SendEvent, SendOptions } from '../types'
import { Attempt, type AttemptContext, drain } from './attempt'
import { Poller } from './poller'
import { RunWriters } from './run-writers'
import {
  type ClaimedRun,
  claimDueInLanes,
  giveBack,
  insertRuns,
  msUntilFirstQueued,
  prune,
  runStatuses,
} from './runs-store'
import { Scheduler } from './scheduler'
import { indexDefinitions, runForTick, runsForEvents } from './triggers'

const HOUR = 3_600_000

/**
 * Slots for some functions' runs: the shared pool (every function without a limit of its own,
 * `concurrency` slots) or one function with its own `concurrency`, whose runs never take the
 * shared pool's slots, so a burst of them cannot starve the others, nor they it.
 */
interface Lane {
  functionIds: string[]
  slots: number
  running: number
}

function lanesFor(definitions: Iterable<JobDefinition>, sharedSlots: number): Map<string, Lane> {
  const shared: Lane = { functionIds: [], slots: sharedSlots, running: 0 }
  const byFunction = new Map<string, Lane>()
  for (const def of definitions) {
    const lane =
      def.concurrency === undefined ? shared : { functionIds: [], slots: def.concurrency, running: 0 }
    lane.functionIds.push(def.id)
    byFunction.set(def.id, lane)
  }
  return byFunction
}

/** What a runUntilIdle call ran, counted by function and by where each run ended. */
export interface IdleReport {
  completed: Record<string, number>
  failed: Record<string, number>
  /** Runs still queued: a retry or a sleep due later than the call was willing to wait. */
  waiting: Record<string, number>
}

export interface RunUntilIdleOptions {
  /** Scheduled functions to run once now, besides whatever is due. */
  scheduled: readonly string[]
  /**
   * Called whenever nothing is due; sends what it finds (the outbox) and answers how many
   * events it sent: the call goes on while it sends any.
   */
  whenIdle?: () => Promise<number>
  /** Longest wait for a run of this call to come due again (retries back off). */
  maxWaitMs: number
}

/** Options with their defaults applied (see InProcessOptions). */
export interface EngineSettings extends Omit<AttemptContext, 'stopping' | 'complete' | 'saveStep'> {
  concurrency: number
  pollIntervalMs: number
  maxPollIntervalMs: number
  stopTimeoutMs: number
  retentionMs: number
  production: boolean
}

/**
 * Runs job definitions inside this process with the durable state in `job_runs`, so any
 * number of processes on one database share the work and a restart loses nothing.
 */
export class InProcessEngine implements JobsEngine {
  readonly kind = 'in-process' as const
  private readonly byId: Map<string, JobDefinition>
  private readonly byEvent: Map<string, JobDefinition[]>
  private readonly scheduler: Scheduler
  private readonly poller: Poller
  private readonly inFlight = new Set<Attempt>()
  /** Each function's lane (several functions share the default one). */
  private readonly lanes: Map<string, Lane>
  private readonly ctx: AttemptContext
  private started = false
  private stopping = false
  private warnedProduction = false
  private pruneTimer: ReturnType<typeof setInterval> | undefined

  constructor(
    definitions: readonly JobDefinition[],
    private readonly s: EngineSettings,
  ) {
    const writers = new RunWriters(s.db, s.leaseMs)
    this.ctx = {
      ...s,
      stopping: () => this.stopping,
      complete: (run) => writers.complete(run),
      saveStep: (save) => writers.saveStep(save),
    }
    const { byId, byEvent } = indexDefinitions(definitions)
    this.byId = byId
    this.byEvent = byEvent
    this.lanes = lanesFor(byId.values(), s.concurrency)
    this.scheduler = new Scheduler(definitions, (def, tick) => void this.enqueueTick(def, tick))
    this.poller = new Poller({
      intervalMs: s.pollIntervalMs,
      maxIntervalMs: s.maxPollIntervalMs,
      log: s.log,
      pump: () => this.pump(),
    })
  }

  async send(input: SendEvent | SendEvent[], options: SendOptions = {}): Promise<void> {
    const rows = runsForEvents(Array.isArray(input) ? input : [input], (name) => this.byEvent.get(name) ?? [])
    if (rows.length === 0) return
    await insertRuns(options.db ?? (await this.s.db()), rows)
    // Inside a caller's transaction the rows are not visible yet; a poll after the commit finds them.
    void this.poller.wake()
  }

  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    this.stopping = false
    if (this.s.production && !this.warnedProduction) {
      this.warnedProduction = true
      this.s.log.warn(
        'BACKGROUND JOBS RUN IN-PROCESS IN PRODUCTION: they only make progress inside this one server process, while it is up. On serverless hosting (Vercel, Lambda, ...) processes are frozen between requests and jobs stall: configure Inngest there (INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY).',
      )
    }
    this.pruneTimer = setInterval(() => void this.prune(), HOUR)
    this.pruneTimer.unref()
    this.scheduler.start()
    this.s.log.info(
      {
        functions: [...this.byId.keys()],
        concurrency: this.s.concurrency,
        ownLimits: Object.fromEntries(
          [...this.byId.values()].flatMap((d) =>
            d.concurrency === undefined ? [] : [[d.id, d.concurrency]],
          ),
        ),
        schedules: this.scheduler.size,
      },
      'in-process jobs engine started',
    )
    this.poller.start()
  }

  async stop(): Promise<void> {
    if (!this.started) return
    this.started = false
    this.stopping = true
    clearInterval(this.pruneTimer)
    this.scheduler.stop()
    await this.poller.stop()

    const abandoned = await drain([...this.inFlight], this.s.stopTimeoutMs)
    for (const attempt of abandoned) this.release(attempt)
    if (abandoned.length > 0)
      this.s.log.warn(
        { runs: abandoned.map((a) => a.row.id) },
        'jobs still running at stop; left to their lease',
      )
    this.stopping = false
    this.s.log.info('in-process jobs engine stopped')
  }

  /**
   * Runs the named scheduled functions once and then every run that is or becomes due (the
   * events those runs send included), in this process, until nothing is left: `admin jobs:run`
   * on an installation whose engine does not run here. The same claims, lanes, steps and
   * retries as a started engine, without its scheduler or poller; never on a started engine.
   */
  async runUntilIdle(options: RunUntilIdleOptions): Promise<IdleReport> {
    if (this.started) throw new Error('runUntilIdle runs an engine that was not started')
    const db = await this.s.db()
    const rows = options.scheduled.map((id) => {
      const def = this.byId.get(id)
      if (!def || 'event' in def.trigger) throw new Error(`No scheduled job ${id}`)
      // Due by the database's clock (the default), not this process's: the claim compares with it.
      const { runAfter: _, ...row } = runForTick(def, def.trigger.cron, Date.now())
      return { ...row, idempotencyKey: `jobs:run ${row.idempotencyKey}` }
    })
    await insertRuns(db, rows)
    const ran = new Set<string>()
    const deadline = Date.now() + options.maxWaitMs
    for (;;) {
      const runs = await claimDueInLanes(db, this.freeLanes(), this.s.leaseMs)
      for (const run of runs) {
        ran.add(run.id)
        this.launch(run)
      }
      if (this.inFlight.size > 0) {
        await Promise.race([...this.inFlight].map((attempt) => attempt.done))
        continue
      }
      if (runs.length > 0 || ((await options.whenIdle?.()) ?? 0) > 0) continue
      const wait = await msUntilFirstQueued(db, [...ran])
      if (wait === null || Date.now() + wait > deadline) break
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
    const report: IdleReport = { completed: {}, failed: {}, waiting: {} }
    for (const run of await runStatuses(db, [...ran])) {
      const into =
        run.status === 'completed'
          ? report.completed
          : run.status === 'failed'
            ? report.failed
            : report.waiting
      into[run.functionId] = (into[run.functionId] ?? 0) + 1
    }
    return report
  }

  /** For each lane with free slots, its functions and how many runs it may take now. */
  private freeLanes() {
    return [...new Set(this.lanes.values())]
      .filter((lane) => lane.running < lane.slots)
      .map((lane) => ({ functionIds: lane.functionIds, limit: lane.slots - lane.running }))
  }

  /** Claims, in one statement, as many due runs as each lane has free slots; true when it reached the database. */
  private async pump(): Promise<boolean> {
    if (!this.started) return false
    const requests = this.freeLanes()
    if (requests.length === 0) return false
    const db = await this.s.db()
    const runs = await claimDueInLanes(db, requests, this.s.leaseMs)
    if (this.started) {
      for (const run of runs) this.launch(run)
      return true
    }
    // stop() began while the claim was on its way, and stop() only waits for runs that had
    // started: these go back untouched for the next process.
    await Promise.all(runs.map((run) => giveBack(db, run)))
    if (runs.length > 0) this.s.log.info({ runs: runs.map((r) => r.id) }, 'stopping: gave claimed runs back')
    return true
  }

  private launch(run: ClaimedRun): void {
    const attempt = new Attempt(run, this.ctx)
    this.inFlight.add(attempt)
    const lane = this.lanes.get(run.functionId)
    if (lane) lane.running++
    attempt.done = attempt
      .execute(this.byId.get(run.functionId))
      .catch((error) => this.s.log.error({ err: error, runId: run.id }, 'job run bookkeeping failed'))
      .finally(() => {
        this.release(attempt)
        void this.poller.wake()
      })
  }

  /** Frees the attempt's slot once: when it settles, or earlier when stop() abandons it. */
  private release(attempt: Attempt): void {
    if (!this.inFlight.delete(attempt)) return
    const lane = this.lanes.get(attempt.row.functionId)
    if (lane) lane.running--
  }

  private async enqueueTick(def: JobDefinition, tick: number): Promise<void> {
    if ('event' in def.trigger) return
    try {
      await insertRuns(await this.s.db(), [runForTick(def, def.trigger.cron, tick)])
      void this.poller.wake()
    } catch (error) {
      this.s.log.error({ err: error, functionId: def.id }, 'enqueueing a scheduled run failed')
    }
  }

  private async prune(): Promise<void> {
    try {
      await prune(await this.s.db(), this.s.retentionMs)
    } catch (error) {
      this.s.log.warn({ err: error }, 'pruning old job runs failed')
    }
  }
}
