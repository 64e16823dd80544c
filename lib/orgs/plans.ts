import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { organizations, PLANS, type Plan } from '@/db/schema'
import { getConfig } from '@/lib/config'

/** The plan with everything (PLANS lists them cheapest first). */
export const HIGHEST_PLAN: Plan = PLANS[PLANS.length - 1]!

/**
 * The plan of an organization created without one: the installation's first organization (its
 * operator's own) starts on the highest plan, since plans limit customers of a hosted service,
 * not whoever runs their own; later ones get DEFAULT_PLAN (free unless the operator says).
 */
export async function planOfNewOrganization(db: DbOrTx): Promise<Plan> {
  const [existing] = await db.select({ one: sql<number>`1` }).from(organizations).limit(1)
  return existing ? getConfig().orgs.defaultPlan : HIGHEST_PLAN
}
