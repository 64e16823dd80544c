import { and, asc, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { ISSUE_PRIORITIES, ISSUE_STATUSES, type IssueStatus, issues } from '@/db/schema'
import { parseInput } from '@/lib/validation'
import { issueTrends } from './issue-trends'
import { ISSUE_KINDS } from './kinds'

/** The dashboard's status tabs: every status, plus all of them. */
export const ISSUE_TABS = ['all', ...ISSUE_STATUSES] as const
export type IssueTab = (typeof ISSUE_TABS)[number]

const ISSUE_SORTS = ['impact', 'last_seen', 'first_seen', 'sessions', 'users', 'priority'] as const
export type IssueSort = (typeof ISSUE_SORTS)[number]

export const SEARCH_MAX = 200
export const DASHBOARD_ISSUES_PAGE = 25
/** Offset paging reads every skipped row; past this page, filters are the better tool. */
const MAX_PAGE = 400

export const IssueSearchQuery = z.object({
  tab: z.enum(ISSUE_TABS, {
    error: 'Unknown status tab: choose All, Unresolved, Ticket created, Transient or Resolved.',
  }),
  q: z.string().trim().max(SEARCH_MAX, `Search text is limited to ${SEARCH_MAX} characters: shorten it.`),
  priority: z
    .enum(ISSUE_PRIORITIES, { error: 'Unknown priority: choose critical, high, medium or low.' })
    .optional(),
  kind: z
    .enum(ISSUE_KINDS, {
      error:
        'Unknown kind: choose JavaScript error, console error, failed request, rage click or dead click.',
    })
    .optional(),
  url: z
    .string()
    .trim()
    .max(SEARCH_MAX, `The page filter is limited to ${SEARCH_MAX} characters: shorten it.`)
    .default(''),
  sort: z
    .enum(ISSUE_SORTS, {
      error: 'Unknown sort: choose impact, last seen, first seen, sessions, users or priority.',
    })
    .default('impact'),
  limit: z.number().int().min(1).max(200),
  page: z
    .number({ error: 'The page must be a number from 1.' })
    .int('The page must be a whole number.')
    .min(1, 'The page must be a number from 1.')
    .max(MAX_PAGE, `Only the first ${MAX_PAGE} pages can be shown: narrow the list with a filter.`)
    .default(1),
})
/** What callers pass: the dashboard hands over the address's text as it is; parsing checks it. */
export type IssueSearchQuery = Omit<
  z.input<typeof IssueSearchQuery>,
  'tab' | 'priority' | 'kind' | 'sort'
> & {
  tab: string
  priority?: string
  kind?: string
  sort?: string
}

export interface IssueSearchRow {
  id: string
  title: string
  kind: string
  status: IssueStatus
  priority: (typeof issues.$inferSelect)['priority']
  sessionCount: number
  /** Occurrences over all its sessions (each session's count, as last analysed). */
  eventCount: number
  /** Distinct people (identified user, else the recorder's anonymous id) in the issue's sessions. */
  usersAffected: number
  firstSeenAt: Date
  lastSeenAt: Date
  createdAt: Date
  ticketProvider: string | null
  ticketUrl: string | null
  ticketIdentifier: string | null
  /** Sessions per UTC day over the last 14 days, oldest first. */
  trend: number[]
}

export interface IssueSearchResult {
  items: IssueSearchRow[]
  page: number
  /** Pages of issues matching every filter (the tab too); at least 1. */
  pageCount: number
  /** Issues per tab that match the other filters (all issues when there are none). */
  counts: Record<IssueTab, number>
  /** Issues of the organization whatever the filters: zero means none was ever found. */
  total: number
}

/** `%` and `_` typed by a user are literal characters, not wildcards. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

// Spelled out with table names: drizzle leaves columns of a one-table select unqualified, and
// an unqualified "id" inside this subquery would be the session's.
const usersAffected = sql<number>`(
  select count(distinct coalesce(rs.user_id, rs.anonymous_id))::int
  from issue_sessions iss join replay_sessions rs on rs.id = iss.session_id
  where iss.issue_id = "issues"."id"
)`

// Each linked session stores how often the issue occurred in it; re-analysis replaces it, so the sum stays exact.
const eventCount = sql<number>`(
  select coalesce(sum(iss.occurrences), 0)::int
  from issue_sessions iss
  where iss.issue_id = "issues"."id"
)`

const priorityRank = sql`case ${issues.priority} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 else 3 end`

/**
 * Most of it first; ties go to the most recently seen, then a fixed order so pages never overlap.
 * Impact (docs/dashboard.md#issues): priority, then people affected, then the latest seen.
 */
const ORDER: Record<IssueSort, SQL[]> = {
  impact: [asc(priorityRank), desc(usersAffected), desc(issues.lastSeenAt)],
  last_seen: [desc(issues.lastSeenAt)],
  first_seen: [desc(issues.firstSeenAt)],
  sessions: [desc(issues.sessionCount), desc(issues.lastSeenAt)],
  users: [desc(usersAffected), desc(issues.lastSeenAt)],
  priority: [asc(priorityRank), desc(issues.lastSeenAt)],
}

/** The page or URL an issue is about: where it happened, the failed request, the page pattern. */
function onPage(text: string): SQL | undefined {
  const pattern = likePattern(text)
  return or(
    ilike(sql`${issues.evidence}->>'pageUrl'`, pattern),
    ilike(sql`${issues.evidence}->>'url'`, pattern),
    ilike(sql`${issues.evidence}->>'pathPattern'`, pattern),
  )
}

/**
 * The dashboard's issue list: one status tab and optional filters (text in title or
 * description, priority, kind, page), in one of six orders (impact unless chosen), a page at
 * a time; with each row's users affected, events and 14-day trend (one grouped query for the page), and the count of
 * every tab under the same filters.
 */
export async function searchIssues(
  db: DbOrTx,
  organizationId: string,
  query: IssueSearchQuery,
  now = new Date(),
): Promise<IssueSearchResult> {
  const { tab, q, priority, kind, url, sort, limit, page } = parseInput(IssueSearchQuery, query)
  const filters: SQL | undefined = and(
    q ? or(ilike(issues.title, likePattern(q)), ilike(issues.description, likePattern(q))) : undefined,
    priority ? eq(issues.priority, priority) : undefined,
    kind ? eq(issues.kind, kind) : undefined,
    url ? onPage(url) : undefined,
  )
  const [rows, perStatus] = await Promise.all([
    db
      .select({
        id: issues.id,
        title: issues.title,
        kind: issues.kind,
        status: issues.status,
        priority: issues.priority,
        sessionCount: issues.sessionCount,
        eventCount,
        usersAffected,
        firstSeenAt: issues.firstSeenAt,
        lastSeenAt: issues.lastSeenAt,
        createdAt: issues.createdAt,
        ticketProvider: issues.ticketProvider,
        ticketUrl: issues.ticketUrl,
        ticketIdentifier: issues.ticketIdentifier,
      })
      .from(issues)
      .where(
        and(
          eq(issues.organizationId, organizationId),
          tab === 'all' ? undefined : eq(issues.status, tab),
          filters,
        ),
      )
      .orderBy(...ORDER[sort], desc(issues.createdAt), desc(issues.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db
      .select({
        status: issues.status,
        all: sql<number>`count(*)::int`,
        matching: filters
          ? sql<number>`(count(*) filter (where ${filters}))::int`
          : sql<number>`count(*)::int`,
      })
      .from(issues)
      .where(eq(issues.organizationId, organizationId))
      .groupBy(issues.status),
  ])
  const counts: Record<IssueTab, number> = {
    all: 0,
    unresolved: 0,
    ticket_created: 0,
    transient: 0,
    resolved: 0,
  }
  let total = 0
  for (const row of perStatus) {
    counts[row.status] = Number(row.matching)
    counts.all += Number(row.matching)
    total += Number(row.all)
  }
  const trends = await issueTrends(
    db,
    organizationId,
    rows.map((row) => row.id),
    now,
  )
  return {
    items: rows.map((row) => ({
      ...row,
      usersAffected: Number(row.usersAffected),
      eventCount: Number(row.eventCount),
      trend: trends.get(row.id)!,
    })),
    page,
    pageCount: Math.max(1, Math.ceil(counts[tab] / limit)),
    counts,
    total,
  }
}
