import { eq } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { organizations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

/**
 * Takes the organization's row lock for the rest of the transaction. Membership and invitation
 * changes of one organization queue behind it, so a check such as "another owner remains" or
 * "no pending invitation for this e-mail" still holds when the write lands.
 */
export async function lockOrganization(tx: Tx, organizationId: string): Promise<void> {
  if (!isUuid(organizationId)) throw new NotFoundError(`Organization not found: ${organizationId}`)
  const [row] = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .for('update')
  if (!row) throw new NotFoundError(`Organization not found: ${organizationId}`)
}
