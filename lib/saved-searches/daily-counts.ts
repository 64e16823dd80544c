import { and, count, eq, gte, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import { SearchTimeoutError } from '@/lib/errors'
import { lastDays } from '@/lib/orgs/daily-activity'
import { MATCHING_IDS_MAX, matchingSessionIds } from '@/lib/search'
import { parseQuery } from '@/lib/search/parse'
import { withSearchTimeout } from '@/lib/search/timeout'
import { allSavedSearches } from './saved-searches'

const DAY_MS = 86_400_000
/**
 * A session's start is the browser's clock (never later than its arrival: ingest caps it), its
 * arrival the server's. Candidates are searched from a day before the first counted day, so a
 * browser clock up to a day behind is still counted, on the day the session arrived.
 */
const CLOCK_SLACK_MS = DAY_MS
/**
 * Sessions counted per saved search at most: one fewer than the search answers, so that one
 * more id says there were more; the card then says "at least".
 */
export const MAX_COUNTED_SESSIONS = MATCHING_IDS_MAX - 1
/** Saved searches the overview counts (each is one search): the first by name. */
export const MAX_COUNTED_SEARCHES = 10

export interface SavedSearchDays {
  id: string
  name: string
  query: string
  /** Oldest first, every day present; `day` is the UTC day `YYYY-MM-DD`. */
  days: { day: string; sessions: number }[]
  /** More sessions matched than were counted (MAX_COUNTED_SESSIONS). */
  capped: boolean
  /** The stored query no longer parses: nothing is counted. */
  invalid: boolean
  /** The search ran past its statement timeout (docs/search.md#limits): nothing is counted. */
  timedOut: boolean
}

/**
 * Per saved search, the sessions it finds per UTC day over the last `days` days, by the day the
 * server received each session (docs/saved-searches.md#counts-on-the-overview).
 */
export async function savedSearchDailyCounts(
  db: DbOrTx,
  organizationId: string,
  options: { days?: number; now?: Date } = {},
): Promise<SavedSearchDays[]> {
  const days = lastDays(options.now ?? new Date(), options.days ?? 14)
  const since = new Date(`${days[0]}T00:00:00Z`)
  const searches = (await allSavedSearches(db, organizationId)).slice(0, MAX_COUNTED_SEARCHES)
  const counted: SavedSearchDays[] = []
  for (const search of searches) {
    const parsed = parseQuery(search.query)
    const empty = days.map((day) => ({ day, sessions: 0 }))
    const base = { id: search.id, name: search.name, query: search.query }
    if (!parsed.ok) {
      counted.push({ ...base, days: empty, capped: false, invalid: true, timedOut: false })
      continue
    }
    // Every member's overview runs these: each is bounded like a search sent to the API.
    let ids: string[]
    try {
      ids = await withSearchTimeout(db, (tx) =>
        matchingSessionIds(tx, {
          organizationId,
          query: parsed.query,
          startedFrom: new Date(since.getTime() - CLOCK_SLACK_MS),
          limit: MAX_COUNTED_SESSIONS + 1,
        }),
      )
    } catch (error) {
      if (!(error instanceof SearchTimeoutError)) throw error
      counted.push({ ...base, days: empty, capped: false, invalid: false, timedOut: true })
      continue
    }
    const rows =
      ids.length === 0
        ? []
        : await db
            .select({
              day: sql<string>`to_char(${replaySessions.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
              n: count(),
            })
            .from(replaySessions)
            .where(
              and(
                eq(replaySessions.organizationId, organizationId),
                inArray(replaySessions.id, ids.slice(0, MAX_COUNTED_SESSIONS)),
                gte(replaySessions.createdAt, since),
              ),
            )
            .groupBy(sql`1`)
    const perDay = new Map(rows.map((r) => [r.day, Number(r.n)]))
    counted.push({
      ...base,
      days: days.map((day) => ({ day, sessions: perDay.get(day) ?? 0 })),
      capped: ids.length > MAX_COUNTED_SESSIONS,
      invalid: false,
      timedOut: false,
    })
  }
  return counted
}
