import { eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, type Plan } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { parseInput } from '@/lib/validation'
import { Plan as PlanSchema } from './schemas'

export async function setOrganizationPlan(
  db: DbOrTx,
  input: { organizationId: string; plan: string },
): Promise<{ id: string; plan: Plan }> {
  const plan = parseInput(PlanSchema, input.plan)
  if (!isUuid(input.organizationId))
    throw new NotFoundError(`Organization not found: ${input.organizationId}`)
  const [row] = await db
    .update(organizations)
    .set({ plan, updatedAt: sql`now()` })
    .where(eq(organizations.id, input.organizationId))
    .returning({ id: organizations.id, plan: organizations.plan })
  if (!row) throw new NotFoundError(`Organization not found: ${input.organizationId}`)
  return row
}
