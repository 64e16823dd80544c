import { type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import { issues } from '@/db/schema'
import { symbolicatedFrames } from './evidence-frames'

/**
 * The Data API's issue shapes (views.ts) as JSON text written by the database, byte for byte
 * what JSON.stringify makes of toIssueListItem / toIssue: the same keys in the same order,
 * row_to_json's compact form (no spaces), the same string escapes, and times as toISOString
 * writes them (UTC, milliseconds truncated as a JavaScript Date truncates microseconds). A read
 * then costs the server one text column per row instead of decoding every column, building
 * Dates and objects, and serialising them again. tests/integration/issue-json.test.ts holds
 * the two forms equal on both engines.
 */

/** toISOString's form of a timestamptz. */
export function isoMillis(column: AnyPgColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

const listFields = sql`${issues.id} as "id", ${issues.title} as "title",
  ${issues.description} as "description", ${issues.status} as "status",
  ${issues.priority} as "priority", ${issues.previewUrl} as "previewUrl",
  ${isoMillis(issues.createdAt)} as "createdAt", ${issues.sessionCount} as "sessionCount",
  ${issues.ticketProvider} as "ticketProvider", ${issues.ticketUrl} as "ticketUrl",
  ${issues.ticketIdentifier} as "ticketIdentifier", ${issues.firstRelease} as "firstRelease",
  ${issues.lastRelease} as "lastRelease"`

/** JSON.stringify(toIssueListItem(row)) of the row being selected from `issues`. */
export const issueListItemJson = sql<string>`(select row_to_json(r)::text from (select ${listFields}) r)`

/**
 * JSON.stringify(toIssue(row)) of the row being selected from `issues`, but for its last field,
 * `originalStack`, which comes from the evidence's frames: jsonb's text form has spaces
 * JSON.stringify does not write, so getIssueJson appends it (withOriginalStack).
 */
export const issueJson = sql<string>`(select row_to_json(r)::text from (select ${listFields},
  ${isoMillis(issues.updatedAt)} as "updatedAt", ${issues.stepsToReplicate} as "stepsToReplicate",
  ${issues.aiVerified} as "aiVerified", ${issues.priorityReason} as "priorityReason",
  case when jsonb_typeof(${issues.evidence}->'serverMessage') = 'string'
    then ${issues.evidence}->>'serverMessage' end as "serverMessage",
  ${issues.resolvedInRelease} as "resolvedInRelease",
  ${issues.resolvedInNextRelease} as "resolvedInNextRelease",
  ${isoMillis(issues.resolvedAt)} as "resolvedAt") r)`

/** The evidence fields originalStack is read from, selected beside issueJson. */
export const originalStackSource = sql<Record<
  string,
  unknown
> | null>`case when ${issues.evidence}->'frames' is not null
  then jsonb_build_object('frames', ${issues.evidence}->'frames', 'release', ${issues.evidence}->'release') end`

/** issueJson's text with `originalStack` appended as JSON.stringify writes it, last, as toIssue orders it. */
export function withOriginalStack(json: string, source: Record<string, unknown> | null): string {
  return `${json.slice(0, -1)},"originalStack":${JSON.stringify(symbolicatedFrames(source))}}`
}
