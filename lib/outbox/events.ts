/**
 * Names of the events the service writes to its outbox and hands to the jobs engine
 * (Inngest event names: `area/what.happened`).
 */
export const EVENTS = {
  /** A session was asked to be processed now (`flush: final`, or the finalizer). */
  sessionFinalize: 'session/finalize.requested',
  /** A new issue (webhook `issue.created`), from session analysis or from an insight. */
  issueCreated: 'issue/created',
  /** An issue's status was changed through the Data API, MCP or dashboard (webhook `issue.status_changed`). */
  issueStatusChanged: 'issue/status_changed',
  /** A resolved issue seen again in a new session (webhook `issue.recurred`). */
  issueRecurred: 'issue/recurred',
  /** A session matched a signal (webhook `signal.matched`). */
  signalMatched: 'signal/matched',
  /** A signal was created: backfill it over recent sessions. */
  signalCreated: 'signal/created',
  /** An insight was written (webhook `insight.generated`). */
  insightGenerated: 'insight/generated',
  /** An erasure of one person was requested (docs/privacy.md#erasure); never sent to webhooks. */
  erasureRequested: 'privacy/erasure.requested',
  /** A re-masking of stored sessions was requested (docs/privacy.md#re-masking). */
  remaskRequested: 'privacy/remask.requested',
  /** An access request's export was requested (docs/privacy.md#exports). */
  exportRequested: 'privacy/export.requested',
} as const

export type EventName = (typeof EVENTS)[keyof typeof EVENTS]
