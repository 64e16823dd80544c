import { eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '@/db/client'
import { organizations } from '@/db/schema'
import { cliWiring } from '@/inngest/cli'
import { orgCreate } from '@/lib/cli/commands/org'
import { ConfigError, parseConfig, setConfigForTests } from '@/lib/config'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createFirstAccount } from '@/lib/users/create-first-account'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

/** Each case starts on an empty installation: "the first organization" depends on it. */
async function withDatabase(run: (database: TestDatabase) => Promise<void>) {
  const database = await createTestDatabase()
  try {
    await run(database)
  } finally {
    await database.close()
  }
}

const withDefaultPlan = (plan: string | undefined) =>
  setConfigForTests(parseConfig({ ...process.env, DEFAULT_PLAN: plan }))

afterEach(() => setConfigForTests(undefined))

/** `admin org:create`: the caller that reads DEFAULT_PLAN and hands it to createOrganization. */
async function cliPlan(db: Db, values: { name: string; plan?: string }): Promise<unknown> {
  const io = { readStdin: async () => '', warn: () => undefined, wiring: cliWiring }
  return (await orgCreate.run(db, values, io)).json.plan
}

describe('plans of new organizations (self-hosted, issue 34)', () => {
  it('the first-run sign-up starts its organization on the highest plan; later ones start free', () =>
    withDatabase(async ({ db }) => {
      withDefaultPlan(undefined)
      const { organizationId } = await createFirstAccount(db, {
        email: 'owner@example.com',
        password: 'long enough pw',
        organizationName: 'Own installation',
      })
      const [first] = await db.select().from(organizations).where(eq(organizations.id, organizationId))
      expect(first!.plan).toBe('paid')
      expect(await cliPlan(db, { name: 'Second' })).toBe('free')
    }))

  it('the admin CLI’s first organization without --plan starts on the highest plan too', () =>
    withDatabase(async ({ db }) => {
      withDefaultPlan(undefined)
      expect(await cliPlan(db, { name: 'First' })).toBe('paid')
      expect(await cliPlan(db, { name: 'Second' })).toBe('free')
    }))

  it('DEFAULT_PLAN chooses the plan of organizations after the first', () =>
    withDatabase(async ({ db }) => {
      withDefaultPlan('paid')
      expect(await cliPlan(db, { name: 'First' })).toBe('paid')
      expect(await cliPlan(db, { name: 'Second' })).toBe('paid')
      withDefaultPlan('free')
      expect(await cliPlan(db, { name: 'Third' })).toBe('free')
    }))

  it('an explicit plan is kept, for the first organization as for the rest', () =>
    withDatabase(async ({ db }) => {
      withDefaultPlan('paid')
      expect(await cliPlan(db, { name: 'First', plan: 'free' })).toBe('free')
      expect(await cliPlan(db, { name: 'Second', plan: 'free' })).toBe('free')
      withDefaultPlan('free')
      expect(await cliPlan(db, { name: 'Third', plan: 'paid' })).toBe('paid')
    }))

  it('createOrganization takes the plan of later organizations from its caller, the lowest if none', () =>
    withDatabase(async ({ db }) => {
      withDefaultPlan('free')
      expect((await createOrganization(db, { name: 'First', defaultPlan: 'free' })).plan).toBe('paid')
      expect((await createOrganization(db, { name: 'Second', defaultPlan: 'paid' })).plan).toBe('paid')
      withDefaultPlan('paid')
      expect((await createOrganization(db, { name: 'Third' })).plan).toBe('free')
    }))

  it('DEFAULT_PLAN accepts only the plans there are', () => {
    expect(() => parseConfig({ ...process.env, DEFAULT_PLAN: 'gold' })).toThrow(ConfigError)
    expect(() => parseConfig({ ...process.env, DEFAULT_PLAN: 'gold' })).toThrow(
      'Invalid environment variable DEFAULT_PLAN: must be one of: free, paid',
    )
    expect(parseConfig({ ...process.env, DEFAULT_PLAN: '' }).orgs.defaultPlan).toBe('free')
  })
})
