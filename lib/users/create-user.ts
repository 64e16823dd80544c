import type { Db } from '@/db/client'
import { memberships, type Role, users } from '@/db/schema'
import { ConflictError, isUniqueViolation } from '@/lib/errors'
import { getOrganization } from '@/lib/orgs/get-organization'
import { parseInput } from '@/lib/validation'
import { hashPassword } from './password'
import { Email, Password, PersonName, Role as RoleSchema } from './schemas'

export interface CreatedUser {
  id: string
  email: string
  orgId: string
  role: Role
}

/** Creates a user and their membership in one organization, or nothing at all. */
export async function createUser(
  db: Db,
  input: { email: string; password: string; organizationId: string; role?: string; name?: string },
): Promise<CreatedUser> {
  const email = parseInput(Email, input.email)
  const password = parseInput(Password, input.password)
  const role = parseInput(RoleSchema, input.role ?? 'member')
  const name = parseInput(PersonName, input.name)
  await getOrganization(db, input.organizationId)
  const passwordHash = await hashPassword(password)
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ email, name: name || null, passwordHash })
        .returning({ id: users.id, email: users.email })
      await tx.insert(memberships).values({ organizationId: input.organizationId, userId: user!.id, role })
      return { id: user!.id, email: user!.email, orgId: input.organizationId, role }
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A user with e-mail ${email} already exists`)
    throw error
  }
}
