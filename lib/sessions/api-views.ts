import { z } from 'zod'
import { AUTOMATION_KINDS, ISSUE_PRIORITIES, ISSUE_STATUSES, SESSION_STATUSES } from '@/db/schema'
import { TRAIL_KINDS } from '@/lib/analysis/trail'

/**
 * The shapes of sessions in the Data API and the MCP tools (issue 18), used to answer, to
 * document (OpenAPI) and as the tools' output schemas. Every text in them except ids, our
 * own labels and the replay URL was recorded on a customer's page.
 */

const isoDate = z.iso.datetime({ offset: true })

export const SessionUserView = z.object({
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  anonymousId: z.string(),
})

export const SessionIssueRef = z.object({
  id: z.uuid(),
  title: z.string(),
  kind: z.string(),
  priority: z.enum(ISSUE_PRIORITIES),
  status: z.enum(ISSUE_STATUSES),
})

export const SessionSignalRef = z.object({ id: z.uuid(), name: z.string() })

/** A trail entry that matched a search (`q`): lib/search's SearchMoment. */
export const SearchMomentView = z.object({
  at: z.number().meta({ description: "Epoch milliseconds, as recorded (the browser's clock)" }),
  offsetMs: z.number().meta({
    description: "Milliseconds since the session started: the replay's `?t=` (docs/search.md#moments)",
  }),
  kind: z.enum(TRAIL_KINDS),
  position: z.number().int().meta({ description: "The entry's place in the session's trail" }),
  label: z.string().meta({ description: 'What happened, in one line (never what was typed)' }),
})

export const SessionItem = z.object({
  id: z.uuid(),
  startedAt: isoDate,
  lastActivityAt: isoDate,
  durationMs: z.number().int(),
  pageCount: z.number().int().nullable().meta({ description: 'Null until the session is analysed' }),
  eventCount: z.number().int(),
  user: SessionUserView,
  userAgent: z.string().nullable(),
  release: z.string().nullable().meta({
    description: "The build the page ran, as the recorder's `release` option named it; null without one",
  }),
  degraded: z.boolean().meta({
    description:
      "The recorder's mutation guard stopped recording a part of the page that changed faster than its budget (or paused the whole page for a while): the replay misses those changes",
  }),
  automation: z.enum(AUTOMATION_KINDS).nullable().meta({
    description:
      "Why the session is automated traffic, null for a person's visit: `reproduction` (a generated reproduction test ran), `webdriver` (the browser was driven by automation) or `bot` (a known crawler or headless user agent). Automated sessions are never counted and are listed only with the `automation` filter",
  }),
  status: z.enum(SESSION_STATUSES).meta({ description: 'Processing status' }),
  issues: z.array(SessionIssueRef).meta({
    description:
      'The first issues found in the session, in the order they happened (10 in a list, 25 for one session; titles cut at 300 characters)',
  }),
  issueCount: z.number().int().meta({ description: 'All issues found in the session' }),
  signals: z
    .array(SessionSignalRef)
    .meta({ description: 'The first signals the session matched (10 in a list, 25 for one session)' }),
  signalCount: z.number().int().meta({ description: 'All signals the session matched' }),
  replayUrl: z.string().meta({ description: "The replay in the dashboard (needs a member's sign-in)" }),
  moments: z.array(SearchMomentView).optional().meta({
    description:
      'Only with `q`: the first 5 moments that matched the query, in the order they happened (docs/search.md#moments)',
  }),
})

/** One session as the Data API and get_session return it: the list item with its summary and counts. */
export const ApiSessionDetails = SessionItem.extend({
  entryUrl: z.string(),
  language: z.string().nullable(),
  viewport: z.object({ width: z.number(), height: z.number() }).nullable(),
  summary: z.object({
    text: z.string(),
    source: z.enum(['ai', 'deterministic']),
  }),
  trailTruncated: z
    .boolean()
    .nullable()
    .meta({ description: 'The stored timeline stopped at its entry limit; null when none was stored' }),
  counts: z.object({
    errors: z.number().int().nullable(),
    rageClicks: z.number().int().nullable(),
    deadClicks: z.number().int().nullable(),
  }),
  pinnedAt: isoDate.nullable().meta({
    description:
      'When the session was pinned (kept past retention up to the pin maximum, docs/privacy.md#retention); null when not pinned',
  }),
})

const Target = z.object({
  tag: z.string(),
  selector: z.string(),
  role: z.string().nullable(),
  name: z.string().nullable(),
  text: z.string(),
  testId: z.string().nullable(),
  id: z.string().nullable(),
  type: z.string().nullable(),
  href: z.string().nullable(),
})

const entryBase = {
  at: z.number().meta({ description: "Epoch milliseconds (the browser's clock)" }),
  offsetMs: z.number().meta({ description: 'Milliseconds since the session started' }),
  position: z.number().int().meta({ description: 'Order in the session; also the cursor key' }),
  pageUrl: z.string(),
}

export const TimelineItem = z.discriminatedUnion('kind', [
  z.object({
    ...entryBase,
    kind: z.literal('navigation'),
    url: z.string(),
    change: z.enum(['load', 'navigation']),
  }),
  z.object({ ...entryBase, kind: z.literal('click'), target: Target, count: z.number().int() }),
  z.object({
    ...entryBase,
    kind: z.literal('input'),
    target: Target,
    control: z.enum(['text', 'toggle', 'select', 'other']),
    value: z.string().nullable(),
    masked: z.boolean(),
    length: z.number().int(),
    checked: z.boolean().nullable(),
  }),
  z.object({ ...entryBase, kind: z.literal('console'), level: z.string(), message: z.string() }),
  z.object({
    ...entryBase,
    kind: z.literal('error'),
    message: z.string(),
    stack: z.string().nullable(),
    originalStack: z.string().nullable().optional().meta({
      description:
        "The stack in original frames (`at fn (src/file.ts:12:5)`), through the source maps of the session's release; absent when none resolved it",
    }),
    source: z.enum(['uncaught', 'unhandled_rejection', 'console', 'custom']),
  }),
  z.object({
    ...entryBase,
    kind: z.literal('request'),
    method: z.string(),
    url: z.string(),
    status: z.number().int().nullable(),
    durationMs: z.number().nullable(),
    failed: z.boolean(),
  }),
  z.object({ ...entryBase, kind: z.literal('rage_click'), target: Target, count: z.number().int() }),
  z.object({ ...entryBase, kind: z.literal('dead_click'), target: Target }),
  z.object({ ...entryBase, kind: z.literal('custom'), tag: z.string(), payload: z.string().nullable() }),
])

export const TimelineWindow = z.object({
  sessionId: z.uuid(),
  startedAt: isoDate,
  source: z.enum(['trail', 'digest', 'none']).meta({
    description:
      'trail: the full recorded timeline; digest: rebuilt from the compact digest of a session analysed before timelines were stored (fewer kinds and fields); none: not analysed yet',
  }),
  window: z.object({
    from: isoDate.nullable().meta({ description: 'Null: from the start of the session' }),
    to: isoDate.nullable().meta({ description: 'Null: to the end of the session' }),
  }),
  kinds: z.array(z.enum(TRAIL_KINDS)).nullable(),
  truncated: z.boolean().meta({ description: 'The stored timeline stopped at its entry limit' }),
  entries: z.array(TimelineItem),
  nextCursor: z.string().nullable(),
})

export type SessionItem = z.infer<typeof SessionItem>
export type ApiSessionDetails = z.infer<typeof ApiSessionDetails>
export type TimelineItem = z.infer<typeof TimelineItem>
export type TimelineWindow = z.infer<typeof TimelineWindow>
