/**
 * Settings → Alerts through its server actions: only owners manage rules, the form's values
 * reach the domain's validation, and its messages come back as they are.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createRuleAction,
  deleteRuleAction,
  pauseRuleAction,
  updateRuleAction,
} from '@/app/(dashboard)/settings/alerts/actions'
import { alertRules, memberships, type Role, users } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { seedSlackIntegration } from '../helpers/alerts'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedIn } from '../helpers/signed-in'

vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))
vi.mock('next/headers', () => ({
  headers: async () => new Headers({ 'x-forwarded-for': '203.0.113.7' }),
  cookies: async () => ({ get: () => undefined, getAll: () => [] }),
}))

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
})
afterAll(async () => {
  useDatabase(undefined)
  await database?.close()
})

async function person(organizationId: string, role: Role): Promise<string> {
  const email = `${role}-${randomUUID()}@example.com`
  const [user] = await database.db.insert(users).values({ email, passwordHash: 'x', name: role }).returning()
  await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
  return `next-auth.session-token=${token}`
}

function form(fields: Record<string, string | string[]>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields))
    for (const v of Array.isArray(value) ? value : [value]) data.append(name, v)
  return data
}

describe('Settings → Alerts actions', () => {
  it('let an owner create, pause and delete a rule, with clear validation messages', async () => {
    const org = await createOrganization(database.db, { name: 'Acme' })
    const integration = await seedSlackIntegration(
      database.db,
      org.id,
      'https://hooks.slack.com/services/T/B/x',
    )
    signedIn.cookie = await person(org.id, 'owner')
    const fields = {
      name: 'Critical issues',
      trigger: 'issue_created',
      priorities: ['critical', 'high'],
      urlContains: '/checkout',
      destination: `integration:${integration.id}`,
      mode: 'immediate',
      windowMinutes: '15',
      maxPerWindow: '3',
      issueCooldownMinutes: '30',
    }
    expect(await createRuleAction(null, form({ ...fields, windowMinutes: '2000' }))).toEqual({
      ok: false,
      error: 'The window must be at most 1440.',
    })
    expect(
      await createRuleAction(null, form({ ...fields, destination: `endpoint:${randomUUID()}` })),
    ).toEqual({
      ok: false,
      error: 'The webhook endpoint is not active in this organization.',
    })
    expect(await createRuleAction(null, form(fields))).toEqual({
      ok: true,
      message: 'Rule Critical issues created.',
    })
    const [rule] = await database.db.select().from(alertRules).where(eq(alertRules.organizationId, org.id))
    expect(rule).toMatchObject({
      filters: { priorities: ['critical', 'high'], urlContains: '/checkout' },
      windowMinutes: 15,
      maxPerWindow: 3,
      issueCooldownMinutes: 30,
    })
    expect(
      await updateRuleAction(null, form({ ...fields, ruleId: rule!.id, mode: 'digest', priorities: [] })),
    ).toEqual({ ok: true, message: 'Rule Critical issues saved.' })
    const [edited] = await database.db.select().from(alertRules).where(eq(alertRules.id, rule!.id))
    expect(edited).toMatchObject({ mode: 'digest', filters: { urlContains: '/checkout' } })
    expect(edited!.filters.priorities).toBeUndefined()
    expect(await pauseRuleAction(rule!.id, true)).toEqual({ ok: true, message: 'Paused.' })
    const [paused] = await database.db.select().from(alertRules).where(eq(alertRules.id, rule!.id))
    expect(paused!.pausedAt).not.toBeNull()
    expect(await deleteRuleAction(rule!.id)).toEqual({ ok: true, message: 'Deleted.' })
    expect(await deleteRuleAction(rule!.id)).toMatchObject({ ok: false })
  })

  it('refuse members who are not owners, and rules of another organization', async () => {
    const org = await createOrganization(database.db, { name: 'Acme' })
    const other = await createOrganization(database.db, { name: 'Other' })
    const integration = await seedSlackIntegration(
      database.db,
      other.id,
      'https://hooks.slack.com/services/T/B/y',
    )
    const [foreign] = await database.db
      .insert(alertRules)
      .values({
        organizationId: other.id,
        name: 'Theirs',
        trigger: 'issue_created',
        integrationId: integration.id,
      })
      .returning()
    signedIn.cookie = await person(org.id, 'member')
    expect(await createRuleAction(null, form({ name: 'x' }))).toMatchObject({ ok: false })
    signedIn.cookie = await person(org.id, 'owner')
    expect(await pauseRuleAction(foreign!.id, true)).toMatchObject({ ok: false })
    expect(
      await updateRuleAction(
        null,
        form({
          ruleId: foreign!.id,
          name: 'Mine now',
          trigger: 'issue_created',
          destination: `integration:${integration.id}`,
        }),
      ),
    ).toMatchObject({ ok: false })
    expect(await deleteRuleAction(foreign!.id)).toMatchObject({ ok: false })
    const [still] = await database.db.select().from(alertRules).where(eq(alertRules.id, foreign!.id))
    expect(still!.pausedAt).toBeNull()
  })
})
