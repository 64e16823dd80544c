import { InngestTestEngine } from '@inngest/test'
import { eq } from 'drizzle-orm'
import type { Inngest } from 'inngest'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { webhookDeliveries, webhookDeliveryAttempts } from '@/db/schema'
import { buildJobDefinitions } from '@/inngest/app'
import { parseConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createJobsEngine, type JobDefinition, type JobsEngine } from '@/lib/jobs'
import { setAppJobsEngine } from '@/lib/jobs/app-engine'
import { createInngestClient, createInngestEngine, toInngestFunction } from '@/lib/jobs/inngest'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createDeliverer } from '@/lib/webhooks/deliver'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { useDeliverer } from '@/lib/webhooks/runtime'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import { waitFor } from '../helpers/wait'
import {
  createTestPki,
  loopbackResolver,
  startReceiver,
  type TestPki,
  type TestReceiver,
} from '../helpers/webhooks'

/**
 * An event is handed to the engine when its transaction commits, not at the next sweep: with
 * the finalizer (and so the outbox sweep) an hour apart, a status change made through the Data
 * API still reaches its webhook at once, on both engines.
 */
const HAND_OVER_DEADLINE_MS = 2000

let database: TestDatabase
let pki: TestPki
let receiver: TestReceiver
let definitions: JobDefinition[]
let engine: JobsEngine | undefined

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  pki = createTestPki()
  receiver = await startReceiver(pki.issue(['hooks.test']))
  useDeliverer(
    createDeliverer({
      resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
      ca: pki.caCert,
      allowPrivate: true,
    }),
  )
  definitions = buildJobDefinitions(
    parseConfig({ ...process.env, FINALIZER_INTERVAL_SECONDS: '3600', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' }),
  )
})
afterEach(async () => {
  await engine?.stop()
  engine = undefined
  setAppJobsEngine(undefined)
})
afterAll(async () => {
  useDeliverer(undefined)
  useDatabase(undefined)
  await receiver?.close()
  pki?.dispose()
  await database?.close()
})

/** Stands in for the Inngest server: each event sent runs the functions it triggers, as Inngest would. */
function inngestThatRuns(all: JobDefinition[]): Inngest {
  const client = createInngestClient({ kind: 'inngest', dev: true })
  const send = async (events: { name: string; data: Record<string, unknown>; id?: string }[]) => {
    for (const event of events)
      for (const def of all)
        if ('event' in def.trigger && def.trigger.event === event.name)
          void new InngestTestEngine({ function: toInngestFunction(def, client) }).execute({
            events: [{ name: event.name, data: event.data, id: event.id, ts: Date.now() }],
          })
    return { ids: events.map((e) => e.id ?? '') }
  }
  return { send } as unknown as Inngest
}

const engines = {
  'in-process': () =>
    // Polling an hour apart too: only the hand-over after the commit can start the run in time.
    createJobsEngine({ kind: 'in-process' }, definitions, { inProcess: { pollIntervalMs: 3_600_000 } }),
  inngest: () => createInngestEngine(inngestThatRuns(definitions)),
}

describe('outbox events are handed to the engine after their commit', () => {
  for (const [kind, create] of Object.entries(engines)) {
    it(`starts a status change's webhook attempt within 2 s, FINALIZER_INTERVAL_SECONDS=3600 (${kind})`, async () => {
      const organizationId = (await createOrganization(database.db, { name: kind, plan: 'paid' })).id
      const endpoint = await createEndpoint(database.db, {
        organizationId,
        name: 'hook',
        url: `https://hooks.test:${receiver.port}/`,
        events: ['issue.status_changed'],
      })
      const key = (await createKey(database.db, { organizationId, type: 'api', write: true })).key
      const issue = await seedIssue(database.db, organizationId)
      engine = create()
      setAppJobsEngine(engine)
      await engine.start()

      const changedAt = Date.now()
      const response = await api.patchIssue(key, issue.id, { status: 'resolved' })
      expect(response.status).toBe(200)
      const attempt = await waitFor(
        'the first delivery attempt',
        async () =>
          (
            await database.db
              .select({
                startedAt: webhookDeliveryAttempts.startedAt,
                httpStatus: webhookDeliveryAttempts.httpStatus,
              })
              .from(webhookDeliveryAttempts)
              .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookDeliveryAttempts.deliveryId))
              .where(eq(webhookDeliveries.endpointId, endpoint.id))
          )[0],
        changedAt + HAND_OVER_DEADLINE_MS - Date.now(),
        25,
      )
      expect(attempt.httpStatus).toBe(200)
      expect(attempt.startedAt.getTime()).toBeLessThanOrEqual(changedAt + HAND_OVER_DEADLINE_MS)
      const body = JSON.parse(receiver.received.at(-1)!.body)
      expect(body).toMatchObject({
        event: 'issue.status_changed',
        data: { issueId: issue.id, status: 'resolved' },
      })
    })
  }
})
