import { and, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { ISSUE_STATUSES, type IssueStatus, issues } from '@/db/schema'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { parseInput } from '@/lib/validation'

/** The dashboard's status tabs: every status, plus all of them. */
export const ISSUE_TABS = ['all', ...ISSUE_STATUSES] as const
export type IssueTab = (typeof ISSUE_TABS)[number]

export const SEARCH_MAX = 200
export const DASHBOARD_ISSUES_PAGE = 25

export const IssueSearchQuery = z.object({
  tab: z.enum(ISSUE_TABS, {
    error: 'Unknown status tab: choose All, Unresolved, Ticket created, Transient or Resolved.',
  }),
  q: z.string().trim().max(SEARCH_MAX, `Search text is limited to ${SEARCH_MAX} characters: shorten it.`),
  limit: z.number().int().min(1).max(200),
  cursor: z.string().optional(),
})
export type IssueSearchQuery = z.input<typeof IssueSearchQuery>

export interface IssueSearchRow {
  id: string
  title: string
  status: IssueStatus
  priority: (typeof issues.$inferSelect)['priority']
  sessionCount: number
  firstSeenAt: Date
  lastSeenAt: Date
  createdAt: Date
  ticketProvider: string | null
  ticketUrl: string | null
  ticketIdentifier: string | null
}

export interface IssueSearchResult extends Page<IssueSearchRow> {
  /** Issues per tab that match the search text (all issues when there is none). */
  counts: Record<IssueTab, number>
  /** Issues of the organization whatever the search: zero means none was ever found. */
  total: number
}

/** `%` and `_` typed by a user are literal characters, not wildcards. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * The dashboard's issue list: one status tab, an optional case-insensitive search over title
 * and description, newest first with keyset paging, and the count of every tab.
 */
export async function searchIssues(
  db: DbOrTx,
  organizationId: string,
  query: IssueSearchQuery,
): Promise<IssueSearchResult> {
  const { tab, q, limit, cursor } = parseInput(IssueSearchQuery, query)
  const matches: SQL | undefined = q
    ? or(ilike(issues.title, likePattern(q)), ilike(issues.description, likePattern(q)))
    : undefined
  const request = { limit, cursor, scope: `dashboard-issues:${organizationId}:${tab}:${q}` }
  const [rows, perStatus] = await Promise.all([
    db
      .select({
        id: issues.id,
        title: issues.title,
        status: issues.status,
        priority: issues.priority,
        sessionCount: issues.sessionCount,
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
          matches,
          afterCursor(request, issues.createdAt, issues.id),
        ),
      )
      .orderBy(desc(issues.createdAt), desc(issues.id))
      .limit(limit + 1),
    db
      .select({
        status: issues.status,
        all: sql<number>`count(*)::int`,
        matching: matches
          ? sql<number>`(count(*) filter (where ${matches}))::int`
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
  return { ...toPage(rows, request, (row) => row), counts, total }
}
