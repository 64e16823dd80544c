import type { z } from 'zod'
import type { DbOrTx } from '@/db/client'

/**
 * Background jobs: each job is defined once and runs on either engine, Inngest (deployment)
 * or the in-process runner (embedded default). Handlers only see this small step interface,
 * which both engines implement with the same semantics: a completed step's result is
 * memoized by its id, so a retried or resumed run skips it.
 */
export interface StepTools {
  run<T>(id: string, fn: () => Promise<T>): Promise<T>
  sleep(id: string, seconds: number): Promise<void>
}

export interface JobEvent<TData> {
  /** Stable id: the outbox event id, so a re-sent event is recognised as the same one. */
  id: string
  name: string
  data: TData
  /** Epoch milliseconds. */
  ts: number
}

export interface JobContext<TData> {
  event: JobEvent<TData>
  step: StepTools
  /** 0 on the first attempt. */
  attempt: number
  runId: string
}

export type JobTrigger =
  | { event: string }
  /** A schedule. `cron` for Inngest; the in-process runner uses `everySeconds` when set. */
  | { cron: string; everySeconds?: number }

export interface JobDefinition<TSchema extends z.ZodType = z.ZodType> {
  id: string
  name: string
  trigger: JobTrigger
  /** Retries after the first attempt (Inngest's `retries`). */
  retries: number
  /**
   * Runs of this function at once (Inngest's per-function `concurrency`). Without it the
   * function shares the engine's default pool with every other function that has none. The
   * in-process engine gives a function with a limit its own slots, beyond that pool, so short
   * I/O-bound jobs (webhook fan-outs) neither wait behind heavy ones nor crowd them out.
   * Inngest counts the limit across all workers (as steps executing at once: a sleeping run
   * counts on neither engine); the in-process engine counts it in each process.
   */
  concurrency?: number
  payload: TSchema
  handler(ctx: JobContext<z.infer<TSchema>>): Promise<unknown>
}

export interface SendEvent {
  name: string
  data: Record<string, unknown>
  /** Deduplication id; a second send with the same id for the same job runs it once. */
  id?: string
  /**
   * The request that caused the event (the outbox keeps it across the dispatch); by default the
   * one the sender is serving. The run logs under it and passes it on to what it sends.
   */
  requestId?: string
}

export interface SendOptions {
  /**
   * The caller's transaction (or database). The in-process engine writes its runs with it, so
   * they commit or roll back with the caller's change; without it a send inside a transaction
   * would wait on that transaction forever on PGlite, which runs one query at a time. Inngest
   * ignores it: its sends go out over HTTP at once, outside any transaction, so code that needs
   * the event and its cause to commit together writes an outbox row instead of sending.
   */
  db?: DbOrTx
}

export interface JobsEngine {
  readonly kind: 'inngest' | 'in-process'
  send(event: SendEvent | SendEvent[], options?: SendOptions): Promise<void>
  /** Starts schedules and the runner (in-process only; a no-op for Inngest). */
  start(): Promise<void>
  /** Stops taking new work and waits for running handlers to reach a step boundary. */
  stop(): Promise<void>
}
