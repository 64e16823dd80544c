import type { Db } from '@/db/client'
import { getDb } from '@/lib/db'
import { type Logger, logger } from '@/lib/log'
import type { JobDefinition } from '../types'
import { InProcessEngine } from './engine'

export interface InProcessOptions {
  /** Where job_runs live; the app's database by default. */
  db?: () => Promise<Db>
  /**
   * Handlers running at once in this process in the shared pool: the runs of every function
   * without a `concurrency` of its own. A function with one has that many slots besides.
   */
  concurrency?: number
  /** How often to look for due runs that no local send or finish announced (other processes, backoffs, sleeps). */
  pollIntervalMs?: number
  /** While the database is unreachable the poll interval doubles up to this. */
  maxPollIntervalMs?: number
  /** How long a claim holds without a heartbeat; after that another process may take the run over. */
  leaseMs?: number
  /** Delay before retry n is baseMs * 2^(n-1), at most maxMs. */
  backoff?: { baseMs?: number; maxMs?: number }
  /** How long stop() waits for running handlers before abandoning them to the lease. */
  stopTimeoutMs?: number
  /** Completed runs older than this are deleted (failed ones are kept for inspection). */
  retentionMs?: number
  /** Warns at start that jobs live in this one process; NODE_ENV=production by default. */
  production?: boolean
  logger?: Logger
}

export function createInProcessEngine(
  definitions: readonly JobDefinition[],
  options: InProcessOptions = {},
): InProcessEngine {
  const pollIntervalMs = options.pollIntervalMs ?? 1000
  return new InProcessEngine(definitions, {
    db: options.db ?? getDb,
    concurrency: Math.max(1, options.concurrency ?? 3),
    pollIntervalMs,
    maxPollIntervalMs: Math.max(pollIntervalMs, options.maxPollIntervalMs ?? 30_000),
    leaseMs: options.leaseMs ?? 60_000,
    backoff: { baseMs: options.backoff?.baseMs ?? 1000, maxMs: options.backoff?.maxMs ?? 10 * 60_000 },
    stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
    retentionMs: options.retentionMs ?? 7 * 24 * 3_600_000,
    production: options.production ?? process.env.NODE_ENV === 'production',
    log: (options.logger ?? logger).child({ component: 'jobs', engine: 'in-process' }),
  })
}

export type { IdleReport, InProcessEngine } from './engine'
export { SCHEDULED_EVENT } from './scheduler'
