import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invitations, memberships, type Role, users } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '@/lib/errors'
import { acceptInvitation } from '@/lib/members/accept-invitation'
import { acceptInvitationWithNewAccount } from '@/lib/members/accept-with-new-account'
import { createInvitation } from '@/lib/members/create-invitation'
import { findInvitation, invitedAccountExists } from '@/lib/members/find-invitation'
import { INVALID_INVITATION, invitationUrl } from '@/lib/members/invitation-link'
import { listPendingInvitations } from '@/lib/members/list-invitations'
import { getUserWithOrganizations } from '@/lib/members/memberships'
import { revokeInvitation } from '@/lib/members/revoke-invitation'
import { createOrganization } from '@/lib/orgs/create-organization'
import { authenticate } from '@/lib/users/authenticate'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

let counter = 0
async function orgWithOwner(name = 'Acme') {
  const org = await createOrganization(database.db, { name })
  const owner = await addUser(org.id, 'owner')
  return { org, owner }
}
async function addUser(organizationId: string | null, role: Role = 'member', email?: string) {
  counter++
  const [user] = await database.db
    .insert(users)
    .values({ email: email ?? `user${counter}@example.com`, passwordHash: 'x' })
    .returning({ id: users.id, email: users.email })
  if (organizationId) await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  return user!
}
const membership = async (organizationId: string, userId: string) => {
  const [row] = await database.db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
  return row?.role ?? null
}
const PASSWORD = 'a long enough password'

describe('creating invitations', () => {
  it('normalises the address, stores only the token hash and expires in 7 days', async () => {
    const { org, owner } = await orgWithOwner()
    const created = await createInvitation(database.db, {
      organizationId: org.id,
      email: '  Grace.Hopper@Example.COM ',
      role: 'owner',
      invitedByUserId: owner.id,
    })
    expect(created).toMatchObject({
      email: 'grace.hopper@example.com',
      role: 'owner',
      replacedEarlier: false,
    })
    expect(created.token).toMatch(/^svc_inv_[A-Za-z0-9_-]{43}$/)
    const [row] = await database.db.select().from(invitations).where(eq(invitations.id, created.id))
    expect(row!.tokenHash).toBe(hashToken(created.token))
    expect(JSON.stringify(row)).not.toContain(created.token)
    const days = (created.expiresAt.getTime() - row!.createdAt.getTime()) / 86_400_000
    expect(days).toBeCloseTo(7, 3)
    expect(invitationUrl('https://svc.example', created.token)).toBe(
      `https://svc.example/invite/${created.token}`,
    )
    const pending = await listPendingInvitations(database.db, org.id)
    expect(pending).toHaveLength(1)
    expect(pending[0]).toMatchObject({
      email: 'grace.hopper@example.com',
      role: 'owner',
      invitedBy: owner.email,
    })
  })

  it('refuses a bad address or role and creates nothing', async () => {
    const { org } = await orgWithOwner()
    await expect(
      createInvitation(database.db, { organizationId: org.id, email: 'not-an-address' }),
    ).rejects.toThrow('E-mail must be a valid address')
    await expect(
      createInvitation(database.db, { organizationId: org.id, email: 'a@example.com', role: 'admin' }),
    ).rejects.toThrow(InvalidInputError)
    expect(await listPendingInvitations(database.db, org.id)).toEqual([])
  })

  it('refuses to invite an existing member, whatever the case of the address', async () => {
    const { org, owner } = await orgWithOwner()
    await expect(
      createInvitation(database.db, { organizationId: org.id, email: owner.email.toUpperCase() }),
    ).rejects.toThrow(`${owner.email} is already a member of this organization.`)
    await expect(
      createInvitation(database.db, { organizationId: org.id, email: owner.email }),
    ).rejects.toThrow(ConflictError)
    expect(await listPendingInvitations(database.db, org.id)).toEqual([])
  })

  it('keeps one pending invitation per address: inviting again renews it and kills the old link', async () => {
    const { org } = await orgWithOwner()
    const first = await createInvitation(database.db, { organizationId: org.id, email: 'dup@example.com' })
    const second = await createInvitation(database.db, {
      organizationId: org.id,
      email: 'DUP@example.com',
      role: 'owner',
    })
    expect(second.replacedEarlier).toBe(true)
    const pending = await listPendingInvitations(database.db, org.id)
    expect(pending.map((p) => [p.id, p.role])).toEqual([[second.id, 'owner']])
    expect((await findInvitation(database.db, first.token))?.status).toBe('revoked')
    expect((await findInvitation(database.db, second.token))?.status).toBe('pending')
  })

  it('keeps one pending invitation when two owners invite the same address at once', async () => {
    const { org } = await orgWithOwner()
    await Promise.all([
      createInvitation(database.db, { organizationId: org.id, email: 'race@example.com' }),
      createInvitation(database.db, { organizationId: org.id, email: 'race@example.com' }),
    ])
    expect(await listPendingInvitations(database.db, org.id)).toHaveLength(1)
  })

  it('lets an existing user of another organization be invited', async () => {
    const { org } = await orgWithOwner()
    const { org: other } = await orgWithOwner('Other')
    const elsewhere = await addUser(other.id)
    await expect(
      createInvitation(database.db, { organizationId: org.id, email: elsewhere.email }),
    ).resolves.toMatchObject({ email: elsewhere.email })
  })
})

describe('revoking invitations', () => {
  it('stops the link, only within the owner’s organization, once', async () => {
    const { org } = await orgWithOwner()
    const { org: other } = await orgWithOwner('Other')
    const created = await createInvitation(database.db, { organizationId: org.id, email: 'rev@example.com' })
    await expect(revokeInvitation(database.db, { organizationId: other.id, id: created.id })).rejects.toThrow(
      NotFoundError,
    )
    expect((await findInvitation(database.db, created.token))?.status).toBe('pending')
    await expect(revokeInvitation(database.db, { organizationId: org.id, id: created.id })).resolves.toEqual({
      id: created.id,
      email: 'rev@example.com',
    })
    await expect(revokeInvitation(database.db, { organizationId: org.id, id: created.id })).rejects.toThrow(
      NotFoundError,
    )
    await expect(revokeInvitation(database.db, { organizationId: org.id, id: 'nope' })).rejects.toThrow(
      NotFoundError,
    )
    expect(await listPendingInvitations(database.db, org.id)).toEqual([])
    const invitee = await addUser(null, 'member', 'rev@example.com')
    await expect(acceptInvitation(database.db, created.token, invitee)).rejects.toThrow(INVALID_INVITATION)
    expect(await membership(org.id, invitee.id)).toBeNull()
  })
})

describe('accepting with an existing account', () => {
  it('adds the membership with the invited role, once', async () => {
    const { org } = await orgWithOwner()
    const invitee = await addUser(null, 'member', 'joiner@example.com')
    const created = await createInvitation(database.db, {
      organizationId: org.id,
      email: 'Joiner@Example.com',
      role: 'owner',
    })
    const view = await findInvitation(database.db, created.token)
    expect(view).toMatchObject({ organizationName: 'Acme', email: 'joiner@example.com', status: 'pending' })
    await expect(
      acceptInvitation(database.db, created.token, { id: invitee.id, email: 'JOINER@example.com' }),
    ).resolves.toEqual({ organizationId: org.id, role: 'owner', alreadyMember: false })
    expect(await membership(org.id, invitee.id)).toBe('owner')
    expect((await findInvitation(database.db, created.token))?.status).toBe('accepted')
    await expect(acceptInvitation(database.db, created.token, invitee)).rejects.toThrow(INVALID_INVITATION)
    expect(await listPendingInvitations(database.db, org.id)).toEqual([])
  })

  it('lets only one of two concurrent acceptances use the link', async () => {
    const { org } = await orgWithOwner()
    const invitee = await addUser(null, 'member', 'twice@example.com')
    const created = await createInvitation(database.db, { organizationId: org.id, email: invitee.email })
    const results = await Promise.allSettled([
      acceptInvitation(database.db, created.token, invitee),
      acceptInvitation(database.db, created.token, invitee),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(await membership(org.id, invitee.id)).toBe('member')
  })

  it('refuses another account than the invited address and leaves the link usable', async () => {
    const { org } = await orgWithOwner()
    const intruder = await addUser(null, 'member', 'intruder@example.com')
    const created = await createInvitation(database.db, {
      organizationId: org.id,
      email: 'right@example.com',
    })
    await expect(acceptInvitation(database.db, created.token, intruder)).rejects.toThrow(ForbiddenError)
    await expect(acceptInvitation(database.db, created.token, intruder)).rejects.toThrow(
      'This invitation is for right@example.com, but you are signed in as intruder@example.com',
    )
    expect(await membership(org.id, intruder.id)).toBeNull()
    expect((await findInvitation(database.db, created.token))?.status).toBe('pending')
  })

  it('refuses an expired link', async () => {
    const { org } = await orgWithOwner()
    const invitee = await addUser(null, 'member', 'late@example.com')
    const created = await createInvitation(database.db, { organizationId: org.id, email: invitee.email })
    await database.db
      .update(invitations)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(invitations.id, created.id))
    expect((await findInvitation(database.db, created.token))?.status).toBe('expired')
    expect(await listPendingInvitations(database.db, org.id)).toEqual([])
    await expect(acceptInvitation(database.db, created.token, invitee)).rejects.toThrow(INVALID_INVITATION)
    await expect(
      acceptInvitationWithNewAccount(database.db, created.token, { password: PASSWORD }),
    ).rejects.toThrow(INVALID_INVITATION)
    expect(await membership(org.id, invitee.id)).toBeNull()
  })

  it('treats unknown and malformed tokens as invalid', async () => {
    const invitee = await addUser(null)
    expect(await findInvitation(database.db, 'svc_inv_unknown')).toBeNull()
    expect(await findInvitation(database.db, 'garbage')).toBeNull()
    expect(await findInvitation(database.db, `svc_inv_${'a'.repeat(300)}`)).toBeNull()
    await expect(acceptInvitation(database.db, 'svc_inv_unknown', invitee)).rejects.toThrow(NotFoundError)
  })

  it('joins a user of another organization to this one as well', async () => {
    const { org } = await orgWithOwner('Second')
    const { org: first } = await orgWithOwner('First')
    const invitee = await addUser(first.id, 'owner')
    const created = await createInvitation(database.db, { organizationId: org.id, email: invitee.email })
    await acceptInvitation(database.db, created.token, invitee)
    const user = await getUserWithOrganizations(database.db, invitee.id)
    expect(user?.organizations.map((o) => [o.name, o.role])).toEqual([
      ['First', 'owner'],
      ['Second', 'member'],
    ])
  })
})

describe('accepting with a new account', () => {
  it('creates the account with the invited address, its membership, and uses up the link', async () => {
    const { org } = await orgWithOwner()
    const created = await createInvitation(database.db, { organizationId: org.id, email: 'New@Example.com' })
    expect(await invitedAccountExists(database.db, 'new@example.com')).toBe(false)
    const account = await acceptInvitationWithNewAccount(database.db, created.token, {
      name: ' Grace ',
      password: PASSWORD,
    })
    expect(account).toMatchObject({ email: 'new@example.com', organizationId: org.id, role: 'member' })
    expect(await membership(org.id, account.userId)).toBe('member')
    expect(await authenticate(database.db, 'new@example.com', PASSWORD)).toMatchObject({ name: 'Grace' })
    expect(await invitedAccountExists(database.db, 'NEW@example.com')).toBe(true)
    await expect(
      acceptInvitationWithNewAccount(database.db, created.token, { password: PASSWORD }),
    ).rejects.toThrow(INVALID_INVITATION)
  })

  it('refuses a short password and leaves the invitation pending, with no account', async () => {
    const { org } = await orgWithOwner()
    const created = await createInvitation(database.db, { organizationId: org.id, email: 'weak@example.com' })
    await expect(
      acceptInvitationWithNewAccount(database.db, created.token, { password: 'short' }),
    ).rejects.toThrow('Password must be at least 10 characters')
    expect(await invitedAccountExists(database.db, 'weak@example.com')).toBe(false)
    expect((await findInvitation(database.db, created.token))?.status).toBe('pending')
  })

  it('sends someone who already has an account to sign in instead', async () => {
    const { org } = await orgWithOwner()
    const existing = await addUser(null, 'member', 'has-account@example.com')
    const created = await createInvitation(database.db, { organizationId: org.id, email: existing.email })
    await expect(
      acceptInvitationWithNewAccount(database.db, created.token, { password: PASSWORD }),
    ).rejects.toThrow('An account with has-account@example.com already exists. Sign in with it')
    expect((await findInvitation(database.db, created.token))?.status).toBe('pending')
    expect(await membership(org.id, existing.id)).toBeNull()
  })

  it('creates one account when the same link is submitted twice at once', async () => {
    const { org } = await orgWithOwner()
    const created = await createInvitation(database.db, {
      organizationId: org.id,
      email: 'double@example.com',
    })
    const results = await Promise.allSettled([
      acceptInvitationWithNewAccount(database.db, created.token, { password: PASSWORD }),
      acceptInvitationWithNewAccount(database.db, created.token, { password: PASSWORD }),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const rows = await database.db.select().from(users).where(eq(users.email, 'double@example.com'))
    expect(rows).toHaveLength(1)
  })
})
