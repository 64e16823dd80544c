/**
 * The event catalogue (lib/outbox/events.ts): one payload schema per outbox event. A
 * producer that writes the wrong fields does not compile (the `@ts-expect-error` lines below
 * fail `tsc` the day the error they expect disappears), and a stored or delivered payload
 * that does not match is refused at run time.
 */
import { describe, expect, it } from 'vitest'
import type { DbOrTx } from '@/db/client'
import { defineJobs } from '@/inngest/jobs'
import { ALERT_SOURCE_EVENTS } from '@/lib/alerts/events'
import { parseConfig } from '@/lib/config'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import {
  EVENT_PAYLOADS,
  EVENTS,
  type EventPayload,
  InvalidEventPayloadError,
  isEventName,
  parseEventPayload,
} from '@/lib/outbox/events'
import { envelopeBody, parseWebhookData, WEBHOOK_EVENTS, WEBHOOK_SOURCES } from '@/lib/webhooks/events'
import { syntheticData } from '@/lib/webhooks/synthetic-data'

const ORG = '9a7d0c1e-0000-4000-8000-000000000002'

const issue: EventPayload<typeof EVENTS.issueCreated> = {
  issueId: '9a7d0c1e-0000-4000-8000-000000000001',
  orgId: ORG,
  title: 'TypeError',
  description: null,
  status: 'unresolved',
  priority: 'high',
  previewUrl: null,
  aiVerified: null,
  sourceType: 'session_analysis',
}

/** A transaction that fails the test if anything is written: a refused payload never reaches the database. */
const noWrites = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('a refused payload was written')
    },
  },
) as DbOrTx

// Never called: the producers below are checked by tsc only.
async function mistypedProducers(tx: DbOrTx) {
  await enqueueEvent(tx, {
    organizationId: ORG,
    name: EVENTS.sessionFinalize,
    payload: { organizationId: ORG, sessionId: 's' },
  })
  await enqueueEvent(tx, {
    organizationId: ORG,
    name: EVENTS.sessionFinalize,
    // @ts-expect-error a field name from another event (signalCreated's)
    payload: { organizationId: ORG, signalId: 's' },
  })
  await enqueueEvent(tx, {
    organizationId: ORG,
    name: EVENTS.signalMatched,
    // @ts-expect-error a mistyped field name (sessionID for sessionId)
    payload: { signalId: 's', sessionID: 's', orgId: ORG },
  })
  await enqueueEvent(tx, {
    organizationId: ORG,
    name: EVENTS.insightGenerated,
    // @ts-expect-error a wrong field type (a Date where the catalogue says an ISO string)
    payload: { insightId: 'i', orgId: ORG, intervalStart: new Date() },
  })
  // @ts-expect-error issue.created's data is not enough for issue.recurred (sessionId, replayUrl)
  await enqueueEvent(tx, { organizationId: ORG, name: EVENTS.issueRecurred, payload: issue })
  // @ts-expect-error an event name the catalogue does not have
  await enqueueEvent(tx, { organizationId: ORG, name: 'issue/deleted', payload: issue })
  envelopeBody({
    event: 'signal.matched',
    id: 'x',
    occurredAt: new Date(),
    // @ts-expect-error webhook data is its event's payload, not any object
    data: issue,
  })
}

describe('the event catalogue', () => {
  it('has a schema for every event name, and nothing else', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual(Object.values(EVENTS).sort())
    expect(isEventName(EVENTS.issueCreated)).toBe(true)
    expect(isEventName('issue/deleted')).toBe(false)
    expect(isEventName('toString')).toBe(false)
    expect(typeof mistypedProducers).toBe('function')
  })

  it('refuses a payload with a missing, mistyped or misnamed field, naming the event and the field', () => {
    const refusals = [
      [EVENTS.sessionFinalize, { organizationId: ORG }, 'sessionId'],
      [EVENTS.signalMatched, { signalId: 's', sessionID: 's', orgId: ORG }, 'sessionId'],
      [EVENTS.insightGenerated, { insightId: 'i', orgId: ORG, intervalStart: 17 }, 'intervalStart'],
      [EVENTS.issueCreated, { ...issue, aiVerified: 'yes' }, 'aiVerified'],
      [EVENTS.issueRecurred, issue, 'replayUrl'],
      [EVENTS.exportRequested, null, 'object'],
    ] as const
    for (const [name, payload, field] of refusals) {
      expect(() => parseEventPayload(name, payload)).toThrow(InvalidEventPayloadError)
      expect(() => parseEventPayload(name, payload)).toThrow(name)
      expect(() => parseEventPayload(name, payload)).toThrow(field)
    }
  })

  it('passes a valid payload on as it was stored: same object, key order and added fields', () => {
    const stored = JSON.parse(JSON.stringify({ addedLater: 1, ...issue }))
    expect(parseEventPayload(EVENTS.issueCreated, stored)).toBe(stored)
    expect(Object.keys(parseEventPayload(EVENTS.issueCreated, stored))[0]).toBe('addedLater')
  })

  it('refuses a producer’s bad payload before anything is written', async () => {
    const bad = { organizationId: ORG, name: EVENTS.signalCreated, payload: { organizationId: ORG } }
    await expect(enqueueEvent(noWrites, bad as never)).rejects.toThrow(InvalidEventPayloadError)
  })

  it('gives each webhook event the data of its outbox event, and Send test data matches it', () => {
    for (const event of WEBHOOK_EVENTS) {
      const data = syntheticData(event, ORG)
      expect(parseWebhookData(event, data)).toBe(data)
      expect(() => EVENT_PAYLOADS[WEBHOOK_SOURCES[event]].parse(data)).not.toThrow()
    }
    expect(() => parseWebhookData('signal.matched', issue)).toThrow(/signal\/matched/)
  })

  it('gives every job an outbox event starts its event’s schema, so both engines refuse what producers may not write', () => {
    const jobs = defineJobs(parseConfig({}), async () => {
      throw new Error('no handler runs here')
    })
    const started = jobs.flatMap((job) => ('event' in job.trigger ? [job] : []))
    expect(started.length).toBeGreaterThan(0)
    for (const job of started) {
      const name = 'event' in job.trigger ? job.trigger.event : ''
      expect(isEventName(name), name).toBe(true)
      if (isEventName(name)) expect(job.payload, job.id).toBe(EVENT_PAYLOADS[name])
    }
  })

  it('lists alert source events that are all catalogue events', () => {
    for (const name of ALERT_SOURCE_EVENTS) expect(isEventName(name)).toBe(true)
  })
})
