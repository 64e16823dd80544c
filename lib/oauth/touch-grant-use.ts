import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthClients, oauthConsents } from '@/db/schema'
import { lastUseStale, lastUseWrites } from '@/lib/db/last-used'
import { logger } from '@/lib/log'

// Every refresh of every user of an app would otherwise write the app's one oauth_clients
// row, so concurrent refreshes would queue on its row lock.
const writes = lastUseWrites()
const due = (key: string, now: number) => writes.due(key, now)
const stale = lastUseStale

/**
 * Records that a client and its consent issued tokens, at most once a minute per row. Called
 * after the grant's transaction committed and not awaited: it never holds up or fails the
 * answer. Resolves once the writes (if any) are done, which only tests wait for.
 */
export function touchGrantUse(
  db: DbOrTx,
  use: { clientId: string; consentId: string | null },
  now = Date.now(),
): Promise<void> {
  const pending: Promise<unknown>[] = []
  if (due(`client:${use.clientId}`, now))
    pending.push(
      db
        .update(oauthClients)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(oauthClients.clientId, use.clientId), stale(oauthClients.lastUsedAt))),
    )
  if (use.consentId && due(`consent:${use.consentId}`, now))
    pending.push(
      db
        .update(oauthConsents)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(oauthConsents.id, use.consentId), stale(oauthConsents.lastUsedAt))),
    )
  return Promise.all(pending).then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error, ...use }, 'could not record OAuth client use'),
  )
}
