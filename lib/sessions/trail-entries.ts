// TEMPORARY STUB (branch i18-sessions): replaced by the i18-trail branch's file at merge.
// Deleted before `git merge i18-trail`.
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
        eq(t.sessionId, sessionId),
        eq(t.organizationId, organizationId),
        options.fromAt === undefined ? undefined : gte(t.at, options.fromAt),
        options.toAt === undefined ? undefined : lte(t.at, options.toAt),
        options.afterPosition === undefined ? undefined : gt(t.position, options.afterPosition),
      ),
    )
    .orderBy(asc(t.position))
    .limit(options.limit)
}
