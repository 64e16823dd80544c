import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthClients, oauthConsents } from '@/db/schema'
import { logger } from '@/lib/log'

// last_used_at is for people ("Connected apps: last used 3 minutes ago"), not for auditing.
// Every refresh of every user of an app would otherwise write the app's one oauth_clients
// row, so concurrent refreshes queue on its row lock; once a minute per row per process is
// plenty, and the database condition keeps it to once a minute across processes too.
const TOUCH_INTERVAL_MS = 60_000
const MAX_TRACKED = 10_000
const lastTouched = new Map<string, number>()

/** Whether `key` is due a write now; remembers that it got one. */
function due(key: string, now: number): boolean {
  const previous = lastTouched.get(key)
  if (previous !== undefined && now - previous < TOUCH_INTERVAL_MS) return false
  if (lastTouched.size >= MAX_TRACKED) lastTouched.clear()
  lastTouched.set(key, now)
  return true
}

const stale = (column: typeof oauthClients.lastUsedAt | typeof oauthConsents.lastUsedAt) =>
  or(isNull(column), lt(column, sql`now() - interval '60 seconds'`))

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
  const writes: Promise<unknown>[] = []
  if (due(`client:${use.clientId}`, now))
    writes.push(
      db
        .update(oauthClients)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(oauthClients.clientId, use.clientId), stale(oauthClients.lastUsedAt))),
    )
  if (use.consentId && due(`consent:${use.consentId}`, now))
    writes.push(
      db
        .update(oauthConsents)
        .set({ lastUsedAt: sql`now()` })
        .where(and(eq(oauthConsents.id, use.consentId), stale(oauthConsents.lastUsedAt))),
    )
  return Promise.all(writes).then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error, ...use }, 'could not record OAuth client use'),
  )
}
