import { randomUUID } from 'node:crypto'
import { EVENTS } from '@/lib/outbox/events'

/** Webhook event types, in the order the dashboard lists them. */
export const WEBHOOK_EVENTS = [
  'issue.created',
  'issue.status_changed',
  'issue.recurred',
  'signal.matched',
  'insight.generated',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value)
}

/** The outbox event each webhook event is delivered from. */
export const OUTBOX_TO_WEBHOOK: Record<string, WebhookEvent> = {
  [EVENTS.issueCreated]: 'issue.created',
  [EVENTS.issueStatusChanged]: 'issue.status_changed',
  [EVENTS.issueRecurred]: 'issue.recurred',
  [EVENTS.signalMatched]: 'signal.matched',
  [EVENTS.insightGenerated]: 'insight.generated',
}

const DESCRIPTION_LIMIT = 1000

/** Spec: truncated to 1000 characters with `...` appended when longer. */
export function truncateDescription(value: unknown): unknown {
  if (typeof value !== 'string' || value.length <= DESCRIPTION_LIMIT) return value
  return `${value.slice(0, DESCRIPTION_LIMIT)}...`
}

export interface Envelope {
  event: WebhookEvent
  id: string
  occurredAt: string
  data: Record<string, unknown>
}

/**
 * The exact bytes every attempt sends. Serialised once, when the delivery row is written,
 * and never again: re-serialising is how signatures break.
 */
export function envelopeBody(input: {
  event: WebhookEvent
  id: string
  occurredAt: Date
  data: Record<string, unknown>
}): string {
  const data =
    'description' in input.data
      ? { ...input.data, description: truncateDescription(input.data.description) }
      : input.data
  const envelope: Envelope = {
    event: input.event,
    id: input.id,
    occurredAt: input.occurredAt.toISOString(),
    data,
  }
  return JSON.stringify(envelope)
}

/** Data of a Send test event: the real shape, with made-up ids and an obvious title. */
export function syntheticData(event: WebhookEvent, orgId: string): Record<string, unknown> {
  const issue = {
    issueId: randomUUID(),
    orgId,
    title: 'Test event: TypeError in checkout',
    description: 'A synthetic issue sent with "Send test" from the webhook settings.',
    status: 'unresolved',
    priority: 'high',
    previewUrl: null,
    aiVerified: null,
    sourceType: 'session_analysis',
  }
  switch (event) {
    case 'issue.created':
      return issue
    case 'issue.status_changed':
      return { ...issue, status: 'resolved', previousStatus: 'unresolved', actorType: 'user' }
    case 'issue.recurred': {
      const sessionId = randomUUID()
      return { ...issue, sessionId, replayUrl: `https://replay.example.com/sessions/${sessionId}?t=7250` }
    }
    case 'signal.matched':
      return { signalId: randomUUID(), sessionId: randomUUID(), orgId }
    case 'insight.generated':
      return {
        insightId: randomUUID(),
        orgId,
        intervalStart: new Date(Date.now() - 86_400_000).toISOString(),
      }
  }
}
