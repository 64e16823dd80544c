import { and, asc, count, eq } from 'drizzle-orm'
import type { Db, DbOrTx, Tx } from '@/db/client'
import { memberships, type Role, users } from '@/db/schema'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { ConflictError, isUuid, NotFoundError } from '@/lib/errors'
import { lockOrganization } from '@/lib/orgs/lock-organization'
import { Role as RoleSchema } from '@/lib/users/schemas'
import { parseInput } from '@/lib/validation'
import { revokeMemberAccess } from './revoke-member-access'

export interface Member {
  userId: string
  name: string | null
  email: string
  role: Role
  joinedAt: Date
}

export const LAST_OWNER_MESSAGE =
  'An organization needs at least one owner. Make another member an owner first.'

/** Everyone in the organization, oldest membership first (the founder leads the list). */
export async function listMembers(db: DbOrTx, organizationId: string): Promise<Member[]> {
  if (!isUuid(organizationId)) return []
  return db
    .select({
      userId: users.id,
      name: users.name,
      email: users.email,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.createdAt), asc(users.email))
}

async function membershipFor(tx: Tx, organizationId: string, userId: string): Promise<{ role: Role }> {
  const [row] = isUuid(userId)
    ? await tx
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
    : []
  if (!row) throw new NotFoundError('That person is not a member of this organization.')
  return row
}

async function ownerCount(tx: Tx, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'owner')))
  return row?.n ?? 0
}

/**
 * Gives a member another role. Demoting the last owner is refused; the organization row lock
 * makes two concurrent demotions of the last two owners resolve one at a time, so one fails.
 */
export async function changeMemberRole(
  db: Db,
  input: { organizationId: string; userId: string; role: string },
): Promise<{ userId: string; role: Role; changed: boolean }> {
  const role = parseInput(RoleSchema, input.role)
  return db.transaction(async (tx) => {
    await lockOrganization(tx, input.organizationId)
    const current = await membershipFor(tx, input.organizationId, input.userId)
    if (current.role === role) return { userId: input.userId, role, changed: false }
    if (current.role === 'owner' && (await ownerCount(tx, input.organizationId)) <= 1)
      throw new ConflictError(LAST_OWNER_MESSAGE)
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.organizationId, input.organizationId), eq(memberships.userId, input.userId)))
    return { userId: input.userId, role, changed: true }
  })
}

/**
 * Removes someone from the organization (an owner removing a member, or a person leaving).
 * Their account stays: it may belong to other organizations; the apps they connected lose
 * access to this one at once. The last owner cannot go.
 */
export async function removeMember(
  db: Db,
  input: { organizationId: string; userId: string },
): Promise<{ userId: string }> {
  const removed = await db.transaction(async (tx) => {
    await lockOrganization(tx, input.organizationId)
    const current = await membershipFor(tx, input.organizationId, input.userId)
    if (current.role === 'owner' && (await ownerCount(tx, input.organizationId)) <= 1)
      throw new ConflictError(LAST_OWNER_MESSAGE)
    await tx
      .delete(memberships)
      .where(and(eq(memberships.organizationId, input.organizationId), eq(memberships.userId, input.userId)))
    await revokeMemberAccess(tx, input)
    return { userId: input.userId }
  })
  // After the commit, not inside it: a lookup between a forget and the commit would cache
  // the rows as they were before the removal.
  forgetCredentials()
  return removed
}
