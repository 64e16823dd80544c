import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { insights } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { type Insight, toInsight } from './views'

const INSIGHT_NOT_FOUND = 'Insight not found'

/** An insight with its full Markdown text. */
export interface InsightDetail extends Insight {
  content: string
}

/** One insight of the organization; another organization's id reads as missing. */
export async function getInsight(
  db: DbOrTx,
  input: { organizationId: string; insightId: string },
): Promise<InsightDetail> {
  if (!isUuid(input.insightId)) throw new NotFoundError(INSIGHT_NOT_FOUND)
  const [row] = await db
    .select()
    .from(insights)
    .where(and(eq(insights.id, input.insightId), eq(insights.organizationId, input.organizationId)))
  if (!row) throw new NotFoundError(INSIGHT_NOT_FOUND)
  return { ...toInsight(row), content: row.content }
}
