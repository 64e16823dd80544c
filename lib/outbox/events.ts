/**
 * Names of the events the service writes to its outbox and hands to the jobs engine
 * (Inngest event names: `area/what.happened`).
 */
export const EVENTS = {
  /** A session was asked to be processed now (`flush: final`, or the finalizer). */
  sessionFinalize: 'session/finalize.requested',
} as const

export type EventName = (typeof EVENTS)[keyof typeof EVENTS]
