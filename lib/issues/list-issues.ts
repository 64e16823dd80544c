import { and, desc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { builtOnce } from '@/lib/db/built-once'
import { decodeCursor } from '@/lib/pagination/cursor'
import { type Page, toPage } from '@/lib/pagination/keyset'
import { isoMillis, issueListItemJson } from './issue-json'
import { type IssueListItem, toIssueListItem } from './views'

export const ISSUES_PAGE = { default: 25, max: 200 }

/**
 * The page's condition: the organization, the status filter, the keyset cursor (as
 * placeholders). Exported with PAGE_ORDER for bench:data-api, which EXPLAINs this statement.
 */
export function pageWhere(withStatus: boolean, withCursor: boolean) {
  return and(
    eq(issues.organizationId, sql.placeholder('organizationId')),
    withStatus ? eq(issues.status, sql.placeholder('status')) : undefined,
    // The keyset condition of lib/pagination/keyset.ts (afterCursor), as placeholders.
    withCursor
      ? sql`(${issues.createdAt}, ${issues.id}) < (${sql.placeholder('afterCreatedAt')}::timestamptz, ${sql.placeholder('afterId')}::uuid)`
      : undefined,
  )
}

export const PAGE_ORDER = [desc(issues.createdAt), desc(issues.id)]

/**
 * One statement per combination of filters (status or not, cursor or not), built once per
 * database handle: the page is this one query, answered by issues_org_created_idx or
 * issues_org_status_created_idx in `created_at desc, id desc` order.
 */
function pageStatement(db: DbOrTx, withStatus: boolean, withCursor: boolean) {
  return builtOnce(db, `issues.page:${withStatus}:${withCursor}`, () =>
    db
      .select({
        id: issues.id,
        title: issues.title,
        description: issues.description,
        status: issues.status,
        priority: issues.priority,
        previewUrl: issues.previewUrl,
        createdAt: issues.createdAt,
        sessionCount: issues.sessionCount,
        ticketProvider: issues.ticketProvider,
        ticketUrl: issues.ticketUrl,
        ticketIdentifier: issues.ticketIdentifier,
        firstRelease: issues.firstRelease,
        lastRelease: issues.lastRelease,
      })
      .from(issues)
      .where(pageWhere(withStatus, withCursor))
      .orderBy(...PAGE_ORDER)
      .limit(sql.placeholder('limit'))
      .prepare(`issues_page_${withStatus ? 's' : 'a'}${withCursor ? 'c' : 'f'}`),
  )
}

/** The same page with each item as its JSON text (issue-json.ts) and the keyset of each row. */
function pageJsonStatement(db: DbOrTx, withStatus: boolean, withCursor: boolean) {
  return builtOnce(db, `issues.pageJson:${withStatus}:${withCursor}`, () =>
    db
      .select({ json: issueListItemJson, id: issues.id, createdAt: isoMillis(issues.createdAt) })
      .from(issues)
      .where(pageWhere(withStatus, withCursor))
      .orderBy(...PAGE_ORDER)
      .limit(sql.placeholder('limit'))
      .prepare(`issues_page_json_${withStatus ? 's' : 'a'}${withCursor ? 'c' : 'f'}`),
  )
}

function pageRequest(principal: Pick<Principal, 'organizationId'>, query: ListIssuesQuery) {
  const request = {
    limit: query.limit,
    cursor: query.cursor,
    scope: `issues:${principal.organizationId}:${query.status ?? '*'}`,
  }
  const after = request.cursor ? decodeCursor(request.cursor, request.scope) : undefined
  const params = {
    organizationId: principal.organizationId,
    status: query.status,
    afterCreatedAt: after?.createdAt.toISOString(),
    afterId: after?.id,
    limit: query.limit + 1,
  }
  return { request, after, params }
}

type ListIssuesQuery = { limit: number; cursor?: string; status?: IssueStatus }

export async function listIssues(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  query: ListIssuesQuery,
): Promise<Page<IssueListItem>> {
  const { request, after, params } = pageRequest(principal, query)
  const rows = await pageStatement(db, query.status !== undefined, after !== undefined).execute(params)
  return toPage(rows, request, toIssueListItem)
}

/**
 * listIssues for an answer that is JSON anyway (the Data API): the same page, in the same
 * query, with `items` the comma-joined JSON of each item, equal to JSON.stringify's.
 */
export async function listIssuesJson(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  query: ListIssuesQuery,
): Promise<{ items: string; nextCursor: string | null }> {
  const { request, after, params } = pageRequest(principal, query)
  const rows = await pageJsonStatement(db, query.status !== undefined, after !== undefined).execute(params)
  const page = toPage(
    rows.map((row) => ({ json: row.json, id: row.id, createdAt: new Date(row.createdAt) })),
    request,
    (row) => row.json,
  )
  return { items: page.items.join(','), nextCursor: page.nextCursor }
}
