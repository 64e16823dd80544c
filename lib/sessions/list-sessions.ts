import { and, desc, eq, gt, ilike, isNotNull, isNull, or, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import { isUuid } from '@/lib/errors'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { parseInput } from '@/lib/validation'
import { type SessionListItem, toSessionListItem } from './views'

export const SESSIONS_PAGE = { default: 25, max: 100 }
export const MAX_SEARCH_LENGTH = 200
/**
 * A query of the search language (docs/search.md) as a condition on sessions, and its canonical
 * text, which the cursor is bound to. Built by lib/sessions/search-sessions.ts: lib/search reads
 * this module, so this one takes the condition rather than importing the compiler.
 */
export interface MatchingCondition {
  text: string
  condition: SQL
}

/**
 * Which sessions a list shows: people's visits by default; `include` adds automated traffic,
 * `only` shows nothing else (docs/hostile-input.md#automated-traffic).
 */
export const AUTOMATION_FILTERS = ['include', 'only'] as const
export type AutomationFilter = (typeof AUTOMATION_FILTERS)[number]

export function automationCondition(filter: AutomationFilter | undefined): SQL | undefined {
  if (filter === 'include') return undefined
  return filter === 'only' ? isNotNull(replaySessions.automation) : isNull(replaySessions.automation)
}

const Query = z.object({
  limit: z.number().int().min(1).max(SESSIONS_PAGE.max),
  cursor: z.string().optional(),
  search: z
    .string()
    .trim()
    .max(MAX_SEARCH_LENGTH, { error: `Search for at most ${MAX_SEARCH_LENGTH} characters` })
    .optional(),
  errorsOnly: z.boolean().optional(),
  automation: z.enum(AUTOMATION_FILTERS).optional(),
})

export type ListSessionsQuery = z.input<typeof Query>

// Not the digest: a page of 25 rows must not carry 25 analysis digests.
export const LIST_COLUMNS = {
  id: replaySessions.id,
  createdAt: replaySessions.createdAt,
  userId: replaySessions.userId,
  userEmail: replaySessions.userEmail,
  userName: replaySessions.userName,
  anonymousId: replaySessions.anonymousId,
  entryUrl: replaySessions.entryUrl,
  durationMs: replaySessions.durationMs,
  pageCount: replaySessions.pageCount,
  errorCount: replaySessions.errorCount,
  rageClickCount: replaySessions.rageClickCount,
  startedAt: replaySessions.startedAt,
  lastActivityAt: replaySessions.lastActivityAt,
  status: replaySessions.status,
  eventCount: replaySessions.eventCount,
  userAgent: replaySessions.userAgent,
  release: replaySessions.release,
  degraded: replaySessions.degraded,
  automation: replaySessions.automation,
}

/** `%`, `_` and `\` typed by a user are literal characters, not LIKE wildcards. */
export function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

function searchCondition(search: string): SQL | undefined {
  const pattern = containing(search)
  return or(
    // Pasting a session id (from a link or a log line) finds that session.
    isUuid(search) ? eq(replaySessions.id, search) : undefined,
    ilike(replaySessions.userEmail, pattern),
    ilike(replaySessions.userName, pattern),
    ilike(replaySessions.userId, pattern),
    ilike(replaySessions.anonymousId, pattern),
    ilike(replaySessions.externalId, pattern),
    ilike(replaySessions.entryUrl, pattern),
  )
}

/**
 * A member's sessions, newest first, keyset-paged on (created_at, id) like the Data API's
 * lists. The cursor is bound to the organization and the filters, so changing the search
 * or the filter starts again from the first page instead of skipping rows.
 */
export async function listSessions(
  db: DbOrTx,
  organizationId: string,
  query: ListSessionsQuery,
  matching?: MatchingCondition,
): Promise<Page<SessionListItem>> {
  const { limit, cursor, search, errorsOnly, automation } = parseInput(Query, query)
  const term = search || undefined
  const request = {
    limit,
    cursor: cursor || undefined,
    // The automation filter and the query are appended only when given, so earlier cursors stay valid.
    scope: `sessions:${organizationId}:${errorsOnly ? 'errors' : '*'}:${term ?? ''}${automation ? `:${automation}` : ''}${matching ? `:q=${matching.text}` : ''}`,
  }
  const rows = await db
    .select(LIST_COLUMNS)
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, organizationId),
        errorsOnly ? gt(replaySessions.errorCount, 0) : undefined,
        automationCondition(automation),
        term ? searchCondition(term) : undefined,
        matching?.condition,
        afterCursor(request, replaySessions.createdAt, replaySessions.id),
      ),
    )
    .orderBy(desc(replaySessions.createdAt), desc(replaySessions.id))
    .limit(limit + 1)
  return toPage(rows, request, toSessionListItem)
}
