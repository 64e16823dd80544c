import type { AlertTrigger } from '@/db/schema'
import { EVENTS, type EventName } from '@/lib/outbox/events'

// Client-safe (the schema import is type-only): the event names of alerts, the outbox events
// rules listen to and the webhook events they send, for the jobs list, erasure and any form.

/** The trigger each outbox event fires; an event missing here alerts nobody. */
export const TRIGGER_OF_EVENT = {
  [EVENTS.issueCreated]: 'issue_created',
  [EVENTS.issueRecurred]: 'issue_regressed',
  [EVENTS.insightGenerated]: 'issue_spiking',
  [EVENTS.signalMatched]: 'signal_matched',
} as const satisfies Partial<Record<EventName, AlertTrigger>>

export type AlertSourceEvent = keyof typeof TRIGGER_OF_EVENT

/** The outbox events alert rules listen to. */
export const ALERT_SOURCE_EVENTS = Object.keys(TRIGGER_OF_EVENT) as AlertSourceEvent[]

export function isAlertSourceEvent(name: string): name is AlertSourceEvent {
  return Object.hasOwn(TRIGGER_OF_EVENT, name)
}

/** Webhook event types of alerts: sent only to the endpoint a rule names (the rule is the opt-in). */
export const ALERT_WEBHOOK_EVENTS = ['alert.triggered', 'alert.digest'] as const
export type AlertWebhookEvent = (typeof ALERT_WEBHOOK_EVENTS)[number]
