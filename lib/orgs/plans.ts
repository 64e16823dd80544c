import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, PLANS, type Plan } from '@/db/schema'

/** The plan with everything (PLANS lists them cheapest first). */
export const HIGHEST_PLAN: Plan = PLANS[PLANS.length - 1]!

/** The cheapest plan: the spec's plan of a new organization, and DEFAULT_PLAN's own default. */
export const LOWEST_PLAN: Plan = PLANS[0]

/**
 * The plan of an organization created without one: the installation's first organization (its
 * operator's own) starts on the highest plan, since plans limit customers of a hosted service,
 * not whoever runs their own; later ones get the caller's default plan. The admin CLI passes
 * DEFAULT_PLAN from the configuration, which lib/orgs does not read itself.
 */
export async function planOfNewOrganization(db: DbOrTx, defaultPlan: Plan): Promise<Plan> {
  const [existing] = await db.select({ one: sql<number>`1` }).from(organizations).limit(1)
  return existing ? defaultPlan : HIGHEST_PLAN
}
