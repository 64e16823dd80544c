import { and, desc, eq, exists, gt, gte, ilike, lte, or, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions, replaySessions, signalMatches } from '@/db/schema'
import { cutText } from '@/lib/analysis/trail'
import { InvalidInputError, isUuid, SearchQueryError } from '@/lib/errors'
import { encodeCursor } from '@/lib/pagination/cursor'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import {
  formatQuery,
  parseQuery,
  type QueryNode,
  searchCondition,
  sessionMoments,
  withSearchTimeout,
} from '@/lib/search'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'
import type { SessionItem } from './api-views'
import { parseInstant } from './instant'
import {
  AUTOMATION_FILTERS,
  type AutomationFilter,
  automationCondition,
  containing,
  LIST_COLUMNS,
} from './list-sessions'
import { LINKS_PER_SESSION, type SessionLinks, sessionLinks, sessionReplayUrl } from './session-links'
import { USER_AGENT_PARSE_MAX } from './user-agent'
import { toSessionListItem } from './views'

/** `limit` of GET /api/v1/sessions and list_sessions. */
export const SESSION_ITEMS_PAGE = { default: 25, max: 100 }

/** Where a page of sessions ends at the latest, in bytes of JSON (see withinPageBytes). */
export const SESSION_PAGE_BYTES = 64 * 1024
/** Longest user id, e-mail or URL fragment a filter takes. */
const MAX_FILTER_CHARS = 500

/** The filters of GET /api/v1/sessions and list_sessions, as the caller gave them. */
export interface SessionItemsQuery {
  limit: number
  cursor?: string
  userId?: string
  userEmail?: string
  /** Contained in the entry URL or in any page the analysis saw the user visit. */
  url?: string
  hasErrors?: boolean
  issueId?: string
  signalId?: string
  /** Exactly the session's release (`metadata.release`). */
  release?: string
  /** ISO 8601; on the session's start. */
  from?: string
  to?: string
  /** People's visits by default; `include` adds automated traffic, `only` shows only it. */
  automation?: string
  /** A search query (docs/search.md); items then carry the moments that matched. */
  q?: string
}

function text(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined
  if (value.length > MAX_FILTER_CHARS)
    throw new InvalidInputError(`${name} must be at most ${MAX_FILTER_CHARS} characters`)
  // Postgres refuses NUL in a text parameter: a 400 here, not a driver error.
  if (!isStorableText(value)) throw new InvalidInputError(`${name} ${NOT_STORABLE}`)
  return value
}

function uuid(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined
  if (!isUuid(value)) throw new InvalidInputError(`${name} must be a UUID`)
  return value.toLowerCase()
}

/**
 * The page URL filter: the entry URL, or any page in the stored digest. The digest keeps at
 * most DIGEST_LIMIT pages, so each row costs a bounded look; `%`, `_` and `\` are literal.
 */
function urlCondition(url: string): SQL {
  const pattern = containing(url)
  const pages = sql`case when jsonb_typeof(${replaySessions.digest} -> 'pages') = 'array' then ${replaySessions.digest} -> 'pages' else '[]'::jsonb end`
  return or(
    ilike(replaySessions.entryUrl, pattern),
    sql`exists (select 1 from jsonb_array_elements(${pages}) as page where page ->> 'url' ilike ${pattern})`,
  ) as SQL
}

function automationFilter(value: string | undefined): AutomationFilter | undefined {
  if (value === undefined || value === '') return undefined
  const known = AUTOMATION_FILTERS.find((filter) => filter === value)
  if (!known) throw new InvalidInputError(`automation must be one of ${AUTOMATION_FILTERS.join(', ')}`)
  return known
}

/** The parsed query, or undefined for none (an empty or blank `q` is no query). */
function searchQuery(text: string | undefined): QueryNode | undefined {
  if (text === undefined || text.trim() === '') return undefined
  const parsed = parseQuery(text)
  if (!parsed.ok) throw new SearchQueryError(parsed.error, parsed.position)
  return parsed.query
}

function validated(query: SessionItemsQuery) {
  const from = query.from ? parseInstant(query.from, 'from') : undefined
  const to = query.to ? parseInstant(query.to, 'to') : undefined
  if (from && to && from > to) throw new InvalidInputError('from must not be after to')
  return {
    userId: text(query.userId, 'userId'),
    userEmail: text(query.userEmail, 'userEmail'),
    url: text(query.url, 'url'),
    hasErrors: query.hasErrors,
    issueId: uuid(query.issueId, 'issueId'),
    signalId: uuid(query.signalId, 'signalId'),
    release: text(query.release, 'release'),
    automation: automationFilter(query.automation),
    q: searchQuery(query.q),
    from,
    to,
  }
}

/**
 * The organization's sessions for the Data API and MCP, newest first (created_at, id), keyset
 * paged with a cursor bound to the organization and every filter. An issue or signal id of
 * another organization matches nothing, like an unknown one. Each item carries its issues and
 * signals, read for the whole page in one query each.
 */
export async function listSessionItems(
  db: DbOrTx,
  organizationId: string,
  query: SessionItemsQuery,
): Promise<Page<SessionItem>> {
  const f = validated(query)
  // A search may read every session of the organization: its statements run under a timeout.
  return f.q === undefined
    ? listItems(db, organizationId, query, f)
    : withSearchTimeout(db, (tx) => listItems(tx, organizationId, query, f))
}

async function listItems(
  db: DbOrTx,
  organizationId: string,
  query: SessionItemsQuery,
  f: ReturnType<typeof validated>,
): Promise<Page<SessionItem>> {
  const request = {
    limit: query.limit,
    cursor: query.cursor || undefined,
    // The release and automation are appended only when given, so cursors of pages without them stay valid.
    scope: `api-sessions:${organizationId}:${JSON.stringify([f.userId, f.userEmail, f.url, f.hasErrors, f.issueId, f.signalId, f.from?.getTime(), f.to?.getTime(), ...(f.release === undefined ? [] : [f.release]), ...(f.automation === undefined ? [] : [`automation:${f.automation}`]), ...(f.q === undefined ? [] : [`q:${formatQuery(f.q)}`])])}`,
  }
  const rows = await db
    .select(LIST_COLUMNS)
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, organizationId),
        f.userId === undefined ? undefined : eq(replaySessions.userId, f.userId),
        f.userEmail === undefined
          ? undefined
          : sql`lower(${replaySessions.userEmail}) = lower(${f.userEmail})`,
        f.url === undefined ? undefined : urlCondition(f.url),
        f.hasErrors === undefined
          ? undefined
          : f.hasErrors
            ? gt(replaySessions.errorCount, 0)
            : eq(replaySessions.errorCount, 0),
        f.issueId === undefined
          ? undefined
          : exists(
              db
                .select({ one: sql`1` })
                .from(issueSessions)
                .where(
                  and(
                    eq(issueSessions.sessionId, replaySessions.id),
                    eq(issueSessions.issueId, f.issueId),
                    eq(issueSessions.organizationId, organizationId),
                  ),
                ),
            ),
        f.signalId === undefined
          ? undefined
          : exists(
              db
                .select({ one: sql`1` })
                .from(signalMatches)
                .where(
                  and(
                    eq(signalMatches.sessionId, replaySessions.id),
                    eq(signalMatches.signalId, f.signalId),
                    eq(signalMatches.organizationId, organizationId),
                  ),
                ),
            ),
        f.release === undefined ? undefined : eq(replaySessions.release, f.release),
        automationCondition(f.automation),
        f.q === undefined ? undefined : searchCondition(f.q, organizationId),
        f.from === undefined ? undefined : gte(replaySessions.startedAt, f.from),
        f.to === undefined ? undefined : lte(replaySessions.startedAt, f.to),
        afterCursor(request, replaySessions.createdAt, replaySessions.id),
      ),
    )
    .orderBy(desc(replaySessions.createdAt), desc(replaySessions.id))
    .limit(query.limit + 1)
  const page = toPage(rows, request, (row) => row)
  const links = await sessionLinks(
    db,
    organizationId,
    page.items.map((row) => row.id),
    LINKS_PER_SESSION.list,
  )
  const moments =
    f.q === undefined
      ? undefined
      : await sessionMoments(db, { organizationId, query: f.q, sessionIds: page.items.map((row) => row.id) })
  return withinPageBytes(
    page.items.map((row) => {
      const item = toSessionItem(row, links.get(row.id))
      return { row, item: moments ? { ...item, moments: moments.get(row.id) ?? [] } : item }
    }),
    page.nextCursor,
    request.scope,
  )
}

/**
 * A page also ends at SESSION_PAGE_BYTES of JSON, like a timeline page: page text is
 * attacker-sized (user names, e-mails and issue titles of up to kilobytes each), and an agent's
 * answer has a budget. The next page starts after the last item kept; one item always fits.
 */
function withinPageBytes(
  items: { row: { createdAt: Date; id: string }; item: SessionItem }[],
  nextCursor: string | null,
  scope: string,
): Page<SessionItem> {
  let bytes = 0
  for (let i = 0; i < items.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(items[i]!.item))
    if (i > 0 && bytes > SESSION_PAGE_BYTES) {
      const last = items[i - 1]!.row
      return {
        items: items.slice(0, i).map(({ item }) => item),
        nextCursor: encodeCursor({ createdAt: last.createdAt, id: last.id }, scope),
      }
    }
  }
  return { items: items.map(({ item }) => item), nextCursor }
}

export function toSessionItem(
  row: Parameters<typeof toSessionListItem>[0],
  links: SessionLinks | undefined,
): SessionItem {
  const item = toSessionListItem(row)
  return {
    id: item.id,
    startedAt: item.startedAt.toISOString(),
    lastActivityAt: item.lastActivityAt.toISOString(),
    durationMs: item.durationMs,
    pageCount: item.pageCount,
    eventCount: item.eventCount,
    user: item.user,
    // Real ones are under 300 characters; the recorder may send 1,024 (cut with the marker).
    userAgent: item.userAgent === null ? null : cutText(item.userAgent, USER_AGENT_PARSE_MAX),
    release: item.release,
    degraded: item.degraded,
    automation: item.automation,
    status: item.status,
    issues: links?.issues ?? [],
    issueCount: links?.issueCount ?? 0,
    signals: links?.signals ?? [],
    signalCount: links?.signalCount ?? 0,
    replayUrl: sessionReplayUrl(item.id),
  }
}
