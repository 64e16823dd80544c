import { and, eq, gte, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions } from '@/db/schema'

export const TREND_DAYS = 14
const DAY_MS = 86_400_000

/** Midnight UTC of the first of the `TREND_DAYS` days that end with today. */
function trendStart(now: Date): Date {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS
  return new Date(today - (TREND_DAYS - 1) * DAY_MS)
}

/**
 * Sessions per UTC day over the last 14 days, oldest first, for every issue asked about, in
 * one grouped query: a session counts on the day the issue first occurred in it. Issues with
 * no session in the window get fourteen zeros.
 */
export async function issueTrends(
  db: DbOrTx,
  organizationId: string,
  issueIds: string[],
  now = new Date(),
): Promise<Map<string, number[]>> {
  const trends = new Map(issueIds.map((id) => [id, new Array<number>(TREND_DAYS).fill(0)]))
  if (issueIds.length === 0) return trends
  const start = trendStart(now)
  const day = sql<number>`floor(extract(epoch from ${issueSessions.firstOccurrenceAt}) / 86400)::int`
  const rows = await db
    .select({ issueId: issueSessions.issueId, day, sessions: sql<number>`count(*)::int` })
    .from(issueSessions)
    .where(
      and(
        eq(issueSessions.organizationId, organizationId),
        inArray(issueSessions.issueId, issueIds),
        gte(issueSessions.firstOccurrenceAt, start),
      ),
    )
    .groupBy(issueSessions.issueId, day)
  const firstDay = start.getTime() / DAY_MS
  for (const row of rows) {
    const index = Number(row.day) - firstDay
    const trend = trends.get(row.issueId)
    // A session stamped in the future (a browser's clock) is left out rather than misplaced.
    if (trend && index >= 0 && index < TREND_DAYS) trend[index] = (trend[index] ?? 0) + Number(row.sessions)
  }
  return trends
}
