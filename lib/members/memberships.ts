import { asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { memberships, organizations, type Plan, type Role, users } from '@/db/schema'

export interface UserWithOrganizations {
  id: string
  email: string
  name: string | null
  /** May change organizations' plans (the instance operator role). */
  isOperator: boolean
  /** Oldest membership first: the first is the current organization (currentOrganization). */
  organizations: Membership[]
}

export interface Membership {
  id: string
  name: string
  plan: Plan
  role: Role
}

/**
 * The organization the user acts in on the dashboard: their oldest membership, the one they
 * founded or first joined. Undefined when their last membership was removed.
 */
export function currentOrganization<O>(user: { organizations: readonly O[] }): O | undefined {
  return user.organizations[0]
}

/** The signed-in user and the organizations they belong to, or null when the user is gone. */
export async function getUserWithOrganizations(
  db: DbOrTx,
  userId: string,
): Promise<UserWithOrganizations | null> {
  const [user] = await db
    .select({ id: users.id, email: users.email, name: users.name, isOperator: users.isOperator })
    .from(users)
    .where(eq(users.id, userId))
  if (!user) return null
  const orgs = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      plan: organizations.plan,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt))
  return { ...user, organizations: orgs }
}
