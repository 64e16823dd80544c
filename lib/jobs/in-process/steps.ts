import type { Db } from '@/db/client'
import type { StepTools } from '../types'
import { type ClaimedRun, giveBack, msFromNow, type RunUpdate } from './runs-store'

/**
 * What the step tools need of the attempt they run in (./attempt.ts's Attempt): described here
 * so that the attempt imports its steps and the steps never import the attempt back.
 */
export interface StepHost {
  /** Set once the attempt must not write any more. */
  over: boolean
  /** Writing its outcome (a sleep, a hand-back): a heartbeat must not read it as a lost claim. */
  settling: boolean
  readonly row: ClaimedRun
  readonly ctx: { db: () => Promise<Db>; stopping: () => boolean }
  /** Records a step's JSON result; false when the run is no longer held. */
  saveStep(key: string, json: string): Promise<boolean>
  /** Writes the run (and optionally a step) while still held; false otherwise. */
  write(values: RunUpdate, step?: { key: string; json: string }): Promise<boolean>
}

/** Ends the current attempt without failing it (a sleep, a shutdown, a lost claim). */
export class Suspended extends Error {
  override name = 'Suspended'
}

/** Inngest refuses step output above 4 MB; refusing it here too keeps a job portable. */
export const MAX_STEP_RESULT_BYTES = 4 * 1024 * 1024

export class StepResultTooLargeError extends Error {
  override name = 'StepResultTooLargeError'

  constructor(id: string, bytes: number) {
    super(
      `Step "${id}" returned ${(bytes / 1024 / 1024).toFixed(1)} MB of JSON; step results are limited to 4 MB (as on Inngest). Store large data elsewhere and return a reference to it.`,
    )
  }
}

type StepMemo = { value?: unknown }

/**
 * The step tools of one attempt. A completed step's JSON result is stored on the run; a later
 * attempt finds it by the step's key and returns it instead of running the step again.
 */
export function createStepTools(attempt: StepHost): StepTools {
  const { ctx } = attempt
  const memos: Record<string, unknown> = { ...attempt.row.steps }
  const seen = new Map<string, number>()
  // Inngest numbers a repeated step id rather than reusing its result; so do we.
  const keyFor = (id: string) => {
    const n = seen.get(id) ?? 0
    seen.set(id, n + 1)
    return n === 0 ? id : `${id}:${n}`
  }
  const memoized = (key: string): StepMemo | undefined =>
    Object.hasOwn(memos, key) ? (memos[key] as StepMemo) : undefined
  // At shutdown a run gives its claim back, its attempt unspent, instead of starting new work.
  const handBack = async (): Promise<never> => {
    attempt.settling = true
    if (!attempt.over) await giveBack(await ctx.db(), attempt.row)
    attempt.over = true
    throw new Suspended()
  }

  return {
    run: async <T>(id: string, fn: () => Promise<T>): Promise<T> => {
      if (attempt.over) throw new Suspended()
      const key = keyFor(id)
      const memo = memoized(key)
      if (memo) return memo.value as T
      if (ctx.stopping()) await handBack()
      const value = await fn()
      const json = JSON.stringify({ value })
      const bytes = Buffer.byteLength(json)
      if (bytes > MAX_STEP_RESULT_BYTES) throw new StepResultTooLargeError(id, bytes)
      const saved = await attempt.saveStep(key, json)
      if (!saved) throw new Suspended()
      // Returned as JSON on every path, so a first run and a replay see the same value.
      const stored = JSON.parse(json) as StepMemo
      memos[key] = stored
      return stored.value as T
    },
    sleep: async (id: string, seconds: number): Promise<void> => {
      if (attempt.over) throw new Suspended()
      const key = keyFor(id)
      if (memoized(key)) return
      // Recorded as done before the wait: the attempt that wakes up finds it and goes on.
      attempt.settling = true
      await attempt.write(
        { status: 'queued', lockedUntil: null, claimId: null, runAfter: msFromNow(seconds * 1000) },
        { key, json: JSON.stringify({ value: null }) },
      )
      attempt.over = true
      throw new Suspended()
    },
  }
}
