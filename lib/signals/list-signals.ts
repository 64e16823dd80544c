import { and, desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { signals } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { type Signal, toSignal } from './views'

export const SIGNALS_PAGE = { default: 50, max: 200 }

export async function listSignals(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  query: { limit: number; cursor?: string },
): Promise<Page<Signal>> {
  const request = { limit: query.limit, cursor: query.cursor, scope: `signals:${principal.organizationId}` }
  const rows = await db
    .select({
      id: signals.id,
      name: signals.name,
      prompt: signals.prompt,
      status: signals.status,
      backfillStatus: signals.backfillStatus,
      createdAt: signals.createdAt,
      matchCount: signals.matchCount,
      lastMatchAt: signals.lastMatchAt,
      savedSearchId: signals.savedSearchId,
    })
    .from(signals)
    .where(
      and(
        eq(signals.organizationId, principal.organizationId),
        afterCursor(request, signals.createdAt, signals.id),
      ),
    )
    .orderBy(desc(signals.createdAt), desc(signals.id))
    .limit(query.limit + 1)
  return toPage(rows, request, toSignal)
}
