import { z } from 'zod'

// The event catalogue: every outbox event's name and the zod schema of its payload. Client-safe
// on purpose (zod only): the dashboard's forms list event names from modules that build on this
// one, so nothing here may reach the database, node:* or the configuration.

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
  /**
   * A resolved issue came back in a session of its fix release or a later one (webhook
   * `issue.regressed`, docs/releases.md); sent with `issue/recurred`, which older endpoints know.
   */
  issueRegressed: 'issue/regressed',
  /** An issue's reproduction passed against a deployment (webhook `issue.verified`). */
  issueVerified: 'issue/verified',
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

// Ids are plain strings here as they always were: a malformed id is the domain's "not found",
// not a refused event. Statuses, priorities and sources are the schema's enums, kept as strings
// so that this module needs no database schema.
const Issue = z.object({
  issueId: z.string(),
  orgId: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.string(),
  priority: z.string(),
  previewUrl: z.string().nullable(),
  aiVerified: z.boolean().nullable(),
  sourceType: z.string(),
})

/**
 * The payload of every event the service writes to its outbox, by name: what producers must
 * write (enqueueEvent), what job handlers receive, and what webhook `data` is for the events
 * webhooks carry (spec: the `issue.created` data table; the other events add fields only).
 */
export const EVENT_PAYLOADS = {
  [EVENTS.sessionFinalize]: z.object({ organizationId: z.string(), sessionId: z.string() }),
  [EVENTS.issueCreated]: Issue,
  [EVENTS.issueStatusChanged]: Issue.extend({ previousStatus: z.string(), actorType: z.string() }),
  /** `replayUrl` opens the session it came back in at its first occurrence there. */
  [EVENTS.issueRecurred]: Issue.extend({ sessionId: z.string(), replayUrl: z.string() }),
  /**
   * Why it is a regression: the session's `release` (null when it ran none and the issue was
   * resolved without a release) and the release the fix was in (`resolvedInRelease`).
   */
  [EVENTS.issueRegressed]: Issue.extend({
    sessionId: z.string(),
    replayUrl: z.string(),
    release: z.string().nullable(),
    resolvedInRelease: z.string().nullable(),
  }),
  /** The passed run: which deployment (`baseUrl`) of which release, and who ran it. */
  [EVENTS.issueVerified]: Issue.extend({
    verificationId: z.string(),
    release: z.string().nullable(),
    baseUrl: z.string(),
    runner: z.string(),
  }),
  [EVENTS.signalMatched]: z.object({ signalId: z.string(), sessionId: z.string(), orgId: z.string() }),
  [EVENTS.signalCreated]: z.object({ organizationId: z.string(), signalId: z.string() }),
  /** `intervalStart` is ISO 8601. */
  [EVENTS.insightGenerated]: z.object({
    insightId: z.string(),
    orgId: z.string(),
    intervalStart: z.string(),
  }),
  [EVENTS.erasureRequested]: z.object({ organizationId: z.string(), erasureId: z.string() }),
  [EVENTS.remaskRequested]: z.object({ organizationId: z.string(), remaskingId: z.string() }),
  [EVENTS.exportRequested]: z.object({ organizationId: z.string(), exportId: z.string() }),
} as const satisfies Record<EventName, z.ZodType>

export type EventPayload<N extends EventName> = z.infer<(typeof EVENT_PAYLOADS)[N]>

export function isEventName(value: string): value is EventName {
  return Object.hasOwn(EVENT_PAYLOADS, value)
}

/** A stored or delivered payload that does not match its event's schema: it is refused, not passed on. */
export class InvalidEventPayloadError extends Error {
  override name = 'InvalidEventPayloadError'
}

/**
 * Checks a payload read back from storage or handed over by the jobs engine against its
 * event's schema and returns it typed, or throws InvalidEventPayloadError naming the event
 * and the fields at fault. The object returned is the one given, not zod's copy: webhook bodies
 * are serialised from it, and the copy would reorder its keys and drop any a newer version
 * added (the wire format only ever gains fields).
 */
export function parseEventPayload<N extends EventName>(name: N, value: unknown): EventPayload<N> {
  const parsed = EVENT_PAYLOADS[name].safeParse(value)
  if (!parsed.success)
    throw new InvalidEventPayloadError(`Refused a ${name} payload: ${z.prettifyError(parsed.error)}`)
  return value as EventPayload<N>
}
