import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { lastUseStale, lastUseWrites } from '@/lib/db/last-used'
import { logger } from '@/lib/log'

const writes = lastUseWrites()

/** Records that a credential was used, at most once a minute; never fails the request. */
export function touchCredential(db: DbOrTx, credentialId: string, now = Date.now()): void {
  if (!writes.due(credentialId, now)) return
  db.update(credentials)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(credentials.id, credentialId), lastUseStale(credentials.lastUsedAt)))
    .then(
      () => undefined,
      (error: unknown) => logger.warn({ err: error, credentialId }, 'could not record credential use'),
    )
}
