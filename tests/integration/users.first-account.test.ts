import { count } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberships, organizations, users } from '@/db/schema'
import { ForbiddenError, InvalidInputError } from '@/lib/errors'
import { getUserWithOrganizations } from '@/lib/members/memberships'
import { authenticate } from '@/lib/users/authenticate'
import { createFirstAccount, hasAnyUser } from '@/lib/users/create-first-account'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database.close()
})

const counts = async () => {
  const [u] = await database.db.select({ n: count() }).from(users)
  const [o] = await database.db.select({ n: count() }).from(organizations)
  const [m] = await database.db.select({ n: count() }).from(memberships)
  return [u!.n, o!.n, m!.n]
}

describe('first-run sign-up', () => {
  it('rejects bad input before creating anything', async () => {
    await expect(
      createFirstAccount(database.db, {
        email: 'nope',
        password: 'long enough pw',
        organizationName: 'Acme',
      }),
    ).rejects.toThrow(InvalidInputError)
    await expect(
      createFirstAccount(database.db, { email: 'a@b.io', password: 'short', organizationName: 'Acme' }),
    ).rejects.toThrow('Password must be at least 10 characters')
    await expect(
      createFirstAccount(database.db, { email: 'a@b.io', password: 'long enough pw', organizationName: ' ' }),
    ).rejects.toThrow('Organization name must not be empty')
    expect(await counts()).toEqual([0, 0, 0])
    expect(await hasAnyUser(database.db)).toBe(false)
  })

  it('lets exactly one of two concurrent sign-ups create the owner', async () => {
    const attempts = await Promise.allSettled([
      createFirstAccount(database.db, {
        email: 'first@example.com',
        password: 'long enough pw',
        organizationName: 'One',
      }),
      createFirstAccount(database.db, {
        email: 'second@example.com',
        password: 'long enough pw',
        organizationName: 'Two',
      }),
    ])
    const fulfilled = attempts.filter((a) => a.status === 'fulfilled')
    const rejected = attempts.filter((a) => a.status === 'rejected')
    expect(fulfilled).toHaveLength(1)
    expect(rejected).toHaveLength(1)
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(ForbiddenError)
    expect(await counts()).toEqual([1, 1, 1])
    const { userId } = (fulfilled[0] as PromiseFulfilledResult<{ userId: string }>).value
    const user = await getUserWithOrganizations(database.db, userId)
    expect(user?.organizations).toHaveLength(1)
    // The first user runs the installation: the instance operator (docs/self-hosting.md).
    expect(user?.isOperator).toBe(true)
    expect(user?.organizations[0]?.role).toBe('owner')
  })

  it('is closed once a user exists', async () => {
    await expect(
      createFirstAccount(database.db, {
        email: 'late@example.com',
        password: 'long enough pw',
        organizationName: 'Late',
      }),
    ).rejects.toThrow('Sign-up is closed')
  })
})

describe('authenticate', () => {
  it('accepts the right password, whatever the e-mail case', async () => {
    expect(await hasAnyUser(database.db)).toBe(true)
    const [first] = await database.db.select().from(users)
    const user = await authenticate(database.db, first!.email.toUpperCase(), 'long enough pw')
    expect(user?.id).toBe(first!.id)
  })

  it('refuses a wrong password, an unknown e-mail and junk alike', async () => {
    const [first] = await database.db.select().from(users)
    expect(await authenticate(database.db, first!.email, 'wrong password')).toBeNull()
    expect(await authenticate(database.db, 'nobody@example.com', 'long enough pw')).toBeNull()
    expect(await authenticate(database.db, 'not an email', 'x')).toBeNull()
    expect(await authenticate(database.db, first!.email, 'x'.repeat(5000))).toBeNull()
  })
})
