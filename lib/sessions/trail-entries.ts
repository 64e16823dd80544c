// Placeholder with the signature branch i18-trail exports; replaced by its file at the merge.
import { and, asc, eq, gt, gte, lte } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sessionTimelineEntries } from '@/db/schema'
import type { TrailEntry } from '@/lib/analysis/trail'

export async function readTrail(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
  options: { fromAt?: number; toAt?: number; afterPosition?: number; limit: number },
): Promise<{ position: number; entry: TrailEntry }[]> {
  const t = sessionTimelineEntries
  return db
    .select({ position: t.position, entry: t.entry })
    .from(t)
    .where(
      and(
        eq(t.organizationId, organizationId),
        eq(t.sessionId, sessionId),
        options.fromAt === undefined ? undefined : gte(t.at, options.fromAt),
        options.toAt === undefined ? undefined : lte(t.at, options.toAt),
        options.afterPosition === undefined ? undefined : gt(t.position, options.afterPosition),
      ),
    )
    .orderBy(asc(t.position))
    .limit(options.limit)
}
