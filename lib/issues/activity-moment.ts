import { sql } from 'drizzle-orm'
import { issueActivities } from '@/db/schema'

/**
 * When an issue activity happened, for its `created_at`: the database's clock at the write
 * (`clock_timestamp()`: `now()` is the transaction's start, and concurrent changes would be
 * listed out of the order they were made), and always after the issue's latest activity. The
 * column keeps milliseconds, so two activities of one transaction (a linked ticket, then the
 * status it moved the issue to) could share a moment, and the history, ordered by time then by a
 * random id, listed them either way. Writers hold the issue's row lock, so the latest activity
 * cannot move under them.
 */
export function activityMoment(issueId: string) {
  return sql`greatest(clock_timestamp(), (select max(${issueActivities.createdAt}) + interval '1 millisecond' from ${issueActivities} where ${issueActivities.issueId} = ${issueId}))`
}
