import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueStatus, issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { type IssueListItem, toIssueListItem } from './views'

export const ISSUES_PAGE = { default: 25, max: 200 }

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
  const rows = await db
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
        eq(issues.organizationId, principal.organizationId),
        query.status ? eq(issues.status, query.status) : undefined,
        afterCursor(request, issues.createdAt, issues.id),
      ),
    )
    .orderBy(desc(issues.createdAt), desc(issues.id))
    .limit(query.limit + 1)
  return toPage(rows, request, toIssueListItem)
}
