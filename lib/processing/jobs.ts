import { z } from 'zod'
import type { Config } from '@/lib/config'
import { generateInsightsForInterval, lastInterval } from '@/lib/insights/generate'
import { defineJob } from '@/lib/jobs/define'
import type { JobDefinition } from '@/lib/jobs/types'
import { EVENTS } from '@/lib/outbox/events'
import { backfillSignal } from '@/lib/signals/backfill'
import { getProcessingDeps } from './deps'
import { sweepSessions } from './finalizer'
import { processSession } from './process-session'

/** Inngest schedules have minute resolution; the in-process engine uses the exact seconds. */
export function cronEvery(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60))
  if (minutes < 60) return `*/${minutes} * * * *`
  const hours = Math.max(1, Math.round(minutes / 60))
  return hours < 24 ? `0 */${hours} * * *` : '0 0 * * *'
}

const SessionEvent = z.object({ organizationId: z.string(), sessionId: z.string() })
const SignalEvent = z.object({ organizationId: z.string(), signalId: z.string() })
const Tick = z.object({}).loose()

export function processingJobs(config: Config): JobDefinition[] {
  return [
    defineJob({
      id: 'process-session',
      name: 'Process a replay session',
      trigger: { event: EVENTS.sessionFinalize },
      retries: 3,
      payload: SessionEvent,
      handler: async ({ event, step, runId }) =>
        processSession(await getProcessingDeps(), { sessionId: event.data.sessionId, runId, step }),
    }),
    defineJob({
      id: 'finalize-idle-sessions',
      name: 'Finalize idle sessions',
      trigger: {
        cron: cronEvery(config.sessions.finalizerIntervalSeconds),
        everySeconds: config.sessions.finalizerIntervalSeconds,
      },
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => {
          const deps = await getProcessingDeps()
          return {
            asked: await sweepSessions(deps.db, deps.jobs, { idleSeconds: config.sessions.idleSeconds }),
          }
        }),
    }),
    defineJob({
      id: 'generate-insights',
      name: 'Write insights for the last interval',
      trigger: {
        cron: cronEvery(config.insights.intervalHours * 3600),
        everySeconds: config.insights.intervalHours * 3600,
      },
      retries: 3,
      payload: Tick,
      handler: async ({ event, step }) =>
        step.run('generate', async () => {
          const { db, model } = await getProcessingDeps()
          const interval = lastInterval(event.ts, config.insights.intervalHours)
          return { written: await generateInsightsForInterval(db, interval, model ?? null) }
        }),
    }),
    defineJob({
      id: 'backfill-signal',
      name: 'Match a new signal against recent sessions',
      trigger: { event: EVENTS.signalCreated },
      retries: 3,
      payload: SignalEvent,
      handler: async ({ event, step }) =>
        step.run('backfill', async () => {
          const { db } = await getProcessingDeps()
          return { matched: await backfillSignal(db, event.data) }
        }),
    }),
  ]
}
