import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { releases } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { createOrganization } from '@/lib/orgs/create-organization'
import { declareRelease } from '@/lib/releases/declare-release'
import { getRelease, listReleases } from '@/lib/releases/health'
import { upsertRelease } from '@/lib/releases/record-release'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedSession } from '../helpers/sessions'

let database: TestDatabase
let orgA: string
let orgB: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgA = (await createOrganization(database.db, { name: 'Acme' })).id
  orgB = (await createOrganization(database.db, { name: 'Other' })).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

describe('release health (smoke)', () => {
  it('lists, reads and declares releases', async () => {
    const db = database.db
    await db.insert(releases).values({ organizationId: orgA, version: '1.0.0', semver: true })
    for (const errorCount of [0, 0, 2]) await seedSession(db, orgA, { release: '1.0.0', errorCount })
    const list = await listReleases(db, orgA)
    expect(list.order).toBe('semver')
    expect(list.releases).toMatchObject([
      { version: '1.0.0', sessions: 3, sessionsWithErrors: 1, crashFreeSessions: 66.67, users: 3 },
    ])
    const detail = await getRelease(db, orgA, '1.0.0')
    expect(detail.adoption).toHaveLength(30)
    await expect(getRelease(db, orgB, '1.0.0')).rejects.toThrow(NotFoundError)
    const declared = await declareRelease(db, orgA, { version: '1.1.0' }, upsertRelease)
    expect(declared.created).toBe(true)
    expect(declared.release.deployedAt).toBe(declared.release.firstSeenAt)
    const again = await declareRelease(db, orgA, { version: '1.1.0' }, upsertRelease)
    expect(again.created).toBe(false)
    expect((await listReleases(db, orgA)).releases.map((r) => r.version)).toEqual(['1.1.0', '1.0.0'])
  })
})
