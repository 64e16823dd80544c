import { and, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthClients } from '@/db/schema'
import { TOKEN_PREFIXES } from '@/lib/credentials/tokens'

export type OAuthClient = typeof oauthClients.$inferSelect

const CLIENT_ID_SHAPE = /^[A-Za-z0-9_-]+$/

/** Whether an id can be one of ours at all; anything else is unknown without a query. */
export function couldBeClientId(clientId: string | undefined): clientId is string {
  if (!clientId || clientId.length > 200 || !clientId.startsWith(TOKEN_PREFIXES.oauthClient)) return false
  // Our ids are URL-safe tokens; anything else (a NUL byte, which Postgres refuses) is unknown.
  return CLIENT_ID_SHAPE.test(clientId)
}

/** A registered, non-revoked client, or null (ids that cannot be ours cost no query). */
export async function findActiveClient(
  db: DbOrTx,
  clientId: string | undefined,
): Promise<OAuthClient | null> {
  if (!couldBeClientId(clientId)) return null
  const [row] = await db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.clientId, clientId), isNull(oauthClients.revokedAt)))
  return row ?? null
}
