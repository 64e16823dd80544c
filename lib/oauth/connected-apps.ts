import { and, desc, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthClients, oauthConsents, organizations } from '@/db/schema'
import { parseScope } from './scopes'

export interface ConnectedApp {
  consentId: string
  clientId: string
  /** Untrusted text from registration: render it escaped. */
  clientName: string
  redirectUris: string[]
  scopes: string[]
  organization: { id: string; name: string }
  createdAt: Date
  /** When a token was last issued under this consent (code exchange or refresh). */
  lastUsedAt: Date | null
}

/** The Connected apps list: the user's active consents, newest first. */
export async function listConnectedApps(db: DbOrTx, userId: string): Promise<ConnectedApp[]> {
  const rows = await db
    .select({
      consentId: oauthConsents.id,
      clientId: oauthClients.clientId,
      clientName: oauthClients.clientName,
      redirectUris: oauthClients.redirectUris,
      scope: oauthConsents.scope,
      organizationId: organizations.id,
      organizationName: organizations.name,
      createdAt: oauthConsents.createdAt,
      lastUsedAt: oauthConsents.lastUsedAt,
    })
    .from(oauthConsents)
    .innerJoin(oauthClients, eq(oauthClients.clientId, oauthConsents.clientId))
    .innerJoin(organizations, eq(organizations.id, oauthConsents.organizationId))
    .where(
      and(eq(oauthConsents.userId, userId), isNull(oauthConsents.revokedAt), isNull(oauthClients.revokedAt)),
    )
    .orderBy(desc(oauthConsents.createdAt), desc(oauthConsents.id))
  return rows.map(({ scope, organizationId, organizationName, ...row }) => ({
    ...row,
    scopes: parseScope(scope),
    organization: { id: organizationId, name: organizationName },
  }))
}
