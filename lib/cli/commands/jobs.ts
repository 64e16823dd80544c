import { getConfig } from '@/lib/config'
import { generateInsightsForInterval, lastInterval } from '@/lib/insights/generate'
import type { JobsEngine, SendEvent, StepTools } from '@/lib/jobs/types'
import { EVENTS } from '@/lib/outbox/events'
import { sweepOutbox } from '@/lib/outbox/sweep'
import { sweepSessions } from '@/lib/processing/finalizer'
import { processSession } from '@/lib/processing/process-session'
import { backfillSignal } from '@/lib/signals/backfill'
import { getBlobStore } from '@/lib/storage'
import { createSymbolicator } from '@/lib/symbolication/symbolicate-session'
import { OUTBOX_TO_WEBHOOK } from '@/lib/webhooks/events'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { getDeliverer } from '@/lib/webhooks/runtime'
import { deliverDue } from '@/lib/webhooks/sweep'
import type { CliCommand } from '../command'

// The CLI runs the work itself, in order, instead of handing it to an engine it does not run.
const inline: StepTools = { run: (_id, fn) => fn(), sleep: async () => {} }
const collect = (into: SendEvent[]): JobsEngine => ({
  kind: 'in-process',
  send: async (events) => {
    into.push(...(Array.isArray(events) ? events : [events]))
  },
  start: async () => {},
  stop: async () => {},
})

export const jobsRun: CliCommand = {
  name: 'jobs:run',
  summary:
    'Run background work now, in this process: finalize idle sessions, write insights, deliver webhooks',
  usage: 'jobs:run [--finalize] [--insights] [--deliveries]',
  options: { finalize: { type: 'boolean' }, insights: { type: 'boolean' }, deliveries: { type: 'boolean' } },
  async run(db, values) {
    const config = getConfig()
    const all = !values.finalize && !values.insights && !values.deliveries
    let finalized = 0
    let insights = 0
    let deliveries = 0
    if (all || values.finalize) {
      const sent: SendEvent[] = []
      const jobs = collect(sent)
      // The finalizer asks for idle sessions, then the outbox sweep hands every waiting event
      // (those requests, flush: final requests, signal backfills) to `collect`; they are
      // handled here, in order.
      await sweepSessions(db, jobs, { idleSeconds: config.sessions.idleSeconds })
      await sweepOutbox(db, jobs)
      const blobs = getBlobStore()
      const deps = {
        db,
        blobs,
        jobs,
        baseUrl: config.baseUrl,
        ingestUrl: config.ingestUrl,
        symbolicate: createSymbolicator({ db, blobs }),
      }
      for (const event of sent) {
        if (event.name === EVENTS.sessionFinalize) {
          const outcome = await processSession(deps, {
            sessionId: String(event.data.sessionId),
            runId: `cli:${event.id ?? crypto.randomUUID()}`,
            step: inline,
          })
          if (outcome.status === 'processed') finalized++
        } else if (OUTBOX_TO_WEBHOOK[event.name] && event.id) {
          await fanOutEvent(db, { eventId: event.id, name: event.name })
        } else if (event.name === EVENTS.signalCreated) {
          await backfillSignal(db, {
            organizationId: String(event.data.organizationId),
            signalId: String(event.data.signalId),
          })
        }
      }
    }
    if (all || values.insights)
      insights = await generateInsightsForInterval(
        db,
        lastInterval(Date.now(), config.insights.intervalHours),
      )
    if (all || values.deliveries)
      deliveries = await deliverDue(db, getDeliverer(), { delays: config.webhooks.retryDelaysSeconds })
    return {
      json: { finalized, insights, deliveries },
      text: `Processed ${finalized} session(s); wrote ${insights} insight(s); made ${deliveries} webhook delivery attempt(s)`,
    }
  },
}
