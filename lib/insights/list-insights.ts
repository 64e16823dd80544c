import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { insights } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { type Insight, toInsight } from './views'

export const INSIGHTS_PAGE = { default: 25, max: 100 }

export async function listInsights(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  query: { limit: number; cursor?: string },
): Promise<Page<Insight>> {
  const request = { limit: query.limit, cursor: query.cursor, scope: `insights:${principal.organizationId}` }
  const rows = await db
    .select({
      id: insights.id,
      createdAt: insights.createdAt,
      intervalStart: insights.intervalStart,
      intervalEnd: insights.intervalEnd,
      sessionsCount: insights.sessionsCount,
      contentPreview: insights.contentPreview,
      redactedAt: insights.redactedAt,
    })
    .from(insights)
    .where(
      and(
        eq(insights.organizationId, principal.organizationId),
        afterCursor(request, insights.createdAt, insights.id),
      ),
    )
    .orderBy(desc(insights.createdAt), desc(insights.id))
    .limit(query.limit + 1)
  return toPage(rows, request, toInsight)
}
