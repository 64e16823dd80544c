import { and, eq, isNotNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials, issues, replaySessions } from '@/db/schema'

/** The getting-started steps of an organization, each done or not. */
export interface FirstRunProgress {
  keyCreated: boolean
  batchReceived: boolean
  sessionAnalysed: boolean
  issueFound: boolean
}

export function firstRunDone(progress: FirstRunProgress): boolean {
  return progress.keyCreated && progress.batchReceived && progress.sessionAnalysed && progress.issueFound
}

/**
 * Each step asks whether one row exists, so the overview can poll it every few seconds while
 * a newcomer follows the steps. A key counts once made, even if revoked later.
 */
export async function getFirstRunProgress(db: DbOrTx, organizationId: string): Promise<FirstRunProgress> {
  const exists = async (query: Promise<unknown[]>) => (await query).length > 0
  const [keyCreated, batchReceived, sessionAnalysed, issueFound] = await Promise.all([
    exists(
      db
        .select({ id: credentials.id })
        .from(credentials)
        .where(and(eq(credentials.organizationId, organizationId), eq(credentials.kind, 'ingest')))
        .limit(1),
    ),
    exists(
      db
        .select({ id: replaySessions.id })
        .from(replaySessions)
        .where(eq(replaySessions.organizationId, organizationId))
        .limit(1),
    ),
    exists(
      db
        .select({ id: replaySessions.id })
        .from(replaySessions)
        .where(and(eq(replaySessions.organizationId, organizationId), isNotNull(replaySessions.processedAt)))
        .limit(1),
    ),
    exists(
      db.select({ id: issues.id }).from(issues).where(eq(issues.organizationId, organizationId)).limit(1),
    ),
  ])
  return { keyCreated, batchReceived, sessionAnalysed, issueFound }
}
