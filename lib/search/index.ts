import { and, desc, eq, gte, inArray, isNotNull, isNull, lte, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import type { TrailEntry, TrailKind } from '@/lib/analysis/trail'
import type { QueryNode } from './ast'
import { matchedSequences, searchCondition, sequenceRows } from './compile'
import { momentLabel } from './moment-label'

export type { QueryNode } from './ast'
export { searchCondition } from './compile'
export { formatQuery } from './format'
export { type ParseResult, parseQuery } from './parse'
export { SEARCH_STATEMENT_TIMEOUT_MS, setSearchTimeoutForTests, withSearchTimeout } from './timeout'

/** A trail entry that matched a query, as lists show it and link into the replay. */
export interface SearchMoment {
  /** Epoch milliseconds, as recorded (the browser's clock). */
  at: number
  /** From the session's start: the replay's `?t=`. */
  offsetMs: number
  kind: TrailKind
  /** The entry's place in the session's trail. */
  position: number
  label: string
}

/** Moments an item of a list carries. */
export const MOMENTS_PER_SESSION = 5
/** matchingSessionIds answers at most this many ids, newest session first. */
export const MATCHING_IDS_MAX = 10_000

/**
 * Ids of the organization's sessions the query matches, newest first. People's visits only
 * unless `automation` says otherwise, like the session lists.
 */
export async function matchingSessionIds(
  db: DbOrTx,
  input: {
    organizationId: string
    query: QueryNode
    sessionIds?: string[]
    startedFrom?: Date
    startedTo?: Date
    limit?: number
    /** As the lists' filter: `include` adds automated traffic, `only` keeps nothing else. */
    automation?: 'include' | 'only'
  },
): Promise<string[]> {
  if (input.sessionIds?.length === 0) return []
  const limit = Math.min(Math.max(1, Math.trunc(input.limit ?? MATCHING_IDS_MAX)), MATCHING_IDS_MAX)
  const rows = await db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, input.organizationId),
        input.automation === 'include'
          ? undefined
          : input.automation === 'only'
            ? isNotNull(replaySessions.automation)
            : isNull(replaySessions.automation),
        input.sessionIds ? inArray(replaySessions.id, input.sessionIds) : undefined,
        input.startedFrom ? gte(replaySessions.startedAt, input.startedFrom) : undefined,
        input.startedTo ? lte(replaySessions.startedAt, input.startedTo) : undefined,
        searchCondition(input.query, input.organizationId),
      ),
    )
    .orderBy(desc(replaySessions.createdAt), desc(replaySessions.id))
    .limit(limit)
  return rows.map((row) => row.id)
}

type MomentRow = Record<string, unknown> & { session_id: string; started_at: string | Date }

/**
 * The first MOMENTS_PER_SESSION moments of each given session that match the query's moments
 * (those not under `not`): every entry a single moment matches, and the entries of a sequence's
 * earliest match. Sessions of another organization get none. One query per sequence in the query.
 */
export async function sessionMoments(
  db: DbOrTx,
  input: { organizationId: string; query: QueryNode; sessionIds: string[] },
): Promise<Map<string, SearchMoment[]>> {
  const found = new Map<string, Map<number, SearchMoment>>()
  if (input.sessionIds.length === 0) return new Map()
  for (const sequence of matchedSequences(input.query)) {
    const perSession = sequence.moments.length === 1 ? MOMENTS_PER_SESSION : 1
    const rows = (await db.execute(
      sql`select ${replaySessions.id} as session_id, ${replaySessions.startedAt} as started_at, matched.* from ${replaySessions} cross join lateral (${sequenceRows(sequence, input.organizationId, sql`${replaySessions.id}`)} order by at0, position0 limit ${perSession}) matched where ${and(eq(replaySessions.organizationId, input.organizationId), inArray(replaySessions.id, input.sessionIds)) as SQL}`,
    )) as unknown as MomentRow[] | { rows: MomentRow[] }
    for (const row of rowsOf(rows)) {
      const startedAt = new Date(row.started_at).getTime()
      const moments = found.get(row.session_id) ?? new Map<number, SearchMoment>()
      found.set(row.session_id, moments)
      for (let i = 0; i < sequence.moments.length; i++) {
        const position = Number(row[`position${i}`])
        const entry = parsedEntry(row[`entry${i}`])
        const at = Number(row[`at${i}`])
        moments.set(position, {
          at,
          offsetMs: Math.max(0, at - startedAt),
          kind: String(row[`kind${i}`]) as TrailKind,
          position,
          label: momentLabel(entry),
        })
      }
    }
  }
  const result = new Map<string, SearchMoment[]>()
  for (const [sessionId, moments] of found)
    result.set(
      sessionId,
      [...moments.values()]
        .sort((a, b) => a.at - b.at || a.position - b.position)
        .slice(0, MOMENTS_PER_SESSION),
    )
  return result
}

/** postgres-js answers an array of rows, PGlite an object with `rows`. */
function rowsOf<R>(result: R[] | { rows: R[] }): R[] {
  return Array.isArray(result) ? result : result.rows
}

/** The entry column as either driver hands back a jsonb value selected through raw SQL. */
function parsedEntry(value: unknown): TrailEntry {
  return (typeof value === 'string' ? JSON.parse(value) : value) as TrailEntry
}
