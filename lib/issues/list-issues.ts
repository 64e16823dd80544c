import { and, desc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { prepared } from '@/lib/db/prepared'
import { decodeCursor } from '@/lib/pagination/cursor'
import { type Page, toPage } from '@/lib/pagination/keyset'
import { type IssueListItem, toIssueListItem } from './views'

export const ISSUES_PAGE = { default: 25, max: 200 }

/**
 * One statement per combination of filters (status or not, cursor or not), built once per
 * database handle: the page is this one query, answered by issues_org_created_idx or
 * issues_org_status_created_idx in `created_at desc, id desc` order.
 */
function pageStatement(db: DbOrTx, withStatus: boolean, withCursor: boolean) {
  return prepared(db, `issues.page:${withStatus}:${withCursor}`, () =>
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
      })
      .from(issues)
      .where(
        and(
          eq(issues.organizationId, sql.placeholder('organizationId')),
          withStatus ? eq(issues.status, sql.placeholder('status')) : undefined,
          // The keyset condition of lib/pagination/keyset.ts (afterCursor), as placeholders.
          withCursor
            ? sql`(${issues.createdAt}, ${issues.id}) < (${sql.placeholder('afterCreatedAt')}::timestamptz, ${sql.placeholder('afterId')}::uuid)`
            : undefined,
        ),
      )
      .orderBy(desc(issues.createdAt), desc(issues.id))
      .limit(sql.placeholder('limit'))
      .prepare(`issues_page_${withStatus ? 's' : 'a'}${withCursor ? 'c' : 'f'}`),
  )
}

export async function listIssues(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  query: { limit: number; cursor?: string; status?: IssueStatus },
): Promise<Page<IssueListItem>> {
  const request = {
    limit: query.limit,
    cursor: query.cursor,
    scope: `issues:${principal.organizationId}:${query.status ?? '*'}`,
  }
  const after = request.cursor ? decodeCursor(request.cursor, request.scope) : undefined
  const rows = await pageStatement(db, query.status !== undefined, after !== undefined).execute({
    organizationId: principal.organizationId,
    status: query.status,
    afterCreatedAt: after?.createdAt.toISOString(),
    afterId: after?.id,
    limit: query.limit + 1,
  })
  return toPage(rows, request, toIssueListItem)
}
