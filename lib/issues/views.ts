import { z } from 'zod'
import { ISSUE_PRIORITIES, ISSUE_STATUSES, type issues } from '@/db/schema'
import { Verification } from '@/lib/releases/verification-view'
import { symbolicatedFrames } from './evidence-frames'

type IssueRow = typeof issues.$inferSelect

const isoDate = z.iso.datetime({ offset: true })

const MinifiedFrame = z.object({
  fn: z.string().meta({ description: 'Function name as minified; empty when the frame had none' }),
  url: z.string(),
  line: z.number().int(),
  column: z.number().int(),
})

const OriginalStack = z
  .object({
    release: z.string().meta({ description: 'The release whose source maps resolved the frames' }),
    frames: z.array(
      z.object({
        minified: MinifiedFrame,
        original: z
          .object({
            fn: z.string().nullable(),
            source: z.string().meta({ description: 'The original file as the map names it' }),
            line: z.number().int(),
            column: z.number().int(),
            context: z
              .object({ pre: z.array(z.string()), line: z.string(), post: z.array(z.string()) })
              .nullable()
              .meta({ description: "Source lines around the frame, from the map's sourcesContent" }),
          })
          .nullable(),
        status: z.enum(['mapped', 'no_map', 'no_mapping', 'failed']).meta({
          description:
            'mapped: found in a map; no_map: no map for the file and release; no_mapping: the map has nothing there; failed: the map could not be read',
        }),
      }),
    ),
  })
  .meta({ description: 'Stack frames top first, each with its original position when a map gave one' })

/** The list shape of the spec's Issue table (no updatedAt, stepsToReplicate, aiVerified). */
export const IssueListItem = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(ISSUE_STATUSES),
  priority: z.enum(ISSUE_PRIORITIES),
  previewUrl: z.string().nullable(),
  createdAt: isoDate,
  sessionCount: z.number().int(),
  ticketProvider: z.string().nullable(),
  ticketUrl: z.string().nullable(),
  ticketIdentifier: z.string().nullable(),
  /**
   * Additions to the spec's shapes (issue 19): the release of the session that filed the
   * issue, and of the latest session seen with one; null when those sessions named none.
   * Recorder-sent text.
   */
  firstRelease: z.string().nullable().meta({
    description: 'Release of the session the issue was first found in; null when it named none',
  }),
  lastRelease: z.string().nullable().meta({
    description:
      'Release of the latest session with a release the issue was seen in; null when none named one',
  }),
})

export const Issue = IssueListItem.extend({
  updatedAt: isoDate,
  stepsToReplicate: z.string().nullable(),
  aiVerified: z.boolean().nullable(),
  /**
   * An addition to the spec's shape (issue 15): why the issue got its priority, e.g. what the
   * user did next. Null on issues recorded before it existed. It names page elements, so it is
   * text from the replay.
   */
  priorityReason: z.string().nullable(),
  /**
   * An addition to the spec's shape (issue 20): for a failed request, the error message the
   * server's response body gave, when the recorder captured the body (docs/network-details.md),
   * at most 300 characters. Null otherwise. Text from the replay.
   */
  serverMessage: z.string().nullable().meta({
    description:
      "Failed requests: the message in the server's captured response body (at most 300 characters); null when none was captured",
  }),
  /**
   * An addition to the spec's shape (issue 19): an error's stack in the code the customer
   * wrote, through the source maps uploaded for the session's release (docs/source-maps.md).
   * Null for other kinds, and for errors without maps.
   */
  /**
   * Additions to the spec's shape (issue 36, docs/releases.md#resolve-in-a-release): the release
   * that contains the fix, whether it was resolved "in the next release" (the release stays null
   * until one is seen after the resolution) and when it was last resolved. Null, false and null
   * on issues that are not resolved.
   */
  resolvedInRelease: z.string().nullable().meta({
    description:
      'The release that contains the fix: only sessions of it or a later release reopen the issue; null when none was named (or the next release is not seen yet)',
  }),
  resolvedInNextRelease: z.boolean().meta({
    description:
      'Resolved in the next release: the first release seen after resolvedAt becomes resolvedInRelease',
  }),
  resolvedAt: isoDate.nullable().meta({ description: 'When it was last resolved; null when not resolved' }),
  originalStack: OriginalStack.nullable(),
})

const OldReleaseOccurrences = z.object({
  release: z
    .string()
    .nullable()
    .meta({ description: "The sessions' release; null for sessions that named none" }),
  sessions: z.number().int(),
  lastSeenAt: isoDate,
})

const Regression = z.object({
  release: z.string().nullable().meta({ description: 'The release of the session it came back in' }),
  resolvedInRelease: z
    .string()
    .nullable()
    .meta({ description: 'The release it was resolved in then; null when none was named' }),
  sessionId: z.string(),
  at: isoDate,
})

/**
 * The single issue as GET /api/v1/issues/{issueId} and get_issue answer it (issue 36): the
 * occurrences after a fix that did not reopen it, why it last regressed, and its reproduction runs.
 */
export const IssueDetail = Issue.extend({
  oldReleaseOccurrences: z.array(OldReleaseOccurrences).meta({
    description:
      'Sessions seen while resolved in a release, from older releases (or none): counted, never a regression; by release, latest first',
  }),
  regression: Regression.nullable().meta({
    description: 'The latest time the issue came back after a resolution; null when it never did',
  }),
  verifications: z.array(Verification).meta({
    description: "The issue's latest reproduction runs (at most 10), newest first",
  }),
})

export type IssueListItem = z.infer<typeof IssueListItem>
export type Issue = z.infer<typeof Issue>
export type IssueDetail = z.infer<typeof IssueDetail>

/** The columns the list needs, so list queries read no more than they answer. */
export type IssueListRow = Pick<
  IssueRow,
  | 'id'
  | 'title'
  | 'description'
  | 'status'
  | 'priority'
  | 'previewUrl'
  | 'createdAt'
  | 'sessionCount'
  | 'ticketProvider'
  | 'ticketUrl'
  | 'ticketIdentifier'
  | 'firstRelease'
  | 'lastRelease'
>

export function toIssueListItem(row: IssueListRow): IssueListItem {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    previewUrl: row.previewUrl,
    createdAt: row.createdAt.toISOString(),
    sessionCount: row.sessionCount,
    ticketProvider: row.ticketProvider,
    ticketUrl: row.ticketUrl,
    ticketIdentifier: row.ticketIdentifier,
    firstRelease: row.firstRelease,
    lastRelease: row.lastRelease,
  }
}

/** `evidence.serverMessage` when it is a string (issue-json.ts reads it the same way). */
function serverMessageOf(evidence: unknown): string | null {
  const value =
    evidence && typeof evidence === 'object' ? (evidence as Record<string, unknown>).serverMessage : null
  return typeof value === 'string' ? value : null
}

export function toIssue(row: IssueRow): Issue {
  return {
    ...toIssueListItem(row),
    updatedAt: row.updatedAt.toISOString(),
    stepsToReplicate: row.stepsToReplicate,
    aiVerified: row.aiVerified,
    priorityReason: row.priorityReason,
    serverMessage: serverMessageOf(row.evidence),
    resolvedInRelease: row.resolvedInRelease,
    resolvedInNextRelease: row.resolvedInNextRelease,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    originalStack: symbolicatedFrames(row.evidence),
  }
}
