import { EVENTS, type EventName, type EventPayload, parseEventPayload } from '@/lib/outbox/events'

// Client-safe: the webhook forms list WEBHOOK_EVENTS, so this module imports no server code
// (the synthetic data of Send test, which needs node:crypto, is in synthetic-data.ts).

/** Webhook event types, in the order the dashboard lists them. */
export const WEBHOOK_EVENTS = [
  'issue.created',
  'issue.status_changed',
  'issue.recurred',
  'signal.matched',
  'insight.generated',
  'issue.regressed',
  'issue.verified',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value)
}

/** The outbox event each webhook event is delivered from: its `data` is that event's payload. */
export const WEBHOOK_SOURCES = {
  'issue.created': EVENTS.issueCreated,
  'issue.status_changed': EVENTS.issueStatusChanged,
  'issue.recurred': EVENTS.issueRecurred,
  'signal.matched': EVENTS.signalMatched,
  'insight.generated': EVENTS.insightGenerated,
  'issue.regressed': EVENTS.issueRegressed,
  'issue.verified': EVENTS.issueVerified,
} as const satisfies Record<WebhookEvent, EventName>

/** Each outbox event webhooks deliver with the webhook event it is delivered as, in WEBHOOK_EVENTS' order. */
export const WEBHOOK_DELIVERIES = WEBHOOK_EVENTS.map((event) => [WEBHOOK_SOURCES[event], event] as const)

/** The webhook event each outbox event is delivered as (the reverse of WEBHOOK_SOURCES). */
export const OUTBOX_TO_WEBHOOK = {
  [EVENTS.issueCreated]: 'issue.created',
  [EVENTS.issueStatusChanged]: 'issue.status_changed',
  [EVENTS.issueRecurred]: 'issue.recurred',
  [EVENTS.signalMatched]: 'signal.matched',
  [EVENTS.insightGenerated]: 'insight.generated',
  [EVENTS.issueRegressed]: 'issue.regressed',
  [EVENTS.issueVerified]: 'issue.verified',
} as const satisfies { [E in WebhookEvent as (typeof WEBHOOK_SOURCES)[E]]: E }

/** The webhook event an outbox event name is delivered as, if any. */
export function webhookEventOf(outboxName: string): WebhookEvent | undefined {
  return Object.hasOwn(OUTBOX_TO_WEBHOOK, outboxName)
    ? OUTBOX_TO_WEBHOOK[outboxName as keyof typeof OUTBOX_TO_WEBHOOK]
    : undefined
}

/** A webhook event's `data`: the payload of the outbox event it is delivered from. */
export type WebhookData<E extends WebhookEvent> = EventPayload<(typeof WEBHOOK_SOURCES)[E]>

/** The data of a stored (or engine-handed) event, checked against the catalogue before it is sent. */
export function parseWebhookData<E extends WebhookEvent>(event: E, value: unknown): WebhookData<E> {
  return parseEventPayload(WEBHOOK_SOURCES[event], value) as WebhookData<E>
}

const DESCRIPTION_LIMIT = 1000

/** Spec: truncated to 1000 characters with `...` appended when longer. */
export function truncateDescription(value: unknown): unknown {
  if (typeof value !== 'string' || value.length <= DESCRIPTION_LIMIT) return value
  return `${value.slice(0, DESCRIPTION_LIMIT)}...`
}

export interface Envelope<E extends WebhookEvent = WebhookEvent> {
  event: E
  id: string
  occurredAt: string
  data: WebhookData<E>
}

/**
 * The exact bytes every attempt sends. Serialised once, when the delivery row is written,
 * and never again: re-serialising is how signatures break.
 */
export function envelopeBody<E extends WebhookEvent>(input: {
  event: E
  id: string
  occurredAt: Date
  data: WebhookData<E>
}): string {
  const data =
    'description' in input.data
      ? { ...input.data, description: truncateDescription(input.data.description) }
      : input.data
  const envelope = {
    event: input.event,
    id: input.id,
    occurredAt: input.occurredAt.toISOString(),
    data,
  }
  return JSON.stringify(envelope)
}
