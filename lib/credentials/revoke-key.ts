import { and, eq, isNull, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { forgetCredentials } from './credential-cache'

/**
 * Revokes a key. Revoking twice is not an error: the answer keeps the first revocation time.
 * With `organizationId` (the dashboard), a key of another organization is "not found".
 */
export async function revokeKey(
  db: DbOrTx,
  input: { id: string; organizationId?: string },
): Promise<{ id: string; revokedAt: Date }> {
  if (!isUuid(input.id)) throw new NotFoundError(`Key not found: ${input.id}`)
  const scope = input.organizationId
    ? and(eq(credentials.id, input.id), eq(credentials.organizationId, input.organizationId))
    : eq(credentials.id, input.id)
  const [updated] = await db
    .update(credentials)
    .set({ revokedAt: sql`now()` })
    .where(and(scope, isNull(credentials.revokedAt)))
    .returning({ id: credentials.id, revokedAt: credentials.revokedAt })
  if (updated?.revokedAt) {
    // Callers pass the pool, not a transaction, so the revocation has committed here.
    forgetCredentials()
    return { id: updated.id, revokedAt: updated.revokedAt }
  }
  const [existing] = await db
    .select({ id: credentials.id, revokedAt: credentials.revokedAt })
    .from(credentials)
    .where(scope)
  if (!existing?.revokedAt) throw new NotFoundError(`Key not found: ${input.id}`)
  return { id: existing.id, revokedAt: existing.revokedAt }
}
