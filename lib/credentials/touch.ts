import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { logger } from '@/lib/log'

// lastUsedAt is for people ("last used 3 minutes ago"), not for auditing: one write per
// credential per minute per process is plenty and keeps the hot path free of writes.
const TOUCH_INTERVAL_MS = 60_000
const MAX_TRACKED = 10_000
const lastTouched = new Map<string, number>()

/** Records that a credential was used, at most once a minute; never fails the request. */
export function touchCredential(db: DbOrTx, credentialId: string, now = Date.now()): void {
  const previous = lastTouched.get(credentialId)
  if (previous !== undefined && now - previous < TOUCH_INTERVAL_MS) return
  if (lastTouched.size >= MAX_TRACKED) lastTouched.clear()
  lastTouched.set(credentialId, now)
  db.update(credentials)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(credentials.id, credentialId),
        or(isNull(credentials.lastUsedAt), lt(credentials.lastUsedAt, sql`now() - interval '60 seconds'`)),
      ),
    )
    .then(
      () => undefined,
      (error: unknown) => logger.warn({ err: error, credentialId }, 'could not record credential use'),
    )
}
