import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  memberships,
  oauthAccessTokens,
  oauthClients,
  oauthConsents,
  oauthTokenChains,
  organizations,
  type Role,
  users,
} from '@/db/schema'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { generateToken, hashToken } from '@/lib/credentials/tokens'
import { ConflictError, InvalidInputError, NotFoundError } from '@/lib/errors'
import { changeMemberRole, LAST_OWNER_MESSAGE, listMembers, removeMember } from '@/lib/members/members'
import { createOrganization } from '@/lib/orgs/create-organization'
import { renameOrganization } from '@/lib/orgs/rename-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

let counter = 0
async function addPerson(organizationId: string, role: Role, name: string | null = null) {
  counter++
  const [user] = await database.db
    .insert(users)
    .values({ email: `person${counter}@example.com`, name, passwordHash: 'x' })
    .returning({ id: users.id, email: users.email })
  await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  return user!
}

/** What the OAuth server leaves behind when a person connects an app: consent, chain, token. */
async function connectApp(organizationId: string, userId: string): Promise<string> {
  const clientId = `svc_client_${randomUUID().replace(/-/g, '')}`
  await database.db.insert(oauthClients).values({
    clientId,
    clientName: 'Agent',
    redirectUris: ['http://127.0.0.1:7777/callback'],
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: 'read:service',
  })
  const [consent] = await database.db
    .insert(oauthConsents)
    .values({ clientId, userId, organizationId, scope: 'read:service' })
    .returning({ id: oauthConsents.id })
  const [chain] = await database.db
    .insert(oauthTokenChains)
    .values({
      clientId,
      userId,
      organizationId,
      consentId: consent!.id,
      scope: 'read:service',
      resource: 'x',
    })
    .returning({ id: oauthTokenChains.id })
  const token = generateToken('svc_oat_')
  await database.db.insert(oauthAccessTokens).values({
    tokenHash: hashToken(token),
    chainId: chain!.id,
    clientId,
    organizationId,
    scope: 'read:service',
    resource: 'x',
    expiresAt: new Date(Date.now() + 3_600_000),
  })
  return token
}

const roleOf = async (organizationId: string, userId: string) => {
  const [row] = await database.db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
  return row?.role ?? null
}

describe('renaming an organization', () => {
  it('trims and stores the new name', async () => {
    const org = await createOrganization(database.db, { name: 'Acme' })
    await expect(
      renameOrganization(database.db, { organizationId: org.id, name: '  Acme Labs ' }),
    ).resolves.toEqual({
      id: org.id,
      name: 'Acme Labs',
    })
    const [row] = await database.db.select().from(organizations).where(eq(organizations.id, org.id))
    expect(row!.name).toBe('Acme Labs')
  })

  it('refuses an empty or overlong name and changes nothing', async () => {
    const org = await createOrganization(database.db, { name: 'Keep me' })
    await expect(renameOrganization(database.db, { organizationId: org.id, name: '   ' })).rejects.toThrow(
      'Organization name must not be empty',
    )
    await expect(
      renameOrganization(database.db, { organizationId: org.id, name: 'x'.repeat(101) }),
    ).rejects.toThrow(InvalidInputError)
    const [row] = await database.db.select().from(organizations).where(eq(organizations.id, org.id))
    expect(row!.name).toBe('Keep me')
  })

  it('answers not found for an unknown organization', async () => {
    await expect(
      renameOrganization(database.db, { organizationId: '00000000-0000-4000-8000-000000000000', name: 'X' }),
    ).rejects.toThrow(NotFoundError)
    await expect(renameOrganization(database.db, { organizationId: 'nope', name: 'X' })).rejects.toThrow(
      NotFoundError,
    )
  })
})

describe('members', () => {
  it('lists name, e-mail, role and joined date, first member first, only of the organization', async () => {
    const org = await createOrganization(database.db, { name: 'Listed' })
    const other = await createOrganization(database.db, { name: 'Elsewhere' })
    const owner = await addPerson(org.id, 'owner', 'Ada')
    const member = await addPerson(org.id, 'member')
    await addPerson(other.id, 'owner')
    const list = await listMembers(database.db, org.id)
    expect(list.map((m) => [m.email, m.name, m.role])).toEqual([
      [owner.email, 'Ada', 'owner'],
      [member.email, null, 'member'],
    ])
    expect(list[0]!.joinedAt).toBeInstanceOf(Date)
  })

  it('promotes and demotes, and refuses an unknown role or a stranger', async () => {
    const org = await createOrganization(database.db, { name: 'Roles' })
    const owner = await addPerson(org.id, 'owner')
    const member = await addPerson(org.id, 'member')
    const stranger = await addPerson((await createOrganization(database.db, { name: 'S' })).id, 'owner')
    await expect(
      changeMemberRole(database.db, { organizationId: org.id, userId: member.id, role: 'owner' }),
    ).resolves.toMatchObject({ role: 'owner', changed: true })
    await expect(
      changeMemberRole(database.db, { organizationId: org.id, userId: owner.id, role: 'member' }),
    ).resolves.toMatchObject({ role: 'member', changed: true })
    expect(await roleOf(org.id, owner.id)).toBe('member')
    await expect(
      changeMemberRole(database.db, { organizationId: org.id, userId: member.id, role: 'admin' }),
    ).rejects.toThrow('Role must be one of: owner, member')
    await expect(
      changeMemberRole(database.db, { organizationId: org.id, userId: stranger.id, role: 'owner' }),
    ).rejects.toThrow(NotFoundError)
    expect(await roleOf(org.id, stranger.id)).toBeNull()
  })

  it('never demotes the last owner', async () => {
    const org = await createOrganization(database.db, { name: 'Solo' })
    const owner = await addPerson(org.id, 'owner')
    await addPerson(org.id, 'member')
    await expect(
      changeMemberRole(database.db, { organizationId: org.id, userId: owner.id, role: 'member' }),
    ).rejects.toThrow(LAST_OWNER_MESSAGE)
    expect(await roleOf(org.id, owner.id)).toBe('owner')
  })

  it('lets exactly one of two concurrent demotions of the last two owners succeed', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await createOrganization(database.db, { name: `Race ${round}` })
      const a = await addPerson(org.id, 'owner')
      const b = await addPerson(org.id, 'owner')
      const results = await Promise.allSettled([
        changeMemberRole(database.db, { organizationId: org.id, userId: a.id, role: 'member' }),
        changeMemberRole(database.db, { organizationId: org.id, userId: b.id, role: 'member' }),
      ])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      const failure = results.find((r) => r.status === 'rejected')
      expect(failure?.status === 'rejected' && failure.reason).toBeInstanceOf(ConflictError)
      const owners = (await listMembers(database.db, org.id)).filter((m) => m.role === 'owner')
      expect(owners).toHaveLength(1)
    }
  })

  it('lets a demotion and a removal of the last two owners race without leaving none', async () => {
    const org = await createOrganization(database.db, { name: 'Race mixed' })
    const a = await addPerson(org.id, 'owner')
    const b = await addPerson(org.id, 'owner')
    const results = await Promise.allSettled([
      removeMember(database.db, { organizationId: org.id, userId: a.id }),
      changeMemberRole(database.db, { organizationId: org.id, userId: b.id, role: 'member' }),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect((await listMembers(database.db, org.id)).filter((m) => m.role === 'owner')).toHaveLength(1)
  })

  it('removes a member (and lets people leave) but never the last owner', async () => {
    const org = await createOrganization(database.db, { name: 'Removals' })
    const owner = await addPerson(org.id, 'owner')
    const second = await addPerson(org.id, 'owner')
    const member = await addPerson(org.id, 'member')
    await removeMember(database.db, { organizationId: org.id, userId: member.id })
    expect(await roleOf(org.id, member.id)).toBeNull()
    // The account itself stays: it may belong to other organizations.
    expect(await database.db.select().from(users).where(eq(users.id, member.id))).toHaveLength(1)
    // An owner leaving while another owner remains.
    await removeMember(database.db, { organizationId: org.id, userId: second.id })
    await expect(removeMember(database.db, { organizationId: org.id, userId: owner.id })).rejects.toThrow(
      LAST_OWNER_MESSAGE,
    )
    expect(await roleOf(org.id, owner.id)).toBe('owner')
    await expect(removeMember(database.db, { organizationId: org.id, userId: member.id })).rejects.toThrow(
      NotFoundError,
    )
  })

  it('cuts off the apps a removed member connected, at once, in that organization only', async () => {
    const org = await createOrganization(database.db, { name: 'Connected' })
    const other = await createOrganization(database.db, { name: 'Elsewhere' })
    await addPerson(org.id, 'owner')
    const member = await addPerson(org.id, 'member')
    await database.db
      .insert(memberships)
      .values({ organizationId: other.id, userId: member.id, role: 'member' })
    const here = await connectApp(org.id, member.id)
    const there = await connectApp(other.id, member.id)
    expect(await resolveBearer(database.db, `Bearer ${here}`)).toMatchObject({ organizationId: org.id })

    await removeMember(database.db, { organizationId: org.id, userId: member.id })

    expect(await resolveBearer(database.db, `Bearer ${here}`)).toBeNull()
    const consents = await database.db
      .select({ organizationId: oauthConsents.organizationId, revokedAt: oauthConsents.revokedAt })
      .from(oauthConsents)
      .where(eq(oauthConsents.userId, member.id))
    expect(consents.find((c) => c.organizationId === org.id)?.revokedAt).toBeInstanceOf(Date)
    expect(consents.find((c) => c.organizationId === other.id)?.revokedAt).toBeNull()
    expect(await resolveBearer(database.db, `Bearer ${there}`)).toMatchObject({ organizationId: other.id })
  })

  it('acts only inside the given organization', async () => {
    const mine = await createOrganization(database.db, { name: 'Mine' })
    const theirs = await createOrganization(database.db, { name: 'Theirs' })
    await addPerson(mine.id, 'owner')
    const theirMember = await addPerson(theirs.id, 'member')
    await addPerson(theirs.id, 'owner')
    await expect(
      removeMember(database.db, { organizationId: mine.id, userId: theirMember.id }),
    ).rejects.toThrow(NotFoundError)
    await expect(
      changeMemberRole(database.db, { organizationId: mine.id, userId: theirMember.id, role: 'owner' }),
    ).rejects.toThrow(NotFoundError)
    expect(await roleOf(theirs.id, theirMember.id)).toBe('member')
  })
})
