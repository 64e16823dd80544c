import { z } from 'zod'
import type { Config } from '@/lib/config'
import { getDb } from '@/lib/db'
import { defineJob } from '@/lib/jobs/define'
import type { JobDefinition } from '@/lib/jobs/types'
import { cronEvery } from '@/lib/processing/jobs'
import { OUTBOX_TO_WEBHOOK } from './events'
import { fanOutEvent } from './fan-out'
import { getDeliverer } from './runtime'
import { deliverDue } from './sweep'

const AnyPayload = z.record(z.string(), z.unknown())
const Tick = z.object({}).loose()

/**
 * How often the due-deliveries sweep runs: a quarter of the shortest retry delay, between
 * 5 and 30 s (15 s with the defaults), so a retry goes out close to its time.
 */
export function sweepIntervalSeconds(delays: readonly number[]): number {
  return Math.min(30, Math.max(5, Math.round(Math.min(...delays) / 4)))
}

/**
 * Webhooks on the jobs engine. Durable state is the delivery rows (status, attempts,
 * nextAttemptAt), not the engine: one fan-out job per outbox event writes them and makes
 * the first attempt at once; a sweep makes every later one when it is due, and picks up
 * whatever a crash left (a claim's lease runs out). Revocation cancels pending rows.
 */
export function webhookJobs(config: Config): JobDefinition[] {
  const delays = config.webhooks.retryDelaysSeconds
  const fanOuts = Object.entries(OUTBOX_TO_WEBHOOK).map(([outboxName, webhookEvent]) =>
    defineJob({
      id: `webhook-fan-out-${webhookEvent.replace('.', '-')}`,
      name: `Deliver ${webhookEvent} webhooks`,
      trigger: { event: outboxName },
      retries: 3,
      payload: AnyPayload,
      handler: async ({ event, step }) => {
        const ids = await step.run('fan-out', async () =>
          fanOutEvent(await getDb(), {
            eventId: event.id,
            name: outboxName,
            fallback: {
              organizationId: typeof event.data.orgId === 'string' ? event.data.orgId : undefined,
              payload: event.data,
              occurredAt: new Date(event.ts),
            },
          }),
        )
        const attempted = await step.run('first-attempt', async () =>
          deliverDue(await getDb(), getDeliverer(), { delays, ids }),
        )
        return { deliveries: ids.length, attempted }
      },
    }),
  )
  const every = sweepIntervalSeconds(delays)
  return [
    ...fanOuts,
    defineJob({
      id: 'webhook-deliveries-sweep',
      name: 'Retry due webhook deliveries',
      trigger: { cron: cronEvery(every), everySeconds: every },
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => ({
          attempted: await deliverDue(await getDb(), getDeliverer(), { delays }),
        })),
    }),
  ]
}
