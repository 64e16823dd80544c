import { createLocalJobsEngine } from '@/inngest/app'
import { getConfig } from '@/lib/config'
import type { JobDefinition } from '@/lib/jobs'
import type { IdleReport } from '@/lib/jobs/in-process'
import { sweepOutbox } from '@/lib/outbox/sweep'
import type { CliCommand } from '../command'

/** The scheduled jobs each option runs now; without an option, every scheduled job runs. */
const GROUPS = {
  finalize: ['finalize-idle-sessions', 'outbox-sweep'],
  insights: ['generate-insights'],
  deliveries: ['webhook-deliveries-sweep', 'alerts-slack-deliveries-sweep', 'alerts-digests'],
} as const

// A retry is waited for while it comes due within this; later ones are left queued (`waiting`).
const MAX_WAIT_MS = 60_000
// Short backoffs: the operator is waiting for the command, not a server for its next poll.
const BACKOFF = { baseMs: 1000, maxMs: 10_000 }

function scheduledJobs(definitions: JobDefinition[], values: Record<string, unknown>): string[] {
  const chosen = Object.entries(GROUPS).flatMap(([option, ids]) => (values[option] ? ids : []))
  if (chosen.length > 0) return chosen
  return definitions.filter((d) => !('event' in d.trigger)).map((d) => d.id)
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)
const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([id, n]) => `${id} ×${n}`)
    .join(', ')

function summary(report: IdleReport): string {
  const parts = [
    `Ran ${total(report.completed)} job run(s)${total(report.completed) ? `: ${listed(report.completed)}` : ''}`,
  ]
  if (total(report.failed)) parts.push(`${total(report.failed)} failed: ${listed(report.failed)}`)
  if (total(report.waiting))
    parts.push(`${total(report.waiting)} wait for a later retry: ${listed(report.waiting)}`)
  return parts.join('; ')
}

/**
 * Runs the service's one job list (inngest/jobs.ts, which both engines serve) in this process
 * through the in-process engine: the chosen scheduled jobs once, then every run that is due or
 * that they start, outbox events included, until none is left. So an event swept here starts
 * exactly the jobs it starts on a server (alert rules, the model's review, webhooks, ...), with
 * the configured model and deliverer.
 */
export const jobsRun: CliCommand = {
  name: 'jobs:run',
  summary:
    'Run background work now, in this process: the scheduled jobs, then every job they and the outbox start',
  usage: 'jobs:run [--finalize] [--insights] [--deliveries]',
  options: { finalize: { type: 'boolean' }, insights: { type: 'boolean' }, deliveries: { type: 'boolean' } },
  async run(db, values, io) {
    const config = getConfig()
    // Handlers get the CLI's database and this engine, so what they send runs here too.
    const { engine, definitions } = createLocalJobsEngine(db, {
      leaseMs: config.jobsLeaseSeconds * 1000,
      backoff: BACKOFF,
    })
    const report = await engine.runUntilIdle({
      scheduled: scheduledJobs(definitions, values),
      // Work that commits events without an engine at hand (this process has no app engine)
      // leaves them in the outbox; they are handed to this run rather than left for a server.
      whenIdle: () => sweepOutbox(db, engine),
      maxWaitMs: MAX_WAIT_MS,
    })
    for (const [id, n] of Object.entries(report.failed))
      io.warn(`${n} run(s) of ${id} failed; their errors are in job_runs.last_error and the log`)
    return { json: { ...report }, text: summary(report) }
  },
}
