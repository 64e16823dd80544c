import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, releases } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { recordSeenRelease } from '@/lib/issues/fix-release'
import { createOrganization } from '@/lib/orgs/create-organization'
import { declareRelease } from '@/lib/releases/declare-release'
import { getRelease, listReleases } from '@/lib/releases/health'
import { releasesApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { seedIssue } from '../helpers/seed'
import { linkIssue, seedSession } from '../helpers/sessions'

/**
 * Release health on a fixture whose every figure is worked out by hand below
 * (docs/releases.md#health), through the domain and over HTTP.
 */

let database: TestDatabase
let orgA: string
let orgB: string
const keys = { read: '', release: '', readB: '' }
const DAY = 86_400_000
const now = new Date()
/** Midnight UTC today: never in the future, always today. */
const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
const daysAgo = (n: number) => new Date(today.getTime() - n * DAY)
const issueIds = { i1: '', i2: '', i3: '' }

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const db = database.db
  orgA = (await createOrganization(db, { name: 'Acme' })).id
  orgB = (await createOrganization(db, { name: 'Other' })).id
  keys.read = (await createKey(db, { organizationId: orgA, type: 'api' })).key
  keys.release = (await createKey(db, { organizationId: orgA, type: 'api', sourcemaps: true })).key
  keys.readB = (await createKey(db, { organizationId: orgB, type: 'api' })).key

  await db.insert(releases).values([
    { organizationId: orgA, version: '1.0.0', semver: true, firstSeenAt: daysAgo(40) },
    { organizationId: orgA, version: '1.1.0', semver: true, firstSeenAt: daysAgo(35) },
    { organizationId: orgA, version: '1.2.0', semver: true, firstSeenAt: daysAgo(2) },
    { organizationId: orgA, version: '2.0.0', semver: true, firstSeenAt: daysAgo(1) },
    { organizationId: orgB, version: '1.0.0', semver: true, firstSeenAt: daysAgo(3) },
  ])
  const session = (release: string | null, createdAt: Date, extra: Parameters<typeof seedSession>[2] = {}) =>
    seedSession(db, orgA, { release, createdAt, ...extra })

  // 1.0.0: four counted sessions, three analysed, one of them with errors; users alice (twice,
  // two devices), anon-1 and anon-2; a bot session with errors that never counts.
  const a1 = await session('1.0.0', today, { userId: 'alice', anonymousId: 'dev-1', errorCount: 0 })
  await session('1.0.0', daysAgo(1), { userId: 'alice', anonymousId: 'dev-2', errorCount: 0 })
  const a3 = await session('1.0.0', today, { anonymousId: 'anon-1', errorCount: 2 })
  await session('1.0.0', today, { anonymousId: 'anon-2', errorCount: null })
  const bot = await session('1.0.0', today, { userId: 'robot', automation: 'bot', errorCount: 5 })

  // 1.1.0: seven counted sessions, one with an error; users: user "x", anonymous "x" (another
  // visitor), and one anonymous visitor with five sessions. One session is 31 days old.
  const b1 = await session('1.1.0', daysAgo(31), { userId: 'x', anonymousId: 'dev-x', errorCount: 1 })
  const b2 = await session('1.1.0', daysAgo(1), { anonymousId: 'x', errorCount: 0 })
  const b3 = await session('1.1.0', daysAgo(1), { anonymousId: 'shared', errorCount: 0 })
  for (let i = 0; i < 4; i++) await session('1.1.0', daysAgo(1), { anonymousId: 'shared', errorCount: 0 })
  await session('1.1.0', today, { automation: 'reproduction', errorCount: 1 })

  // 2.0.0: three sessions, all with errors. And a session without a release today.
  for (let i = 0; i < 3; i++) await session('2.0.0', today, { anonymousId: `two-${i}`, errorCount: 1 })
  await session(null, today, { errorCount: 0 })

  const i1 = await seedIssue(db, orgA, { title: 'I1', firstRelease: '1.0.0', sessionCount: 5 })
  const i2 = await seedIssue(db, orgA, {
    title: 'I2',
    firstRelease: '1.1.0',
    sessionCount: 2,
    priority: 'low',
  })
  const i3 = await seedIssue(db, orgA, {
    title: 'I3',
    firstRelease: '1.1.0',
    sessionCount: 1,
    status: 'resolved',
  })
  Object.assign(issueIds, { i1: i1.id, i2: i2.id, i3: i3.id })
  for (const s of [a1, a3, b1, b3]) await linkIssue(db, s, i1.id, s.startedAt)
  await linkIssue(db, b2, i2.id, b2.startedAt)
  await linkIssue(db, bot, i3.id, bot.startedAt)
  const activity = (issueId: string, kind: 'regressed' | 'status_changed', release: string, at: Date) => ({
    issueId,
    organizationId: orgA,
    kind,
    actorType: 'system' as const,
    metadata: { release, sessionId: a1.id },
    createdAt: at,
  })
  await db
    .insert(issueActivities)
    .values([
      activity(i1.id, 'regressed', '1.1.0', daysAgo(3)),
      activity(i1.id, 'regressed', '2.0.0', daysAgo(2)),
      activity(i2.id, 'regressed', '2.0.0', daysAgo(1)),
      activity(i3.id, 'status_changed', '2.0.0', daysAgo(1)),
    ])

  // B: the same release name with its own sessions, issue and regression.
  for (let i = 0; i < 5; i++)
    await seedSession(db, orgB, { release: '1.0.0', createdAt: today, errorCount: 1 })
  const foreign = await seedIssue(db, orgB, { firstRelease: '1.0.0' })
  await db.insert(issueActivities).values({
    issueId: foreign.id,
    organizationId: orgB,
    kind: 'regressed',
    actorType: 'system',
    metadata: { release: '1.0.0' },
  })
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

// Worked out by hand from the fixture above.
const EXPECTED = {
  '2.0.0': {
    version: '2.0.0',
    semver: true,
    deployedAt: null,
    sessions: 3,
    sessionsWithErrors: 3,
    crashFreeSessions: 0, // 0 of 3
    users: 3,
    newIssues: 0,
    regressions: 2,
    lastSessionAt: today.toISOString(),
  },
  '1.2.0': {
    version: '1.2.0',
    sessions: 0,
    sessionsWithErrors: 0,
    crashFreeSessions: null, // nothing analysed
    users: 0,
    newIssues: 0,
    regressions: 0,
    lastSessionAt: null,
  },
  '1.1.0': {
    version: '1.1.0',
    sessions: 7,
    sessionsWithErrors: 1,
    crashFreeSessions: 85.71, // 6 of 7 = 85.714…
    users: 3, // user x, anonymous x, anonymous "shared"
    newIssues: 2,
    regressions: 1,
    lastSessionAt: daysAgo(1).toISOString(),
  },
  '1.0.0': {
    version: '1.0.0',
    firstSeenAt: daysAgo(40).toISOString(),
    sessions: 4, // the bot is not counted
    sessionsWithErrors: 1,
    crashFreeSessions: 66.67, // 2 of the 3 analysed = 66.666…
    users: 3, // alice (two devices), anon-1, anon-2
    newIssues: 1,
    regressions: 0,
    lastSessionAt: today.toISOString(),
  },
}

const ref = (id: string, title: string, extra: Record<string, unknown> = {}) => ({ id, title, ...extra })

function expectAdoption(
  adoption: { day: string; sessions: number; share: number }[],
  byDay: Record<string, [number, number]>,
) {
  expect(adoption).toHaveLength(30)
  expect(adoption[0]!.day).toBe(daysAgo(29).toISOString().slice(0, 10))
  expect(adoption[29]!.day).toBe(today.toISOString().slice(0, 10))
  for (const day of adoption) {
    const [sessions, share] = byDay[day.day] ?? [0, 0]
    expect(day, day.day).toEqual({ day: day.day, sessions, share })
  }
}

describe('release health figures (domain)', () => {
  it('lists every release latest first in semver order with the figures worked out by hand', async () => {
    const list = await listReleases(database.db, orgA)
    expect(list.order).toBe('semver')
    expect(list.nextCursor).toBeNull()
    expect(list.releases).toMatchObject([
      EXPECTED['2.0.0'],
      EXPECTED['1.2.0'],
      EXPECTED['1.1.0'],
      EXPECTED['1.0.0'],
    ])
  })

  it('pages with a cursor, and B never sees A’s figures', async () => {
    const first = await listReleases(database.db, orgA, { limit: 3 })
    expect(first.releases.map((r) => r.version)).toEqual(['2.0.0', '1.2.0', '1.1.0'])
    const second = await listReleases(database.db, orgA, { limit: 3, cursor: first.nextCursor! })
    expect(second.releases).toMatchObject([EXPECTED['1.0.0']])
    expect(second.nextCursor).toBeNull()
    const b = await listReleases(database.db, orgB)
    expect(b.releases).toMatchObject([
      {
        version: '1.0.0',
        sessions: 5,
        sessionsWithErrors: 5,
        crashFreeSessions: 0,
        newIssues: 1,
        regressions: 1,
      },
    ])
  })

  it('details adoption per UTC day and the issue lists', async () => {
    const one = await getRelease(database.db, orgA, '1.0.0', { now })
    expect(one).toMatchObject(EXPECTED['1.0.0'])
    // Today: 1.0.0 has 3 of 7 counted sessions (3 of 1.0.0, 3 of 2.0.0, 1 without a release);
    // yesterday 1 of 7 (1 of 1.0.0, 6 of 1.1.0).
    expectAdoption(one.adoption, {
      [today.toISOString().slice(0, 10)]: [3, 0.4286],
      [daysAgo(1).toISOString().slice(0, 10)]: [1, 0.1429],
    })
    expect(one.issues).toEqual({
      new: [ref(issueIds.i1, 'I1', { status: 'unresolved', priority: 'high', sessionCount: 5 })],
      regressed: [],
      // I3 was seen only in the bot's session.
      seen: [ref(issueIds.i1, 'I1', { status: 'unresolved', priority: 'high', sessionCount: 5 })],
    })

    const eleven = await getRelease(database.db, orgA, '1.1.0', { now })
    // The 31-day-old session is outside the window.
    expectAdoption(eleven.adoption, { [daysAgo(1).toISOString().slice(0, 10)]: [6, 0.8571] })
    expect(eleven.issues.new.map((i) => i.title)).toEqual(['I2', 'I3']) // most sessions first
    expect(eleven.issues.regressed.map((i) => i.title)).toEqual(['I1'])
    expect(eleven.issues.seen.map((i) => i.title)).toEqual(['I1', 'I2']) // 2 sessions of 1.1.0, then 1

    const two = await getRelease(database.db, orgA, '2.0.0', { now })
    expect(two.issues.regressed.map((i) => i.title)).toEqual(['I2', 'I1']) // latest regression first
    expect(two.issues.new).toEqual([])
    expectAdoption(two.adoption, { [today.toISOString().slice(0, 10)]: [3, 0.4286] })

    await expect(getRelease(database.db, orgA, '9.9.9')).rejects.toThrow(NotFoundError)
    await expect(getRelease(database.db, orgB, '2.0.0')).rejects.toThrow('Release not found')
  })
})

describe('release health over HTTP', () => {
  type Json = Record<string, unknown>
  const json = async (response: Response) => (await response.json()) as Json

  it('GET /api/v1/releases pages the same figures', async () => {
    const first = await releasesApi.list(keys.read, { limit: 2 })
    expect(first.status).toBe(200)
    const page = await json(first)
    expect(page).toMatchObject({ order: 'semver', releases: [EXPECTED['2.0.0'], EXPECTED['1.2.0']] })
    const second = await json(
      await releasesApi.list(keys.read, { limit: 2, cursor: String(page.nextCursor) }),
    )
    expect(second).toMatchObject({ releases: [EXPECTED['1.1.0'], EXPECTED['1.0.0']], nextCursor: null })
    for (const limit of [0, 101, 'x']) {
      const refused = await releasesApi.list(keys.read, { limit })
      expect(refused.status).toBe(400)
      expect(await json(refused)).toEqual({ error: 'limit must be an integer between 1 and 100' })
    }
  })

  it('GET /api/v1/releases/{version} answers the detail, 404 for another organization’s, 400 for a name too long', async () => {
    const response = await releasesApi.get(keys.read, '1.1.0')
    expect(response.status).toBe(200)
    const { release } = (await json(response)) as { release: Json & { adoption: unknown[] } }
    expect(release).toMatchObject(EXPECTED['1.1.0'])
    expect(release.adoption).toHaveLength(30)
    const missing = await releasesApi.get(keys.readB, '1.1.0')
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual({ error: 'Release not found' })
    const long = await releasesApi.get(keys.read, 'x'.repeat(201))
    expect(long.status).toBe(400)
    expect(await json(long)).toEqual({ error: 'version must be at most 200 characters' })
  })

  it('POST /api/v1/releases declares a release: 201 new, 200 known, 400 for a bad name or time', async () => {
    const created = await releasesApi.declare(keys.release, { version: '1.3.0' })
    expect(created.status).toBe(201)
    const { release } = (await json(created)) as { release: Json }
    expect(release).toMatchObject({ version: '1.3.0', semver: true, sessions: 0, crashFreeSessions: null })
    expect(release.deployedAt).toBe(release.firstSeenAt)
    const again = await releasesApi.declare(keys.release, { version: '1.3.0' })
    expect(again.status).toBe(200)
    expect(await json(again)).toEqual({ release })
    const moved = await releasesApi.declare(keys.release, {
      version: '1.3.0',
      deployedAt: '2026-01-02T03:04:05+01:00',
    })
    expect(moved.status).toBe(200)
    expect(((await json(moved)).release as Json).deployedAt).toBe('2026-01-02T02:04:05.000Z')
    const cases: [unknown, string][] = [
      [{}, 'version must be a release name (a version, a commit, a build number) of 1 to 200 characters'],
      [
        { version: '' },
        'version must be a release name (a version, a commit, a build number) of 1 to 200 characters',
      ],
      [{ version: 'x'.repeat(201) }, 'version must be at most 200 characters'],
      [{ version: 'a\nb' }, 'version must not contain control characters'],
      [
        { version: '1.4.0', deployedAt: 'yesterday' },
        expect.stringContaining('deployedAt must be an ISO 8601'),
      ],
      [{ version: '1.4.0', deployedAt: '1999-12-31T23:59:59Z' }, expect.stringContaining('from 2000 on')],
      [
        { version: '1.4.0', deployedAt: new Date(Date.now() + 10 * 60_000).toISOString() },
        expect.stringContaining('not more than 5 minutes in the future'),
      ],
      [
        { version: '1.4.0', deployedAt: '2026-01-01T00:00:00' },
        expect.stringContaining('deployedAt must be'),
      ],
    ]
    for (const [body, error] of cases) {
      const refused = await releasesApi.declare(keys.release, body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(await json(refused)).toEqual({ error })
    }
    expect((await releasesApi.get(keys.read, '1.4.0')).status).toBe(404)
    const readOnly = await releasesApi.declare(keys.read, { version: '1.4.0' })
    expect(readOnly.status).toBe(403)
  })

  it('the domain declares through the recorder it is given', async () => {
    const declared = await declareRelease(database.db, orgB, { version: 'main-abc' }, recordSeenRelease)
    expect(declared).toMatchObject({ created: true, release: { version: 'main-abc', semver: false } })
    expect((await listReleases(database.db, orgB)).order).toBe('seen')
  })
})
