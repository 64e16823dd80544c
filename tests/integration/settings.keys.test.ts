import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { users } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createDashboardKey } from '@/lib/credentials/dashboard-keys'
import { listKeys } from '@/lib/credentials/list-keys'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { InvalidInputError, NotFoundError, UnauthorizedError } from '@/lib/errors'
import { resolveIngestKey } from '@/lib/ingest/resolve-ingest-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

let database: TestDatabase
let organizationId: string
let userId: string

beforeAll(async () => {
  database = await createTestDatabase()
  organizationId = (await createOrganization(database.db, { name: 'Keys' })).id
  const [user] = await database.db
    .insert(users)
    .values({ email: 'owner@example.com', passwordHash: 'x' })
    .returning({ id: users.id })
  userId = user!.id
})
afterAll(async () => {
  await database?.close()
})

const create = (type: string, name: string, allowStatusUpdates = false) =>
  createDashboardKey(database.db, { organizationId, createdByUserId: userId, type, name, allowStatusUpdates })

describe('keys created from the settings page', () => {
  it('makes a Data API key with read:service only, unless status updates are allowed', async () => {
    const readOnly = await create('api', 'Reporting')
    expect(readOnly.scopes).toEqual(['read:service'])
    expect(readOnly.key).toMatch(/^svc_api_/)
    const writer = await create('api', 'Triage bot', true)
    expect(writer.scopes).toEqual(['read:service', 'write:issues'])
    expect((await resolveBearer(database.db, `Bearer ${writer.key}`))?.scopes).toEqual([
      'read:service',
      'write:issues',
    ])
    expect((await resolveBearer(database.db, `Bearer ${readOnly.key}`))?.scopes).toEqual(['read:service'])
  })

  it('makes an upload-only key with "Allow source map uploads", never combined with status updates', async () => {
    const sourcemaps = (allowStatusUpdates: boolean) =>
      createDashboardKey(database.db, {
        organizationId,
        createdByUserId: userId,
        type: 'api',
        name: 'CI',
        allowStatusUpdates,
        allowSourcemapUploads: true,
      })
    const ci = await sourcemaps(false)
    expect(ci.scopes).toEqual(['write:sourcemaps'])
    expect((await resolveBearer(database.db, `Bearer ${ci.key}`))?.scopes).toEqual(['write:sourcemaps'])
    const before = (await listKeys(database.db, { organizationId })).length
    await expect(sourcemaps(true)).rejects.toThrow('A source map upload key can only upload source maps')
    expect(await listKeys(database.db, { organizationId })).toHaveLength(before)
  })

  it('makes an upload-only key with "Allow reproduction results", combinable with source maps only', async () => {
    const key = (options: {
      allowStatusUpdates?: boolean
      allowSourcemapUploads?: boolean
      allowPrivacyRequests?: boolean
    }) =>
      createDashboardKey(database.db, {
        organizationId,
        createdByUserId: userId,
        type: 'api',
        name: 'Release guard',
        allowStatusUpdates: options.allowStatusUpdates ?? false,
        allowSourcemapUploads: options.allowSourcemapUploads,
        allowPrivacyRequests: options.allowPrivacyRequests,
        allowReproductionResults: true,
        createdByRole: 'owner',
      })
    const guard = await key({})
    expect(guard.scopes).toEqual(['write:verifications'])
    expect((await resolveBearer(database.db, `Bearer ${guard.key}`))?.scopes).toEqual(['write:verifications'])
    expect((await key({ allowSourcemapUploads: true })).scopes).toEqual([
      'write:sourcemaps',
      'write:verifications',
    ])
    const before = (await listKeys(database.db, { organizationId })).length
    await expect(key({ allowStatusUpdates: true })).rejects.toThrow(
      'A reproduction result key can only report reproduction results (and upload source maps): untick “Allow issue status updates”',
    )
    await expect(key({ allowPrivacyRequests: true })).rejects.toThrow('untick “Allow privacy requests”')
    expect(await listKeys(database.db, { organizationId })).toHaveLength(before)
  })

  it('makes a public ingest key that the ingest endpoint accepts (the status option does not apply)', async () => {
    const ingest = await create('ingest', 'Website', true)
    expect(ingest).toMatchObject({ type: 'ingest', scopes: ['ingest'], name: 'Website' })
    expect(ingest.key).toMatch(/^svc_pk_/)
    await expect(resolveIngestKey(database.db, ingest.key)).resolves.toMatchObject({ organizationId })
  })

  it('refuses new legacy MCP keys, unknown kinds and bad names, creating nothing', async () => {
    const before = (await listKeys(database.db, { organizationId })).length
    await expect(create('mcp', 'Agent')).rejects.toThrow('AI agents connect through OAuth')
    await expect(create('admin', 'X')).rejects.toThrow(InvalidInputError)
    await expect(create('api', '   ')).rejects.toThrow('Key name must not be empty')
    await expect(create('ingest', 'n'.repeat(65))).rejects.toThrow('Key name must be at most 64 characters')
    expect(await listKeys(database.db, { organizationId })).toHaveLength(before)
  })

  it('lists keys per kind with their prefix only, and keeps revoked keys as revoked', async () => {
    const org = (await createOrganization(database.db, { name: 'Listing' })).id
    const ingest = await createDashboardKey(database.db, {
      organizationId: org,
      createdByUserId: userId,
      type: 'ingest',
      name: 'Site',
      allowStatusUpdates: false,
    })
    const legacy = await createKey(database.db, { organizationId: org, type: 'mcp', name: 'Old agent' })
    const listedIngest = await listKeys(database.db, { organizationId: org, type: 'ingest' })
    expect(listedIngest.map((k) => k.displayPrefix)).toEqual([`${ingest.key.slice(0, 13)}…`])
    expect(JSON.stringify(listedIngest)).not.toContain(ingest.key)
    await revokeKey(database.db, { id: legacy.id, organizationId: org })
    const [listedLegacy] = await listKeys(database.db, { organizationId: org, type: 'mcp' })
    expect(listedLegacy?.revokedAt).toBeInstanceOf(Date)
    expect(await resolveBearer(database.db, `Bearer ${legacy.key}`)).toBeNull()
  })

  it('revokes only within the organization: a key of another one is not found', async () => {
    const other = (await createOrganization(database.db, { name: 'Other' })).id
    const theirs = await createKey(database.db, { organizationId: other, type: 'ingest' })
    await expect(revokeKey(database.db, { id: theirs.id, organizationId })).rejects.toThrow(NotFoundError)
    await expect(resolveIngestKey(database.db, theirs.key)).resolves.toMatchObject({ organizationId: other })
    const mine = await create('ingest', 'Mine')
    await revokeKey(database.db, { id: mine.id, organizationId })
    await expect(resolveIngestKey(database.db, mine.key)).rejects.toThrow(UnauthorizedError)
  })
})
