import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { organizations } from '@/db/schema'
import { getOrganization } from '@/lib/orgs/get-organization'
import { parseInput } from '@/lib/validation'

const RetentionDays = z.coerce
  .number({ error: 'Retention must be a whole number of days' })
  .int('Retention must be a whole number of days')
  .min(1, 'Retention must be at least 1 day')
  .max(3650, 'Retention can be at most 3650 days')

/** How many days of replay data an organization keeps (the retention sweep deletes older sessions). */
export async function setOrganizationRetention(
  db: DbOrTx,
  input: { organizationId: string; days: string | number },
): Promise<{ id: string; retentionDays: number }> {
  const days = parseInput(RetentionDays, input.days)
  const { id } = await getOrganization(db, input.organizationId)
  await db.update(organizations).set({ retentionDays: days }).where(eq(organizations.id, id))
  return { id, retentionDays: days }
}
