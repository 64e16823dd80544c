import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { parseInput } from '@/lib/validation'
import { OrganizationName } from './schemas'

/** Renames an organization; the name is validated like at creation (trimmed, 1–100 characters). */
export async function renameOrganization(
  db: DbOrTx,
  input: { organizationId: string; name: string },
): Promise<{ id: string; name: string }> {
  const name = parseInput(OrganizationName, input.name)
  if (!isUuid(input.organizationId))
    throw new NotFoundError(`Organization not found: ${input.organizationId}`)
  const [row] = await db
    .update(organizations)
    .set({ name })
    .where(eq(organizations.id, input.organizationId))
    .returning({ id: organizations.id, name: organizations.name })
  if (!row) throw new NotFoundError(`Organization not found: ${input.organizationId}`)
  return row
}
