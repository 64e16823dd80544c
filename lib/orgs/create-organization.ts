import type { DbOrTx } from '@/db/client'
import { organizations, type Plan } from '@/db/schema'
import { parseInput } from '@/lib/validation'
import { planOfNewOrganization } from './plans'
import { OrganizationName, Plan as PlanSchema } from './schemas'

export interface OrganizationSummary {
  id: string
  name: string
  plan: Plan
}

/** An explicit plan is kept; without one, see planOfNewOrganization. */
export async function createOrganization(
  db: DbOrTx,
  input: { name: string; plan?: string },
): Promise<OrganizationSummary> {
  const name = parseInput(OrganizationName, input.name)
  const plan = input.plan === undefined ? await planOfNewOrganization(db) : parseInput(PlanSchema, input.plan)
  const [row] = await db
    .insert(organizations)
    .values({ name, plan })
    .returning({ id: organizations.id, name: organizations.name, plan: organizations.plan })
  return row!
}
