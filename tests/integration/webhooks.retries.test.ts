import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import { outbox, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '@/db/schema'
import { buildJobDefinitions } from '@/inngest/app'
import { parseConfig } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { issueEventData } from '@/lib/issues/event-data'
import { createJobsEngine, type JobsEngine, type SendEvent } from '@/lib/jobs'
import { createOrganization } from '@/lib/orgs/create-organization'
import { dispatchOutbox } from '@/lib/outbox/dispatch'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS, InvalidEventPayloadError } from '@/lib/outbox/events'
import { createDeliverer } from '@/lib/webhooks/deliver'
import { createEndpoint, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { useDeliverer } from '@/lib/webhooks/runtime'
import { deliverDue } from '@/lib/webhooks/sweep'
import { createTestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import {
  createTestPki,
  loopbackResolver,
  startReceiver,
  type TestPki,
  type TestReceiver,
} from '../helpers/webhooks'

let handle: DatabaseHandle
let pki: TestPki
let receiver: TestReceiver
let orgId: string
const delays = [0, 0, 0]
let clock = 1_700_000_000_000
// Each attempt signs 10 s later, so the test can see a fresh `t` without waiting.
const deliverer = (timeoutMs?: number) =>
  createDeliverer({
    resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
    ca: pki.caCert,
    allowPrivate: true,
    timeoutMs,
    now: () => (clock += 10_000),
  })

beforeAll(async () => {
  handle = await createTestDatabase()
  useDatabase(handle)
  pki = createTestPki()
  receiver = await startReceiver(pki.issue(['hooks.test']))
})
afterEach(() => receiver.behave((res) => res.writeHead(200).end()))
afterAll(async () => {
  useDeliverer(undefined)
  useDatabase(undefined)
  await receiver?.close()
  pki?.dispose()
  await handle?.close()
})

// A fresh paid organization per endpoint: the caps (3 active, 5 per hour) are tested elsewhere.
async function newEndpoint(events = ['issue.created']) {
  orgId = (await createOrganization(handle.db, { name: 'Acme', plan: 'paid' })).id
  return createEndpoint(handle.db, {
    organizationId: orgId,
    name: 'hook',
    url: `https://hooks.test:${receiver.port}/`,
    events,
  })
}

/** An issue and its outbox row in one transaction, as processing writes them. */
async function createIssueEvent(description = 'Broken') {
  const issue = await seedIssue(handle.db, orgId, { description })
  const eventId = await handle.db.transaction(async (tx) =>
    enqueueEvent(tx, {
      organizationId: orgId,
      name: EVENTS.issueCreated,
      payload: await issueEventData(tx, issue.id),
    }),
  )
  return { issue, eventId: eventId! }
}

const deliveriesOf = (eventId: string) =>
  handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId))

describe('retries', () => {
  it('retries a 500 with the same body and id and a fresh t, then succeeds', async () => {
    await newEndpoint()
    const { eventId } = await createIssueEvent()
    const start = receiver.received.length
    receiver.behave((res, i) => res.writeHead(i - start < 2 ? 500 : 200).end())
    const ids = await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })
    expect(ids).toHaveLength(1)
    expect(await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })).toEqual(ids)
    for (let i = 0; i < 4; i++) await deliverDue(handle.db, deliverer(), { delays })
    const got = receiver.received.slice(start)
    expect(got).toHaveLength(3)
    expect(new Set(got.map((r) => r.body)).size).toBe(1)
    expect(new Set(got.map((r) => r.headers['service-webhook-id']))).toEqual(new Set([eventId]))
    expect(new Set(got.map((r) => r.headers['service-signature'])).size).toBe(3)
    expect(JSON.parse(got[0]!.body)).toMatchObject({ event: 'issue.created', id: eventId })
    const [delivery] = await deliveriesOf(eventId)
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatus: 200 })
    const attempts = await handle.db
      .select()
      .from(webhookDeliveryAttempts)
      .where(eq(webhookDeliveryAttempts.deliveryId, delivery!.id))
    expect(attempts.map((a) => a.errorLabel).sort()).toEqual(
      ['bad_status:500', 'bad_status:500', null].sort(),
    )
  })

  it('retries a stalled receiver at most 3 times, then fails with timeout', async () => {
    const endpoint = await newEndpoint()
    const { eventId } = await createIssueEvent()
    receiver.behave(() => {})
    const start = receiver.received.length
    await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })
    for (let i = 0; i < 6; i++) await deliverDue(handle.db, deliverer(200), { delays })
    const got = receiver.received.slice(start)
    expect(got).toHaveLength(4)
    expect(new Set(got.map((r) => r.body)).size).toBe(1)
    expect(new Set(got.map((r) => r.headers['service-webhook-id'])).size).toBe(1)
    expect(await deliveriesOf(eventId)).toMatchObject([
      { status: 'failed', attempts: 4, lastError: 'timeout' },
    ])
    const [row] = await handle.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id))
    expect(row).toMatchObject({ lastError: 'timeout', lastStatus: null })
    expect(row!.lastDeliveryAt).toBeInstanceOf(Date)
  })

  it('waits the configured delay before a retry', async () => {
    await newEndpoint()
    const { eventId } = await createIssueEvent()
    receiver.behave((res) => res.writeHead(503).end())
    await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })
    await deliverDue(handle.db, deliverer(), { delays: [60, 300, 1500] })
    const [row] = await deliveriesOf(eventId)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastError: 'bad_status:503' })
    const wait = row!.nextAttemptAt!.getTime() - row!.lastAttemptAt!.getTime()
    expect(wait).toBeGreaterThan(55_000)
    expect(await deliverDue(handle.db, deliverer(), { delays })).toBe(0)
  })

  it('stops a pending retry when the endpoint is revoked', async () => {
    const endpoint = await newEndpoint()
    const { eventId } = await createIssueEvent()
    receiver.behave((res) => res.writeHead(500).end())
    await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })
    await deliverDue(handle.db, deliverer(), { delays, maxRounds: 1 })
    const start = receiver.received.length
    await revokeEndpoint(handle.db, { id: endpoint.id })
    await deliverDue(handle.db, deliverer(), { delays })
    expect(receiver.received.length).toBe(start)
    expect(await deliveriesOf(eventId)).toMatchObject([{ status: 'cancelled', attempts: 1 }])
  })

  it('does not deliver to endpoints that did not subscribe', async () => {
    await newEndpoint(['signal.matched'])
    const { eventId } = await createIssueEvent()
    expect(await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })).toEqual([])
  })
})

describe('through the jobs engine', () => {
  const engines: JobsEngine[] = []
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()))
  })
  const startEngine = async () => {
    const config = parseConfig({
      ...process.env,
      WEBHOOK_RETRY_DELAYS_SECONDS: '0,0,0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    })
    const engine = createJobsEngine(
      { kind: 'in-process' },
      buildJobDefinitions(config).filter((d) => d.id.startsWith('webhook-')),
      {
        inProcess: {
          pollIntervalMs: 25,
          leaseMs: 2000,
          backoff: { baseMs: 20, maxMs: 100 },
          stopTimeoutMs: 500,
        },
      },
    )
    engines.push(engine)
    await engine.start()
    return engine
  }
  const waitFor = async (probe: () => boolean | Promise<boolean>, ms = 8000) => {
    const deadline = Date.now() + ms
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error('timed out')
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  it('delivers an event written while no process ran, once, after a restart', async () => {
    useDeliverer(deliverer())
    await newEndpoint()
    // "Stopped": the issue and its outbox row exist, nothing was dispatched or delivered.
    const { issue, eventId } = await createIssueEvent('d'.repeat(1500))
    const start = receiver.received.length
    const engine = await startEngine()
    // After the restart the outbox sweep dispatches everything left; twice, as after a crash.
    await dispatchOutbox(handle.db, engine, { olderThanSeconds: -1, limit: 100 })
    await handle.db.update(outbox).set({ dispatchedAt: null }).where(eq(outbox.eventId, eventId))
    await dispatchOutbox(handle.db, engine, { olderThanSeconds: -1, limit: 100 })
    await waitFor(async () => (await deliveriesOf(eventId))[0]?.status === 'succeeded')
    await new Promise((r) => setTimeout(r, 300))
    const got = receiver.received.slice(start)
    expect(got).toHaveLength(1)
    expect(got[0]!.headers['service-webhook-id']).toBe(eventId)
    const envelope = JSON.parse(got[0]!.body)
    expect(envelope).toMatchObject({
      event: 'issue.created',
      id: eventId,
      data: { issueId: issue.id, orgId },
    })
    expect(envelope.data.description).toBe(`${'d'.repeat(1000)}...`)
    expect(Object.keys(envelope.data).sort()).toEqual(
      [
        'aiVerified',
        'description',
        'issueId',
        'orgId',
        'previewUrl',
        'priority',
        'sourceType',
        'status',
        'title',
      ].sort(),
    )
  })

  it('a delivery fanned out before a crash is sent once by the next process', async () => {
    useDeliverer(deliverer())
    await newEndpoint()
    const { eventId } = await createIssueEvent()
    await fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })
    const start = receiver.received.length
    await Promise.all([
      deliverDue(handle.db, deliverer(), { delays }),
      deliverDue(handle.db, deliverer(), { delays }),
    ])
    await deliverDue(handle.db, deliverer(), { delays })
    expect(receiver.received.slice(start).map((r) => r.headers['service-webhook-id'])).toEqual([eventId])
  })
})

describe('a stored payload the event catalogue refuses', () => {
  /** An issue.created row written around enqueueEvent (an older version, a hand-made fix) with a misnamed field. */
  async function malformedEvent() {
    await newEndpoint()
    const [row] = await handle.db
      .insert(outbox)
      .values({ organizationId: orgId, name: EVENTS.issueCreated, payload: { orgId, issueID: 'x' } })
      .returning({ eventId: outbox.eventId })
    return row!.eventId
  }

  it('is neither handed to the engine nor read again by the sweep', async () => {
    const eventId = await malformedEvent()
    const sent: SendEvent[] = []
    const engine: JobsEngine = {
      kind: 'in-process',
      send: async (events) => void sent.push(...[events].flat()),
      start: async () => {},
      stop: async () => {},
    }
    expect(await dispatchOutbox(handle.db, engine, { eventIds: [eventId] })).toBe(0)
    expect(sent).toEqual([])
    const [row] = await handle.db.select().from(outbox).where(eq(outbox.eventId, eventId))
    expect(row!.dispatchedAt).not.toBeNull()
    expect(row!.lastError).toContain('issue/created')
    expect(row!.lastError).toContain('issueId')
  })

  it('is delivered to no endpoint when a fan-out reads it', async () => {
    const eventId = await malformedEvent()
    await expect(fanOutEvent(handle.db, { eventId, name: EVENTS.issueCreated })).rejects.toThrow(
      InvalidEventPayloadError,
    )
    expect(await deliveriesOf(eventId)).toEqual([])
  })
})
