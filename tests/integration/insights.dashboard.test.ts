import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueSessions, replaySessions } from '@/db/schema'
import { useDatabase } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { generateInsight, lastInterval } from '@/lib/insights/generate'
import { getInsight } from '@/lib/insights/get-insight'
import { insightIssues } from '@/lib/insights/insight-issues'
import { listInsights } from '@/lib/insights/list-insights'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedInsight, seedIssue } from '../helpers/seed'

let database: TestDatabase
let organizationId: string
let otherOrganizationId: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  otherOrganizationId = (await createOrganization(database.db, { name: 'Elsewhere' })).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const DAY = 86_400_000

describe('insights in the dashboard', () => {
  const seeded: string[] = []

  it('lists insights newest first, page by page, only of the organization', async () => {
    const base = Date.now() - 10 * DAY
    for (let i = 0; i < 3; i++) {
      const row = await seedInsight(database.db, organizationId, {
        intervalStart: new Date(base + i * DAY),
        intervalEnd: new Date(base + (i + 1) * DAY),
        createdAt: new Date(base + (i + 1) * DAY + 60_000),
        sessionsCount: 10 + i,
      })
      seeded.push(row.id)
    }
    await seedInsight(database.db, otherOrganizationId)
    const first = await listInsights(database.db, { organizationId }, { limit: 2 })
    expect(first.items.map((i) => i.id)).toEqual([seeded[2], seeded[1]])
    expect(first.items[0]).toMatchObject({ sessionsCount: 12, contentPreview: expect.any(String) })
    const second = await listInsights(
      database.db,
      { organizationId },
      { limit: 2, cursor: first.nextCursor! },
    )
    expect(second.items.map((i) => i.id)).toEqual([seeded[0]])
    expect(second.nextCursor).toBeNull()
    await expect(
      listInsights(
        database.db,
        { organizationId: otherOrganizationId },
        { limit: 2, cursor: first.nextCursor! },
      ),
    ).rejects.toThrow(InvalidInputError)
  })

  it('reads one insight with its full Markdown, and not one of another organization', async () => {
    const insight = await getInsight(database.db, { organizationId, insightId: seeded[0]! })
    expect(insight).toMatchObject({
      id: seeded[0],
      sessionsCount: 10,
      content: '# Daily insight\n\nCheckout errors rose by 40%.',
    })
    for (const insightId of [seeded[0]!, 'nope', '00000000-0000-4000-8000-000000000000'])
      await expect(
        getInsight(database.db, { organizationId: otherOrganizationId, insightId }),
      ).rejects.toThrow(NotFoundError)
  })

  it('links the issues a written insight names, and those filed from its interval', async () => {
    const interval = lastInterval(Date.now() + DAY, 24)
    const inInterval = new Date(interval.start.getTime() + 3_600_000)
    const [session] = await database.db
      .insert(replaySessions)
      .values({
        organizationId,
        externalId: 'insight-session',
        startedAt: inInterval,
        lastActivityAt: inInterval,
        entryUrl: 'https://shop.example/checkout',
        anonymousId: 'anon-1',
        status: 'processed',
        createdAt: inInterval,
      })
      .returning()
    const named = await seedIssue(database.db, organizationId, {
      title: 'TypeError: price is undefined on /checkout',
      createdAt: inInterval,
    })
    await database.db.insert(issueSessions).values({
      issueId: named.id,
      sessionId: session!.id,
      organizationId,
      firstOccurrenceAt: inInterval,
      createdAt: inInterval,
    })
    const filed = await seedIssue(database.db, organizationId, {
      sourceType: 'insight',
      title: 'Rage clicks appeared on /cart (5 sessions)',
      firstSeenAt: interval.start,
      createdAt: interval.end,
    })
    // Same title, elsewhere: another organization's issue, and one from long before.
    await seedIssue(database.db, otherOrganizationId, { title: named.title, createdAt: inInterval })
    await seedIssue(database.db, organizationId, {
      title: 'Old issue not in this interval',
      createdAt: new Date(interval.start.getTime() - 30 * DAY),
    })

    const insightId = await generateInsight(database.db, organizationId, interval)
    const insight = await getInsight(database.db, { organizationId, insightId: insightId! })
    expect(insight.content).toContain(named.title)
    const found = await insightIssues(database.db, organizationId, insight)
    expect(found).toEqual([
      expect.objectContaining({ id: filed.id, filedByInsight: true }),
      expect.objectContaining({ id: named.id, title: named.title, filedByInsight: false }),
    ])
  })

  it('names no issues when the text quotes none, or quotes issues of other intervals', async () => {
    const insight = await getInsight(database.db, { organizationId, insightId: seeded[1]! })
    expect(await insightIssues(database.db, organizationId, insight)).toEqual([])
    const longAgo = Date.now() - 300 * DAY
    const quoting = {
      intervalStart: new Date(longAgo).toISOString(),
      intervalEnd: new Date(longAgo + DAY).toISOString(),
      content:
        '## New issues\n- Old issue not in this interval\n- TypeError: price is undefined on /checkout',
    }
    expect(await insightIssues(database.db, organizationId, quoting)).toEqual([])
  })
})
