import { asc, count, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { memberships, organizations, type Plan } from '@/db/schema'

export interface OrganizationSummary {
  id: string
  name: string
  plan: Plan
  members: number
  createdAt: Date
}

/** Every organization of the installation, oldest first: for the operator's CLI. */
export async function listOrganizations(db: DbOrTx): Promise<OrganizationSummary[]> {
  return db
    .select({
      id: organizations.id,
      name: organizations.name,
      plan: organizations.plan,
      members: count(memberships.userId),
      createdAt: organizations.createdAt,
    })
    .from(organizations)
    .leftJoin(memberships, eq(memberships.organizationId, organizations.id))
    .groupBy(organizations.id)
    .orderBy(asc(organizations.createdAt), asc(organizations.id))
}
