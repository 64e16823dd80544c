import { z } from 'zod'
import { deliverDueSlack } from '@/lib/alerts/deliver-slack'
import { sweepDigests } from '@/lib/alerts/digests'
import { evaluateEvent } from '@/lib/alerts/evaluate'
import { ALERT_SOURCE_EVENTS } from '@/lib/alerts/events'
import { firstAttempts } from '@/lib/alerts/jobs'
import { pruneAlertHistory } from '@/lib/alerts/prune'
import { pruneAuditTrail } from '@/lib/audit/prune'
import type { Config } from '@/lib/config'
import { generateInsightsForInterval, lastInterval } from '@/lib/insights/generate'
import { defineJob, every, type JobDefinition } from '@/lib/jobs'
import { EVENT_PAYLOADS, EVENTS, type EventName } from '@/lib/outbox/events'
import { sweepOutbox } from '@/lib/outbox/sweep'
import { failErasure, runErasure } from '@/lib/privacy/erase-person'
import { runExport } from '@/lib/privacy/export-run'
import { sweepExpiredExports } from '@/lib/privacy/export-sweep'
import { runRemasking } from '@/lib/privacy/remask-run'
import { sweepSessions } from '@/lib/processing/finalizer'
import { type ProcessingDeps, processSession } from '@/lib/processing/process-session'
import { sweepRetention } from '@/lib/retention/sweep'
import { backfillSignal } from '@/lib/signals/backfill'
import { sweepSourcemaps } from '@/lib/sourcemaps/sweep'
import type { Deliverer } from '@/lib/webhooks/deliver'
import { WEBHOOK_DELIVERIES } from '@/lib/webhooks/events'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { deliverDue, sweepIntervalSeconds } from '@/lib/webhooks/sweep'

/**
 * What every handler is given, resolved when it runs (never at import), the one way a
 * handler reaches the database, storage, the engine, the model or the webhook deliverer.
 */
export interface JobDeps extends ProcessingDeps {
  deliverer: Deliverer
}

/** Fan-out runs of each webhook event type at once (per process in-process; per app on Inngest). */
const FAN_OUT_CONCURRENCY = 16
// Retries of a session's processing; the last attempt files it without source maps if they cannot be read.
const PROCESS_SESSION_RETRIES = 3
// Digests go out within a minute of their window's end (windows are whole minutes).
const ALERT_DIGEST_SECONDS = 60

// Retries of an erasure: each continues where the last stopped (docs/privacy.md#erasure).
const ERASURE_RETRIES = 5
const Tick = z.object({}).loose()
// A re-masking goes over every session again on a retry; masked sessions cost a read each.
const REMASK_RETRIES = 3

/**
 * The trigger and payload schema of a job started by an outbox event: the schema is the
 * event's own in the catalogue, so a handler reads what producers were made to write, and
 * either engine refuses (fails without retries) a payload that does not match.
 */
function onEvent<N extends EventName>(name: N) {
  return { trigger: { event: name }, payload: EVENT_PAYLOADS[name] }
}

/**
 * Every background job of the service, with its trigger, in one list; both engines serve
 * exactly this list. Handlers only translate: each calls one domain function with `deps()`.
 */
export function defineJobs(config: Config, deps: () => Promise<JobDeps>): JobDefinition[] {
  const { finalizerIntervalSeconds, idleSeconds } = config.sessions
  const insightSeconds = config.insights.intervalHours * 3600
  const delays = config.webhooks.retryDelaysSeconds
  return [
    defineJob({
      id: 'process-session',
      name: 'Process a replay session',
      ...onEvent(EVENTS.sessionFinalize),
      retries: PROCESS_SESSION_RETRIES,
      handler: async ({ event, step, runId, attempt }) =>
        processSession(await deps(), {
          sessionId: event.data.sessionId,
          runId,
          step,
          finalAttempt: attempt >= PROCESS_SESSION_RETRIES,
        }),
    }),
    defineJob({
      id: 'finalize-idle-sessions',
      name: 'Finalize idle sessions',
      trigger: every(finalizerIntervalSeconds),
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => {
          const { db, jobs } = await deps()
          return { asked: await sweepSessions(db, jobs, { idleSeconds }) }
        }),
    }),
    defineJob({
      id: 'outbox-sweep',
      name: 'Re-send outbox events a crash left behind',
      // As often as the finalizer, which did this before it was a function of its own.
      trigger: every(finalizerIntervalSeconds),
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => {
          const { db, jobs } = await deps()
          return { sent: await sweepOutbox(db, jobs) }
        }),
    }),
    defineJob({
      id: 'generate-insights',
      name: 'Write insights for the last interval',
      trigger: every(insightSeconds),
      retries: 3,
      payload: Tick,
      handler: async ({ event, step }) =>
        step.run('generate', async () => {
          const { db, model } = await deps()
          const interval = lastInterval(event.ts, config.insights.intervalHours)
          return { written: await generateInsightsForInterval(db, interval, model ?? null) }
        }),
    }),
    defineJob({
      id: 'backfill-signal',
      name: 'Match a new signal against recent sessions',
      ...onEvent(EVENTS.signalCreated),
      retries: 3,
      handler: async ({ event, step }) =>
        step.run('backfill', async () => {
          return { matched: await backfillSignal((await deps()).db, event.data) }
        }),
    }),
    // One fan-out job per webhook event: it writes the delivery rows and makes the first
    // attempt at once; the deliveries sweep below makes every later one when it is due.
    ...WEBHOOK_DELIVERIES.map(([outboxName, webhookEvent]) =>
      defineJob({
        id: `webhook-fan-out-${webhookEvent.replace('.', '-')}`,
        name: `Deliver ${webhookEvent} webhooks`,
        ...onEvent(outboxName),
        retries: 3,
        // Short and waiting on receivers, not the CPU: these runs get slots of their own, so a
        // burst of events is delivered many at a time without taking the analysis jobs' slots.
        concurrency: FAN_OUT_CONCURRENCY,
        handler: async ({ event, step }) => {
          const ids = await step.run('fan-out', async () =>
            fanOutEvent((await deps()).db, {
              eventId: event.id,
              name: outboxName,
              fallback: {
                organizationId: event.data.orgId,
                payload: event.data,
                occurredAt: new Date(event.ts),
              },
            }),
          )
          const attempted = await step.run('first-attempt', async () => {
            const { db, deliverer } = await deps()
            return deliverDue(db, deliverer, { delays, ids })
          })
          return { deliveries: ids.length, attempted }
        },
      }),
    ),
    defineJob({
      id: 'webhook-deliveries-sweep',
      name: 'Retry due webhook deliveries',
      trigger: every(sweepIntervalSeconds(delays)),
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => {
          const { db, deliverer } = await deps()
          return { attempted: await deliverDue(db, deliverer, { delays }) }
        }),
    }),
    // Alerts (docs/alerts.md): one evaluation job per triggering event, the digests of ended
    // windows every minute, and the retries of Slack deliveries beside the webhooks' sweep.
    ...ALERT_SOURCE_EVENTS.map((outboxName) =>
      defineJob({
        id: `alerts-evaluate-${outboxName.replace(/[/.]/g, '-')}`,
        name: `Evaluate alert rules on ${outboxName}`,
        ...onEvent(outboxName),
        retries: 3,
        concurrency: FAN_OUT_CONCURRENCY,
        handler: async ({ event, step }) => {
          const queued = await step.run('evaluate', async () => {
            const { slack, webhook, decisions } = await evaluateEvent((await deps()).db, {
              eventId: event.id,
              name: outboxName,
              fallback: {
                organizationId: event.data.orgId,
                payload: event.data,
              },
            })
            return { slack, webhook, decided: decisions.length }
          })
          const attempted = await step.run('first-attempt', async () => {
            const { db, deliverer } = await deps()
            return firstAttempts(db, deliverer, queued, delays)
          })
          return { decided: queued.decided, attempted }
        },
      }),
    ),
    defineJob({
      id: 'alerts-digests',
      name: 'Send the digests of ended alert windows',
      trigger: every(ALERT_DIGEST_SECONDS),
      retries: 1,
      payload: Tick,
      handler: async ({ step }) => {
        const queued = await step.run('digests', async () => sweepDigests((await deps()).db))
        const attempted = await step.run('first-attempt', async () => {
          const { db, deliverer } = await deps()
          return firstAttempts(db, deliverer, queued, delays)
        })
        return { digests: queued.digests, attempted }
      },
    }),
    defineJob({
      id: 'alerts-slack-deliveries-sweep',
      name: 'Retry due Slack alert deliveries',
      trigger: every(sweepIntervalSeconds(delays)),
      retries: 1,
      payload: Tick,
      handler: async ({ step }) =>
        step.run('sweep', async () => ({ attempted: await deliverDueSlack((await deps()).db, { delays }) })),
    }),
    defineJob({
      id: 'erase-person',
      name: 'Erase one person’s sessions and what was derived from them',
      ...onEvent(EVENTS.erasureRequested),
      retries: ERASURE_RETRIES,
      handler: async ({ event, step, attempt }) =>
        step.run('erase', async () => {
          const { db, blobs } = await deps()
          try {
            return await runErasure({ db, blobs }, event.data)
          } catch (error) {
            if (attempt >= ERASURE_RETRIES) await failErasure(db, event.data)
            throw error
          }
        }),
    }),
    defineJob({
      id: 'privacy-export',
      name: "Write one person's data export (access request)",
      ...onEvent(EVENTS.exportRequested),
      retries: 2,
      handler: async ({ event, step }) =>
        step.run('export', async () => {
          const { db, blobs } = await deps()
          return runExport({ db, blobs }, event.data)
        }),
    }),
    defineJob({
      id: 'retention-sweep',
      name: 'Delete replay data past each organization’s retention',
      trigger: { cron: config.retention.cron },
      retries: 2,
      payload: Tick,
      handler: async ({ step }) => {
        const sessions = await step.run('sweep', async () => {
          const { db, blobs } = await deps()
          return sweepRetention(db, blobs)
        })
        // Source maps expire by upload age, one figure for the installation (docs/source-maps.md).
        const sourcemaps = await step.run('sourcemaps', async () => {
          const { db, blobs } = await deps()
          return sweepSourcemaps(db, blobs, { retentionDays: config.sourcemaps.retentionDays })
        })
        // Alert rules' history (decisions and messages) is kept 90 days (docs/alerts.md).
        const alerts = await step.run('alerts', async () => pruneAlertHistory((await deps()).db))
        // Audit entries are kept AUDIT_RETENTION_DAYS (docs/privacy.md#audit-trail).
        const audit = await step.run('audit', async () => pruneAuditTrail((await deps()).db))
        // Access requests' files live EXPORT_LIFETIME_DAYS (docs/privacy.md#exports).
        const exports = await step.run('exports', async () => {
          const { db, blobs } = await deps()
          return sweepExpiredExports(db, blobs)
        })
        return { ...sessions, sourcemaps, alerts, audit, exports }
      },
    }),
    defineJob({
      id: 'remask-sessions',
      name: 'Re-mask stored sessions',
      ...onEvent(EVENTS.remaskRequested),
      retries: REMASK_RETRIES,
      handler: async ({ event, step, attempt }) =>
        step.run('remask', async () =>
          runRemasking(await deps(), { ...event.data, finalAttempt: attempt >= REMASK_RETRIES }),
        ),
    }),
  ]
}
