import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { oauthConsents } from '@/db/schema'
import { isUniqueViolation } from '@/lib/errors'
import { isSubset, parseScope } from './scopes'

export interface ConsentKey {
  clientId: string
  userId: string
  organizationId: string
  /** One spelling (formatScope), so equal sets compare equal. */
  scope: string
}

/**
 * The user's active consents for this client that cover every requested scope, in the given
 * organizations (the ones the user still belongs to).
 */
export async function findCoveringConsents(
  db: DbOrTx,
  input: { clientId: string; userId: string; organizationIds: string[]; scope: string },
) {
  if (input.organizationIds.length === 0) return []
  const rows = await db
    .select({
      id: oauthConsents.id,
      organizationId: oauthConsents.organizationId,
      scope: oauthConsents.scope,
    })
    .from(oauthConsents)
    .where(
      and(
        eq(oauthConsents.clientId, input.clientId),
        eq(oauthConsents.userId, input.userId),
        inArray(oauthConsents.organizationId, input.organizationIds),
        isNull(oauthConsents.revokedAt),
      ),
    )
  const asked = parseScope(input.scope)
  return rows.filter((row) => isSubset(asked, parseScope(row.scope)))
}

async function findActive(db: DbOrTx, key: ConsentKey): Promise<string | undefined> {
  const [row] = await db
    .select({ id: oauthConsents.id })
    .from(oauthConsents)
    .where(
      and(
        eq(oauthConsents.clientId, key.clientId),
        eq(oauthConsents.userId, key.userId),
        eq(oauthConsents.organizationId, key.organizationId),
        eq(oauthConsents.scope, key.scope),
        isNull(oauthConsents.revokedAt),
      ),
    )
  return row?.id
}

/**
 * Records an approval per (client, user, organization, scope) and returns its id; approving
 * the same thing twice keeps one active record (a partial unique index settles races).
 */
export async function grantConsent(db: DbOrTx, key: ConsentKey): Promise<string> {
  const existing = await findActive(db, key)
  if (existing) return existing
  try {
    const [row] = await db.insert(oauthConsents).values(key).returning({ id: oauthConsents.id })
    return row!.id
  } catch (error) {
    const winner = isUniqueViolation(error) ? await findActive(db, key) : undefined
    if (winner) return winner
    throw error
  }
}
