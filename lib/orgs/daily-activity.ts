import { and, count, eq, gte, isNull, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issues, replaySessions } from '@/db/schema'

export interface DayActivity {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string
  sessions: number
  /** Issues first found that day. */
  issues: number
}

const DAY_MS = 86_400_000

/** The last `days` UTC days up to today, oldest first, each present even when empty. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  )
}

/** Sessions recorded and issues found per UTC day over the last `days` days, for the overview. */
export async function getDailyActivity(
  db: DbOrTx,
  organizationId: string,
  options: { days?: number; now?: Date } = {},
): Promise<DayActivity[]> {
  const days = lastDays(options.now ?? new Date(), options.days ?? 14)
  const since = new Date(`${days[0]}T00:00:00Z`)
  const perDay = (table: typeof replaySessions | typeof issues, extra?: SQL) =>
    db
      .select({
        day: sql<string>`to_char(${table.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
        n: count(),
      })
      .from(table)
      .where(and(eq(table.organizationId, organizationId), gte(table.createdAt, since), extra))
      .groupBy(sql`1`)
  // People's visits only: automated traffic is never counted (docs/hostile-input.md#automated-traffic).
  const [sessionRows, issueRows] = await Promise.all([
    perDay(replaySessions, isNull(replaySessions.automation)),
    perDay(issues),
  ])
  const sessions = new Map(sessionRows.map((row) => [row.day, Number(row.n)]))
  const found = new Map(issueRows.map((row) => [row.day, Number(row.n)]))
  return days.map((day) => ({ day, sessions: sessions.get(day) ?? 0, issues: found.get(day) ?? 0 }))
}
