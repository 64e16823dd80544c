/**
 * The organization's network details policy (docs/network-details.md): the domain function
 * shared by Settings and the admin CLI, its input bounds, and that only owners change it.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeNetworkPolicyAction } from '@/app/(dashboard)/settings/actions'
import { memberships, organizations, type Role, users } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { useDatabase } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { createOrganization } from '@/lib/orgs/create-organization'
import { getNetworkPolicy, setNetworkPolicy } from '@/lib/orgs/network-policy'
import { MAX_REDACT_KEY_CHARS, MAX_REDACT_KEYS, parseRedactKeys } from '@/lib/orgs/network-policy-input'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedIn } from '../helpers/signed-in'

// The session of whoever `signedIn.cookie` names; the action, domain code and database are real.
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

async function stored(organizationId: string) {
  const [row] = await database.db
    .select({ policy: organizations.networkDetails, keys: organizations.networkRedactKeys })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
  return row!
}

async function person(organizationId: string, role: Role): Promise<string> {
  const email = `${role}-${randomUUID()}@example.com`
  const [user] = await database.db.insert(users).values({ email, passwordHash: 'x', name: role }).returning()
  await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  // The cookie next-auth's JWT session strategy sets after sign-in.
  const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
  return `next-auth.session-token=${token}`
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

describe('parseRedactKeys', () => {
  it('splits on commas and new lines, trims, lower-cases and drops repeats and blanks', () => {
    expect(parseRedactKeys(' cardNumber, iban\r\nSSN\n\n,cardnumber , x-api_key ')).toEqual([
      'cardnumber',
      'iban',
      'ssn',
      'x-api_key',
    ])
    expect(parseRedactKeys('')).toEqual([])
  })

  it.each([
    ['card number', 'may hold only letters, digits, _ and -'],
    ['card.number', 'may hold only letters, digits, _ and -'],
    ['ключ', 'may hold only letters, digits, _ and -'],
    ['k'.repeat(MAX_REDACT_KEY_CHARS + 1), `longer than ${MAX_REDACT_KEY_CHARS} characters`],
    [Array.from({ length: MAX_REDACT_KEYS + 1 }, (_, i) => `k${i}`).join(','), `At most ${MAX_REDACT_KEYS}`],
    ['a,'.repeat(100_000), 'too long'],
  ])('refuses %#', (input, message) => {
    expect(() => parseRedactKeys(input)).toThrow(InvalidInputError)
    expect(() => parseRedactKeys(input)).toThrow(message)
  })

  it('accepts the largest list', () => {
    const words = Array.from({ length: MAX_REDACT_KEYS }, (_, i) => `${i}`.padEnd(MAX_REDACT_KEY_CHARS, 'k'))
    expect(parseRedactKeys(words.join('\n'))).toHaveLength(MAX_REDACT_KEYS)
  })
})

describe('setNetworkPolicy', () => {
  it('starts at redact with no extra words, and changes policy and words together or apart', async () => {
    const org = await createOrganization(database.db, { name: 'Policy' })
    expect(await getNetworkPolicy(database.db, org.id)).toEqual({
      id: org.id,
      networkDetails: 'redact',
      networkRedactKeys: [],
    })
    await expect(
      setNetworkPolicy(database.db, { organizationId: org.id, policy: 'drop', redactKeys: 'iban, ssn' }),
    ).resolves.toEqual({ id: org.id, networkDetails: 'drop', networkRedactKeys: ['iban', 'ssn'] })
    await setNetworkPolicy(database.db, { organizationId: org.id, policy: ' redact ' })
    expect(await stored(org.id)).toEqual({ policy: 'redact', keys: ['iban', 'ssn'] })
    await setNetworkPolicy(database.db, { organizationId: org.id, redactKeys: '' })
    expect(await stored(org.id)).toEqual({ policy: 'redact', keys: [] })
  })

  it('changes nothing on bad input, even when the other half is valid', async () => {
    const org = await createOrganization(database.db, { name: 'Unchanged' })
    await setNetworkPolicy(database.db, { organizationId: org.id, policy: 'drop', redactKeys: 'iban' })
    await expect(
      setNetworkPolicy(database.db, { organizationId: org.id, policy: 'keep', redactKeys: 'ssn' }),
    ).rejects.toThrow('Network details policy must be one of: redact, drop')
    await expect(
      setNetworkPolicy(database.db, { organizationId: org.id, policy: 'redact', redactKeys: 'bad word' }),
    ).rejects.toThrow(InvalidInputError)
    expect(await stored(org.id)).toEqual({ policy: 'drop', keys: ['iban'] })
  })

  it('answers not found for an unknown organization', async () => {
    for (const organizationId of ['00000000-0000-4000-8000-000000000000', 'nope'])
      await expect(setNetworkPolicy(database.db, { organizationId, policy: 'drop' })).rejects.toThrow(
        NotFoundError,
      )
  })
})

describe('admin CLI org:network-details', () => {
  async function cli(...argv: string[]) {
    const stdout: string[] = []
    const stderr: string[] = []
    const code = await runAdminCli(argv, {
      stdout: (line) => stdout.push(line),
      stderr: (line) => stderr.push(line),
      env: {},
      database,
    })
    return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') }
  }

  it('shows, sets, and refuses bad input without changing anything', async () => {
    const org = await createOrganization(database.db, { name: 'Cli' })
    const shown = await cli('org:network-details', '--org', org.id, '--json')
    expect(shown).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(shown.stdout)).toEqual({ id: org.id, networkDetails: 'redact', networkRedactKeys: [] })

    const set = await cli(
      'org:network-details',
      '--org',
      org.id,
      '--policy',
      'drop',
      '--redact-keys',
      'IBAN,ssn',
    )
    expect(set).toMatchObject({ code: 0, stderr: '' })
    expect(set.stdout).toBe(
      `Organization ${org.id}: network details drop, extra redacted key words: iban, ssn`,
    )

    const bad = await cli(
      'org:network-details',
      '--org',
      org.id,
      '--policy',
      'redact',
      '--redact-keys',
      'a b',
    )
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('may hold only letters, digits, _ and -')
    const missing = await cli('org:network-details', '--policy', 'drop')
    expect(missing.code).toBe(2)
    expect(await stored(org.id)).toEqual({ policy: 'drop', keys: ['iban', 'ssn'] })
  })
})

describe('the Settings action', () => {
  it('lets an owner change the policy and shows validation errors', async () => {
    const org = await createOrganization(database.db, { name: 'Owned' })
    signedIn.cookie = await person(org.id, 'owner')
    try {
      expect(
        await changeNetworkPolicyAction(null, form({ policy: 'drop', redactKeys: 'iban\nssn' })),
      ).toEqual({
        ok: true,
        message: 'Network details: Drop all headers and bodies; 2 extra key words redacted.',
      })
      expect(
        await changeNetworkPolicyAction(null, form({ policy: 'redact', redactKeys: 'no spaces' })),
      ).toEqual({
        ok: false,
        error:
          'Redacted key word "no spaces" may hold only letters, digits, _ and - (separate words with commas or new lines)',
      })
    } finally {
      signedIn.cookie = ''
    }
    expect(await stored(org.id)).toEqual({ policy: 'drop', keys: ['iban', 'ssn'] })
  })

  it('refuses members, and changes nothing', async () => {
    const org = await createOrganization(database.db, { name: 'Membered' })
    signedIn.cookie = await person(org.id, 'member')
    try {
      const outcome = await changeNetworkPolicyAction(null, form({ policy: 'drop', redactKeys: 'iban' }))
      expect(outcome.ok).toBe(false)
    } finally {
      signedIn.cookie = ''
    }
    expect(await stored(org.id)).toEqual({ policy: 'redact', keys: [] })
  })
})
