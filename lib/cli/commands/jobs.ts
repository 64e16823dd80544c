import { and, count, eq, gte } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { insights, replaySessions, webhookDeliveryAttempts } from '@/db/schema'
import { databaseNow } from '@/lib/alerts/clock'
import { getConfig } from '@/lib/config'
import type { IdleReport } from '@/lib/jobs/in-process'
import { sweepOutbox } from '@/lib/outbox/sweep'
import type { CliCommand } from '../command'

/**
 * The scheduled jobs each option runs now; without an option, all three groups (as before the
 * command ran the job list). The retention sweep deletes data, so it only ever runs on its
 * schedule or through `retention:run`, never as a side effect of asking for background work.
 */
const GROUPS = {
  finalize: ['finalize-idle-sessions', 'outbox-sweep'],
  insights: ['generate-insights'],
  deliveries: ['webhook-deliveries-sweep', 'alerts-slack-deliveries-sweep', 'alerts-digests'],
} as const

// A retry is waited for while it comes due within this; later ones are left queued (`waiting`).
const MAX_WAIT_MS = 60_000
// Short backoffs: the operator is waiting for the command, not a server for its next poll.
const BACKOFF = { baseMs: 1000, maxMs: 10_000 }

function scheduledJobs(values: Record<string, unknown>): string[] {
  const all = !values.finalize && !values.insights && !values.deliveries
  return Object.entries(GROUPS).flatMap(([option, ids]) => (all || values[option] ? ids : []))
}

/**
 * The figures the command answered before it ran the job list (`finalized` sessions, written
 * `insights`, webhook `deliveries` attempted), kept so scripts that read them still work. Counted
 * from the rows written since `since` by the database's clock: a server's engine on the same
 * database may have contributed some of them.
 */
async function legacyFigures(db: Db, since: Date) {
  const [[sessions], [written], [attempts]] = await Promise.all([
    db
      .select({ n: count() })
      .from(replaySessions)
      .where(and(eq(replaySessions.status, 'processed'), gte(replaySessions.processedAt, since))),
    db.select({ n: count() }).from(insights).where(gte(insights.createdAt, since)),
    db
      .select({ n: count() })
      .from(webhookDeliveryAttempts)
      .where(gte(webhookDeliveryAttempts.startedAt, since)),
  ])
  return { finalized: sessions?.n ?? 0, insights: written?.n ?? 0, deliveries: attempts?.n ?? 0 }
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
 * Runs the service's one job list (inngest/jobs.ts, which both engines serve, handed in as
 * `io.wiring`) in this process through the in-process engine: the chosen scheduled jobs once,
 * then every run that is due or that they start, outbox events included, until none is left.
 * Outbox events go through the same dispatch and triggers as on a server (no routing of the
 * command's own), so an event swept here starts exactly the jobs it starts there (alert rules,
 * the model's review, webhooks, ...), with the configured model and deliverer.
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
    const started = await databaseNow(db)
    const engine = io.wiring.localJobsEngine(db, {
      leaseMs: config.jobsLeaseSeconds * 1000,
      backoff: BACKOFF,
    })
    const report = await engine.runUntilIdle({
      scheduled: scheduledJobs(values),
      // Work that commits events without an engine at hand (this process has no app engine)
      // leaves them in the outbox; they are handed to this run rather than left for a server.
      whenIdle: () => sweepOutbox(db, engine),
      maxWaitMs: MAX_WAIT_MS,
    })
    for (const [id, n] of Object.entries(report.failed))
      io.warn(`${n} run(s) of ${id} failed; their errors are in job_runs.last_error and the log`)
    const legacy = await legacyFigures(db, started)
    return { json: { ...legacy, ...report }, text: summary(report) }
  },
}
