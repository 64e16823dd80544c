import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, releases } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { recordSeenRelease } from '@/lib/issues/fix-release'
import { createOrganization } from '@/lib/orgs/create-organization'
import { compareReleases } from '@/lib/releases/record-release'
import { releasesApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { seedIssue } from '../helpers/seed'

/**
 * The order CI states (docs/releases.md#order): POST /api/v1/releases with a deploy time places
 * a release that is not semver, the list shows that order and compareReleases (which decides
 * regressions) agrees with it.
 */

let database: TestDatabase
let org: string
let semverOrg: string
const keys = { read: '', release: '', readSemver: '', releaseSemver: '' }
const HOUR = 3_600_000

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  org = (await createOrganization(database.db, { name: 'Builds' })).id
  semverOrg = (await createOrganization(database.db, { name: 'Versions' })).id
  keys.read = (await createKey(database.db, { organizationId: org, type: 'api' })).key
  keys.release = (await createKey(database.db, { organizationId: org, type: 'api', sourcemaps: true })).key
  keys.readSemver = (await createKey(database.db, { organizationId: semverOrg, type: 'api' })).key
  keys.releaseSemver = (
    await createKey(database.db, { organizationId: semverOrg, type: 'api', sourcemaps: true })
  ).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

async function listed(token: string): Promise<{ versions: string[]; order: string }> {
  const response = await releasesApi.list(token, { limit: 100 })
  expect(response.status).toBe(200)
  const page = (await response.json()) as { releases: { version: string }[]; order: string }
  return { versions: page.releases.map((r) => r.version), order: page.order }
}

/** The list, latest first, agrees with compareReleases for every pair. */
async function expectAgreement(organizationId: string, latestFirst: string[]) {
  for (let i = 0; i < latestFirst.length; i++)
    for (let j = i + 1; j < latestFirst.length; j++) {
      const later = latestFirst[i]!
      const earlier = latestFirst[j]!
      expect(
        await compareReleases(database.db, organizationId, later, earlier),
        `${later} > ${earlier}`,
      ).toBeGreaterThan(0)
      expect(
        await compareReleases(database.db, organizationId, earlier, later),
        `${earlier} < ${later}`,
      ).toBeLessThan(0)
    }
}

describe('order of releases that are not semver', () => {
  it('follows first seen, then the deploy time CI states', async () => {
    const now = Date.now()
    // Seen by sessions: zeta three hours ago, alpha two hours ago (names in the other order).
    await database.db.insert(releases).values([
      { organizationId: org, version: 'build-zeta', semver: false, firstSeenAt: new Date(now - 3 * HOUR) },
      { organizationId: org, version: 'build-alpha', semver: false, firstSeenAt: new Date(now - 2 * HOUR) },
    ])
    expect(await listed(keys.read)).toEqual({ versions: ['build-alpha', 'build-zeta'], order: 'seen' })
    await expectAgreement(org, ['build-alpha', 'build-zeta'])

    // CI says zeta was deployed an hour ago: now it is the later one.
    const moved = await releasesApi.declare(keys.release, {
      version: 'build-zeta',
      deployedAt: new Date(now - HOUR).toISOString(),
    })
    expect(moved.status).toBe(200)
    expect((await listed(keys.read)).versions).toEqual(['build-zeta', 'build-alpha'])
    await expectAgreement(org, ['build-zeta', 'build-alpha'])

    // A new release without a deploy time is deployed now; one with an old deploy time goes back.
    expect((await releasesApi.declare(keys.release, { version: 'build-new' })).status).toBe(201)
    const old = await releasesApi.declare(keys.release, {
      version: 'build-old',
      deployedAt: new Date(now - 5 * HOUR).toISOString(),
    })
    expect(old.status).toBe(201)
    const expected = ['build-new', 'build-zeta', 'build-alpha', 'build-old']
    expect((await listed(keys.read)).versions).toEqual(expected)
    await expectAgreement(org, expected)
  })

  it('a release seen again after a later one keeps its place, and so does one declared again without a time', async () => {
    const before = (await listed(keys.read)).versions
    // A session of build-alpha arrives after build-new was deployed.
    await database.db.transaction((tx) =>
      recordSeenRelease(tx, { organizationId: org, version: 'build-alpha' }),
    )
    expect((await releasesApi.declare(keys.release, { version: 'build-old' })).status).toBe(200)
    expect((await listed(keys.read)).versions).toEqual(before)
    await expectAgreement(org, before)
  })

  it('a declared release is the next release of issues resolved in the next release', async () => {
    const issue = await seedIssue(database.db, org, {
      status: 'resolved',
      resolvedInNextRelease: true,
      resolvedAt: new Date(Date.now() - 60_000),
    })
    expect((await releasesApi.declare(keys.release, { version: 'build-fix' })).status).toBe(201)
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ status: 'resolved', resolvedInRelease: 'build-fix' })
  })
})

describe('order of semver releases', () => {
  it('is semver whatever the deploy times, until a release that is not semver arrives', async () => {
    const now = Date.now()
    expect(
      (
        await releasesApi.declare(keys.releaseSemver, {
          version: 'v1.10.0',
          deployedAt: new Date(now - 3 * HOUR).toISOString(),
        })
      ).status,
    ).toBe(201)
    expect((await releasesApi.declare(keys.releaseSemver, { version: '1.9.0' })).status).toBe(201)
    expect((await releasesApi.declare(keys.releaseSemver, { version: '1.10.0-rc.1' })).status).toBe(201)
    expect(await listed(keys.readSemver)).toEqual({
      versions: ['v1.10.0', '1.10.0-rc.1', '1.9.0'],
      order: 'semver',
    })
    await expectAgreement(semverOrg, ['v1.10.0', '1.10.0-rc.1', '1.9.0'])

    // One name that is not semver: the whole organization orders by deploy time or first seen.
    expect((await releasesApi.declare(keys.releaseSemver, { version: 'hotfix-2' })).status).toBe(201)
    const mixed = await listed(keys.readSemver)
    expect(mixed.order).toBe('seen')
    expect(mixed.versions[0]).toBe('hotfix-2')
    expect(mixed.versions.at(-1)).toBe('v1.10.0') // deployed three hours ago
    await expectAgreement(semverOrg, mixed.versions)
  })
})
