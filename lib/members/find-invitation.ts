import { eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { invitations, organizations, type Role, users } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { looksLikeInvitationToken } from './invitation-link'

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired'

export interface InvitationView {
  organizationId: string
  organizationName: string
  email: string
  role: Role
  status: InvitationStatus
  expiresAt: Date
}

/** What the invitation page shows for a token; null for a token that was never issued. */
export async function findInvitation(db: DbOrTx, token: string): Promise<InvitationView | null> {
  if (!looksLikeInvitationToken(token)) return null
  const [row] = await db
    .select({
      organizationId: invitations.organizationId,
      organizationName: organizations.name,
      email: invitations.email,
      role: invitations.role,
      acceptedAt: invitations.acceptedAt,
      revokedAt: invitations.revokedAt,
      expiresAt: invitations.expiresAt,
      // The database's clock decides expiry, the same clock that set it.
      live: sql<boolean>`${invitations.expiresAt} > now()`,
    })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(eq(invitations.tokenHash, hashToken(token)))
  if (!row) return null
  const status: InvitationStatus = row.acceptedAt
    ? 'accepted'
    : row.revokedAt
      ? 'revoked'
      : row.live
        ? 'pending'
        : 'expired'
  return {
    organizationId: row.organizationId,
    organizationName: row.organizationName,
    email: row.email,
    role: row.role,
    status,
    expiresAt: row.expiresAt,
  }
}

/** Whether the invited address already has an account here (it signs in instead of signing up). */
export async function invitedAccountExists(db: DbOrTx, email: string): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()))
  return rows.length > 0
}
