import { Inngest, type InngestFunction, NonRetriableError as InngestNonRetriableError } from 'inngest'
import { getConfig, type JobsChoice } from '@/lib/config'
import { currentRequestId, logger, withLogContext } from '@/lib/log'
import { checkConcurrency } from './concurrency'
import { isNonRetriable } from './errors'
import { checkRetries } from './retries'
import type { JobDefinition, JobsEngine, SendEvent, SendOptions, StepTools } from './types'

export const INNGEST_APP_ID = 'session-replay-issues'

type Retries = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20

function inngestRetries(def: JobDefinition): Retries {
  return checkRetries(def) as Retries
}

/**
 * Keys come from the configuration rather than Inngest reading process.env itself, so one
 * parsed configuration decides. With no keys (the in-process default) the client still
 * constructs; it is only never asked to send or serve.
 */
export function createInngestClient(choice: JobsChoice): Inngest {
  if (choice.kind !== 'inngest')
    return new Inngest({ id: INNGEST_APP_ID, logger: logger.child({ component: 'inngest' }) })
  return new Inngest({
    id: INNGEST_APP_ID,
    eventKey: choice.eventKey,
    signingKey: choice.signingKey,
    isDev: choice.dev,
    baseUrl: choice.baseUrl,
    logger: logger.child({ component: 'inngest' }),
  })
}

let appClient: Inngest | undefined

/** The app's client, made on first use so that importing this module needs no configuration. */
export function getInngestClient(): Inngest {
  appClient ??= createInngestClient(getConfig().jobs)
  return appClient
}

/**
 * Inngest events carry only `data`, so the causing request's id rides in it under a key of
 * ours, taken out again before the payload reaches the handler (where it could otherwise
 * leak into a webhook's `data`).
 */
const REQUEST_ID_KEY = '__requestId'

function withRequestId(event: SendEvent): Record<string, unknown> {
  const requestId = event.requestId ?? currentRequestId()
  return requestId ? { ...event.data, [REQUEST_ID_KEY]: requestId } : event.data
}

function splitRequestId(data: unknown): { data: unknown; requestId?: string } {
  if (typeof data !== 'object' || data === null || !(REQUEST_ID_KEY in data)) return { data }
  const { [REQUEST_ID_KEY]: requestId, ...rest } = data as Record<string, unknown>
  return { data: rest, requestId: typeof requestId === 'string' ? requestId : undefined }
}

/**
 * Wraps a definition for Inngest. The payload is validated inside the handler (an invalid
 * one can never succeed, so it fails without retries) and step results go through Inngest's
 * memoization, which like the in-process engine hands back their JSON form.
 */
export function toInngestFunction(
  def: JobDefinition,
  client: Inngest = getInngestClient(),
): InngestFunction.Any {
  const triggers = 'event' in def.trigger ? [{ event: def.trigger.event }] : [{ cron: def.trigger.cron }]
  const concurrency = checkConcurrency(def)
  return client.createFunction(
    {
      id: def.id,
      name: def.name,
      retries: inngestRetries(def),
      triggers,
      // Inngest's per-function limit; without one the function takes Inngest's (account) default.
      ...(concurrency === undefined ? {} : { concurrency }),
    },
    async ({ event, step, attempt, runId }) => {
      const { data, requestId } = splitRequestId(event.data)
      const parsed = def.payload.safeParse(data)
      if (!parsed.success)
        throw new InngestNonRetriableError(`Invalid payload for ${def.id}: ${parsed.error.message}`)
      const tools: StepTools = {
        run: async <T>(id: string, fn: () => Promise<T>) => (await step.run(id, fn)) as T,
        sleep: (id: string, seconds: number) => step.sleep(id, seconds * 1000),
      }
      try {
        return await withLogContext({ requestId, functionId: def.id, runId }, () =>
          def.handler({
            event: {
              id: event.id ?? `${def.id}:${runId}`,
              name: event.name,
              data: parsed.data,
              ts: event.ts ?? Date.now(),
            },
            step: tools,
            attempt,
            runId,
          }),
        )
      } catch (error) {
        if (isNonRetriable(error) && !(error instanceof InngestNonRetriableError))
          throw new InngestNonRetriableError(error instanceof Error ? error.message : String(error), {
            cause: error,
          })
        throw error
      }
    },
  )
}

/** Inngest runs and schedules the functions itself; this side only sends events. */
export function createInngestEngine(client: Inngest): JobsEngine {
  return {
    kind: 'inngest',
    // `options.db` is ignored: the event leaves over HTTP now, whatever becomes of the caller's
    // transaction (see SendOptions; the outbox is what ties an event to a commit).
    async send(input: SendEvent | SendEvent[], _options?: SendOptions) {
      const events = Array.isArray(input) ? input : [input]
      if (events.length === 0) return
      // Inngest drops a second event with the same id (for 24 hours), which is what makes
      // the outbox's re-sends harmless.
      await client.send(
        events.map((e) => ({ name: e.name, data: withRequestId(e), ...(e.id ? { id: e.id } : {}) })),
      )
    },
    async start() {},
    async stop() {},
  }
}

/** What /api/inngest serves (see lib/http/inngest-route.ts). */
export interface InngestServeTarget {
  client: Inngest
  functions: InngestFunction.Any[]
}
