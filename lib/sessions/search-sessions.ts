import type { DbOrTx } from '@/db/client'
import type { Page } from '@/lib/pagination/keyset'
import {
  formatQuery,
  type QueryNode,
  type SearchMoment,
  searchCondition,
  sessionMoments,
  withSearchTimeout,
} from '@/lib/search'
import { type ListSessionsQuery, listSessions } from './list-sessions'
import type { SessionListItem } from './views'

export interface SearchedSessions {
  page: Page<SessionListItem>
  /** The moments that matched, by session id: the first few of each listed session. */
  moments: Map<string, SearchMoment[]>
}

/**
 * The dashboard's list of sessions a query matches (docs/dashboard.md#searching-sessions), with
 * the list's other filters and cursors, and the matching moments of the sessions on the page.
 */
export async function searchSessions(
  db: DbOrTx,
  organizationId: string,
  filters: ListSessionsQuery,
  query: QueryNode,
): Promise<SearchedSessions> {
  // A search may read every session of the organization: its statements run under a timeout.
  return withSearchTimeout(db, async (tx) => {
    const page = await listSessions(tx, organizationId, filters, {
      text: formatQuery(query),
      condition: searchCondition(query, organizationId),
    })
    const moments =
      page.items.length === 0
        ? new Map<string, SearchMoment[]>()
        : await sessionMoments(tx, { organizationId, query, sessionIds: page.items.map((item) => item.id) })
    return { page, moments }
  })
}
