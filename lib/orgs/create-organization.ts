import type { DbOrTx } from '@/db/client'
import { organizations, type Plan } from '@/db/schema'
import { parseInput } from '@/lib/validation'
import { LOWEST_PLAN, planOfNewOrganization } from './plans'
import { OrganizationName, Plan as PlanSchema } from './schemas'

export interface OrganizationSummary {
  id: string
  name: string
  plan: Plan
}

/**
 * An explicit plan is kept; without one, see planOfNewOrganization. `defaultPlan` is the plan of
 * organizations after the first (the admin CLI passes DEFAULT_PLAN); callers that do not say
 * (tests, seeds) get the lowest, as DEFAULT_PLAN does when unset.
 */
export async function createOrganization(
  db: DbOrTx,
  input: { name: string; plan?: string; defaultPlan?: Plan },
): Promise<OrganizationSummary> {
  const name = parseInput(OrganizationName, input.name)
  const plan =
    input.plan === undefined
      ? await planOfNewOrganization(db, input.defaultPlan ?? LOWEST_PLAN)
      : parseInput(PlanSchema, input.plan)
  const [row] = await db
    .insert(organizations)
    .values({ name, plan })
    .returning({ id: organizations.id, name: organizations.name, plan: organizations.plan })
  return row!
}
