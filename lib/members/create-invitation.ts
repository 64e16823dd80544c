import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { invitations, memberships, type Role, users } from '@/db/schema'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { ConflictError } from '@/lib/errors'
import { lockOrganization } from '@/lib/orgs/lock-organization'
import { Email, Role as RoleSchema } from '@/lib/users/schemas'
import { parseInput } from '@/lib/validation'
import { INVITATION_TTL_DAYS } from './invitation-link'

export interface CreatedInvitation {
  id: string
  email: string
  role: Role
  expiresAt: Date
  /** The raw one-time token: returned this once, stored only as its SHA-256. */
  token: string
  /** True when an earlier pending invitation for the same address was replaced (its link stops working). */
  replacedEarlier: boolean
}

/**
 * Invites an e-mail address into an organization. One pending invitation per address: inviting
 * again revokes the earlier link and issues a fresh one valid for seven days. Existing members
 * are refused. All of it runs under the organization's row lock, so two owners inviting the
 * same address at once still leave one pending invitation.
 */
export async function createInvitation(
  db: Db,
  input: { organizationId: string; email: string; role?: string; invitedByUserId?: string | null },
): Promise<CreatedInvitation> {
  const email = parseInput(Email, input.email)
  const role = parseInput(RoleSchema, input.role ?? 'member')
  const token = generateToken(TOKEN_PREFIXES.invitation)
  return db.transaction(async (tx) => {
    await lockOrganization(tx, input.organizationId)
    const [member] = await tx
      .select({ userId: users.id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.organizationId, input.organizationId), eq(users.email, email)))
    if (member) throw new ConflictError(`${email} is already a member of this organization.`)
    const replaced = await tx
      .update(invitations)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(invitations.organizationId, input.organizationId),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      )
      .returning({ id: invitations.id })
    const [row] = await tx
      .insert(invitations)
      .values({
        organizationId: input.organizationId,
        email,
        role,
        tokenHash: hashToken(token),
        invitedByUserId: input.invitedByUserId ?? null,
        expiresAt: sql`now() + make_interval(days => ${INVITATION_TTL_DAYS})`,
      })
      .returning({ id: invitations.id, expiresAt: invitations.expiresAt })
    return {
      id: row!.id,
      email,
      role,
      expiresAt: row!.expiresAt,
      token,
      replacedEarlier: replaced.length > 0,
    }
  })
}
