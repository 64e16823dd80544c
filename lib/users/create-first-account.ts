import { sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { memberships, organizations, users } from '@/db/schema'
import { ForbiddenError } from '@/lib/errors'
import { HIGHEST_PLAN } from '@/lib/orgs/plans'
import { OrganizationName } from '@/lib/orgs/schemas'
import { parseInput } from '@/lib/validation'
import { hashPassword } from './password'
import { Email, Password, PersonName } from './schemas'

const SIGN_UP_CLOSED = 'Sign-up is closed: this installation already has an owner. Ask them to invite you.'

// Serialises concurrent first-run sign-ups: only one can find the installation empty.
const FIRST_ACCOUNT_LOCK_KEY = 7_424_002

export async function hasAnyUser(db: Db): Promise<boolean> {
  const rows = await db.select({ one: sql<number>`1` }).from(users).limit(1)
  return rows.length > 0
}

/**
 * First-run sign-up: on an installation with no users, creates the owner and their
 * organization, and makes that user the instance operator. Afterwards people join by
 * invitation or through the admin CLI.
 */
export async function createFirstAccount(
  db: Db,
  input: { email: string; password: string; name?: string; organizationName: string },
): Promise<{ userId: string; organizationId: string; email: string }> {
  const email = parseInput(Email, input.email)
  const password = parseInput(Password, input.password)
  const name = parseInput(PersonName, input.name)
  const organizationName = parseInput(OrganizationName, input.organizationName)
  // Cheap refusal first: once the installation has an owner, a sign-up POST costs no hash.
  if (await hasAnyUser(db)) throw new ForbiddenError(SIGN_UP_CLOSED)
  const passwordHash = await hashPassword(password)
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK_KEY})`)
    const existing = await tx.select({ one: sql<number>`1` }).from(users).limit(1)
    if (existing.length > 0) throw new ForbiddenError(SIGN_UP_CLOSED)
    const [org] = await tx
      .insert(organizations)
      // The operator's own organization: plans limit a hosted service's customers, not them.
      .values({ name: organizationName, plan: HIGHEST_PLAN })
      .returning({ id: organizations.id })
    const [user] = await tx
      .insert(users)
      .values({ email, name: name || null, passwordHash, isOperator: true })
      .returning({ id: users.id })
    await tx.insert(memberships).values({ organizationId: org!.id, userId: user!.id, role: 'owner' })
    return { userId: user!.id, organizationId: org!.id, email }
  })
}
