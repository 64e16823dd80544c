import type { Db } from '@/db/client'
import { type Logger, withLogContext } from '@/lib/log'
import { describeError, isNonRetriable } from '../errors'
import type { JobDefinition } from '../types'
import {
  type ClaimedRun,
  msFromNow,
  type RunUpdate,
  type StepSave,
  saveStep,
  updateOwned,
} from './runs-store'
import { createStepTools, type StepHost, Suspended } from './steps'

export interface Backoff {
  baseMs: number
  maxMs: number
}

/** What an attempt needs from its engine. */
export interface AttemptContext {
  db: () => Promise<Db>
  leaseMs: number
  backoff: Backoff
  log: Logger
  /** True once stop() began: runs hand their claim back at their next step. */
  stopping: () => boolean
  /** Records a held run completed (group-committed with other runs'); false when no longer held. */
  complete: (run: ClaimedRun) => Promise<boolean>
  /** Records a held run's step result and renews its lease (group-committed); false when no longer held. */
  saveStep: (save: StepSave) => Promise<boolean>
}

/** Delay before retry number `retry` (1 for the first): doubling from baseMs, at most maxMs. */
export function backoffDelay(retry: number, backoff: Backoff): number {
  return Math.min(backoff.baseMs * 2 ** Math.max(0, retry - 1), backoff.maxMs)
}

/** One claim of a run by this process, from the claim until its outcome is written. */
export class Attempt implements StepHost {
  /** Set once the attempt must not write any more: it slept, yielded, lost its claim or was abandoned. */
  over = false
  /** Writing its outcome; a heartbeat racing that write must not read the result as a lost claim. */
  settling = false
  done: Promise<void> = Promise.resolve()
  private heartbeat?: ReturnType<typeof setInterval>

  constructor(
    readonly row: ClaimedRun,
    readonly ctx: AttemptContext,
  ) {}

  /** Writes (and optionally records a step) only while this attempt still holds the run. */
  async write(values: RunUpdate, step?: { key: string; json: string }): Promise<boolean> {
    if (this.over) return false
    const db = await this.ctx.db()
    const held = step
      ? await saveStep(db, this.row, step.key, step.json, values)
      : await updateOwned(db, this.row, values)
    return this.held(held)
  }

  /** Records a completed step's result (renewing the lease) while this attempt still holds the run. */
  async saveStep(key: string, json: string): Promise<boolean> {
    if (this.over) return false
    return this.held(await this.ctx.saveStep({ run: this.row, key, json }))
  }

  private held(held: boolean): boolean {
    if (!held && !this.settling) {
      this.over = true
      this.ctx.log.warn(
        { runId: this.row.id },
        'job run was claimed by another worker; dropping this attempt',
      )
    }
    return held
  }

  /** Stops writing; a stuck handler is left to its lease, after which another worker resumes it. */
  abandon(): void {
    this.over = true
    clearInterval(this.heartbeat)
  }

  async execute(def: JobDefinition | undefined): Promise<void> {
    this.heartbeat = setInterval(() => void this.beat(), Math.max(10, Math.floor(this.ctx.leaseMs / 3)))
    this.heartbeat.unref()
    try {
      if (def) await this.runHandler(def)
    } finally {
      clearInterval(this.heartbeat)
    }
  }

  private async beat(): Promise<void> {
    if (this.settling) return
    try {
      await this.write({ lockedUntil: msFromNow(this.ctx.leaseMs) })
    } catch (error) {
      this.ctx.log.warn({ err: error, runId: this.row.id }, 'job run heartbeat failed')
    }
  }

  /** Everything the run logs, and every event it sends, carries the request that started it. */
  private runHandler(def: JobDefinition): Promise<void> {
    const { row } = this
    return withLogContext({ requestId: row.requestId ?? undefined, functionId: def.id, runId: row.id }, () =>
      this.runHandlerInContext(def),
    )
  }

  private async runHandlerInContext(def: JobDefinition): Promise<void> {
    const { row } = this
    const done = { lockedUntil: null, claimId: null } as const
    if (row.attempt >= row.maxAttempts) {
      await this.write({ ...done, status: 'failed' })
      this.ctx.log.error(
        { runId: row.id, functionId: def.id },
        'job run failed: interrupted on its last attempt',
      )
      return
    }
    const parsed = def.payload.safeParse(row.payload)
    if (!parsed.success) {
      const lastError = describeError(new Error(`Invalid payload: ${parsed.error.message}`))
      await this.write({ ...done, status: 'failed', lastError })
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
        step: createStepTools(this),
        attempt: row.attempt,
        runId: row.id,
      })
      // A handler that swallowed a Suspended must not turn a sleep into a completion.
      if (this.over) return
      this.settling = true
      await this.ctx.complete(row)
    } catch (error) {
      if (this.over || error instanceof Suspended) return
      this.settling = true
      await this.fail(def, error)
    }
  }

  private async fail(def: JobDefinition, error: unknown): Promise<void> {
    const { row } = this
    const next = row.attempt + 1
    const lastError = describeError(error)
    const log = { runId: row.id, functionId: def.id, attempt: row.attempt, err: error }
    const release = { attempt: next, lockedUntil: null, claimId: null, lastError }
    if (isNonRetriable(error) || next >= row.maxAttempts) {
      await this.write({ ...release, status: 'failed' })
      this.ctx.log.error(log, 'job run failed')
      return
    }
    const delay = backoffDelay(next, this.ctx.backoff)
    await this.write({ ...release, status: 'queued', runAfter: msFromNow(delay) })
    this.ctx.log.warn({ ...log, retryInMs: delay }, 'job run attempt failed; will retry')
  }
}

/**
 * Waits up to `timeoutMs` for the attempts to settle. Stuck handlers keep running, but they
 * are abandoned: without heartbeats their lease runs out and another process (or this one,
 * restarted) resumes them from their last completed step. Returns the abandoned ones.
 */
export async function drain(attempts: readonly Attempt[], timeoutMs: number): Promise<Attempt[]> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = await Promise.race([
    Promise.allSettled(attempts.map((a) => a.done)).then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs)
    }),
  ])
  clearTimeout(timer)
  if (!timedOut) return []
  for (const attempt of attempts) attempt.abandon()
  return [...attempts]
}
