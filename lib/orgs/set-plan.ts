import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, type Plan } from '@/db/schema'
import { parseInput } from '@/lib/validation'
import { getOrganization } from './get-organization'
import { Plan as PlanSchema } from './schemas'

export async function setOrganizationPlan(
  db: DbOrTx,
  input: { organizationId: string; plan: string },
): Promise<{ id: string; plan: Plan }> {
  const plan = parseInput(PlanSchema, input.plan)
  const { id } = await getOrganization(db, input.organizationId)
  await db.update(organizations).set({ plan }).where(eq(organizations.id, id))
  return { id, plan }
}
