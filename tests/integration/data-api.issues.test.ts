import { desc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, issues } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue, seedIssues } from '../helpers/seed'

let database: TestDatabase
let orgId: string
let readKey: string
let writeKey: string
let writeKeyId: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Acme' })).id
  readKey = (await createKey(database.db, { organizationId: orgId, type: 'api' })).key
  const write = await createKey(database.db, { organizationId: orgId, type: 'api', write: true })
  writeKey = write.key
  writeKeyId = write.id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

type Body = Record<string, unknown>
const body = async (response: Response) => (await response.json()) as Body

describe('GET /api/v1/issues and /api/v1/issues/{id}: shapes', () => {
  it('answers list items and single issues with exactly the spec fields', async () => {
    const org = (await createOrganization(database.db, { name: 'Shapes' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const full = await seedIssue(database.db, org, {
      ticketProvider: 'linear',
      ticketUrl: 'https://linear.app/acme/issue/ENG-1',
      ticketIdentifier: 'ENG-1',
      status: 'ticket_created',
      priority: 'critical',
      priorityReason: 'Uncaught errors start at high; +1: /checkout is a critical path.',
      aiVerified: true,
      firstRelease: 'v1.4.0',
      lastRelease: 'v1.5.2',
    })
    const sparse = await seedIssue(database.db, org, {
      description: null,
      previewUrl: null,
      stepsToReplicate: null,
      priority: 'low',
    })

    const list = await api.listIssues(key)
    expect(list.status).toBe(200)
    expect(list.headers.get('cache-control')).toBe('no-store')
    expect(list.headers.get('content-type')).toContain('application/json')
    const page = await body(list)
    expect(Object.keys(page).sort()).toEqual(['issues', 'nextCursor'])
    expect(page.nextCursor).toBeNull()
    const items = page.issues as Body[]
    expect(items.map((i) => i.id)).toEqual([sparse.id, full.id])
    const listKeys = [
      'createdAt',
      'description',
      'firstRelease',
      'id',
      'lastRelease',
      'previewUrl',
      'priority',
      'sessionCount',
      'status',
      'ticketIdentifier',
      'ticketProvider',
      'ticketUrl',
      'title',
    ]
    for (const item of items) expect(Object.keys(item).sort()).toEqual(listKeys)
    expect(items[1]).toEqual({
      id: full.id,
      title: full.title,
      description: full.description,
      status: 'ticket_created',
      priority: 'critical',
      previewUrl: full.previewUrl,
      createdAt: full.createdAt.toISOString(),
      sessionCount: 1,
      ticketProvider: 'linear',
      ticketUrl: 'https://linear.app/acme/issue/ENG-1',
      ticketIdentifier: 'ENG-1',
      firstRelease: 'v1.4.0',
      lastRelease: 'v1.5.2',
    })
    expect(items[0]).toMatchObject({
      firstRelease: null,
      lastRelease: null,
      description: null,
      previewUrl: null,
      ticketProvider: null,
      ticketUrl: null,
      ticketIdentifier: null,
    })

    const single = await body(await api.getIssue(key, full.id))
    expect(Object.keys(single)).toEqual(['issue'])
    const issue = single.issue as Body
    // priorityReason is our addition to the spec's single-issue shape (issue 15), and
    // firstRelease and lastRelease to both shapes, originalStack to the single one (issue 19),
    // serverMessage to the single one (issue 20), the resolution, the detail of releases and the
    // reproduction runs (issue 36).
    expect(Object.keys(issue).sort()).toEqual(
      [
        ...listKeys,
        'verifications',
        'aiVerified',
        'oldReleaseOccurrences',
        'originalStack',
        'priorityReason',
        'regression',
        'resolvedAt',
        'resolvedInNextRelease',
        'resolvedInRelease',
        'serverMessage',
        'stepsToReplicate',
        'updatedAt',
      ].sort(),
    )
    expect(issue).toMatchObject({
      ...items[1],
      updatedAt: full.updatedAt.toISOString(),
      stepsToReplicate: full.stepsToReplicate,
      aiVerified: true,
      priorityReason: 'Uncaught errors start at high; +1: /checkout is a critical path.',
    })
    const sparseIssue = (await body(await api.getIssue(key, sparse.id))).issue as Body
    expect(sparseIssue).toMatchObject({
      stepsToReplicate: null,
      aiVerified: null,
      description: null,
      priorityReason: null,
      serverMessage: null,
    })
    expect(new Date(String(sparseIssue.createdAt)).toISOString()).toBe(sparseIssue.createdAt)
  })
})

describe('GET /api/v1/issues: order and keyset pages', () => {
  it('orders equal createdAt by id descending', async () => {
    const org = (await createOrganization(database.db, { name: 'Ties' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const at = new Date('2026-01-01T00:00:00.000Z')
    const rows = await Promise.all(
      Array.from({ length: 7 }, () => seedIssue(database.db, org, { createdAt: at })),
    )
    const expected = rows
      .map((r) => r.id)
      .sort()
      .reverse()
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await body(await api.listIssues(key, { limit: 2, cursor }))
      seen.push(...(page.issues as Body[]).map((i) => String(i.id)))
      cursor = (page.nextCursor as string | null) ?? undefined
    } while (cursor)
    expect(seen).toEqual(expected)
  })

  it('pages through 1,000 issues with every limit edge, stable while rows are inserted', async () => {
    const org = (await createOrganization(database.db, { name: 'Thousand' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    await seedIssues(database.db, org, 1000)
    // What a traversal must see: exactly the rows that existed when it started, in order.
    const currentOrder = async () =>
      (
        await database.db
          .select({ id: issues.id })
          .from(issues)
          .where(eq(issues.organizationId, org))
          .orderBy(desc(issues.createdAt), desc(issues.id))
      ).map((r) => r.id)

    // the default page is 25
    const first = await body(await api.listIssues(key))
    expect((first.issues as Body[]).length).toBe(25)

    for (const limit of [1, 7, 200]) {
      const expected = await currentOrder()
      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const response = await api.listIssues(key, { limit, cursor })
        expect(response.status).toBe(200)
        const page = await body(response)
        seen.push(...(page.issues as Body[]).map((i) => String(i.id)))
        cursor = (page.nextCursor as string | null) ?? undefined
        pages++
        // newer rows arriving between page requests never shift the pages already being read
        if (pages % 50 === 1) await seedIssue(database.db, org)
        if (limit === 1 && pages > 30) break
      } while (cursor)
      if (limit === 1) expect(seen).toEqual(expected.slice(0, seen.length))
      else expect(seen).toEqual(expected)
      if (limit === 200) expect(pages).toBe(Math.ceil(expected.length / 200))
    }
  })

  it.each([
    ['0', 'limit must be an integer between 1 and 200'],
    ['201', 'limit must be an integer between 1 and 200'],
    ['abc', 'limit must be an integer between 1 and 200'],
    ['1.5', 'limit must be an integer between 1 and 200'],
    ['-1', 'limit must be an integer between 1 and 200'],
    ['', 'limit must be an integer between 1 and 200'],
  ])('limit=%s answers 400 %s', async (limit, message) => {
    const response = await api.listIssues(readKey, { limit })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: message })
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('filters by status, and refuses an unknown status', async () => {
    const org = (await createOrganization(database.db, { name: 'Statuses' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const resolved = await seedIssue(database.db, org, { status: 'resolved' })
    await seedIssue(database.db, org, { status: 'unresolved' })
    const page = await body(await api.listIssues(key, { status: 'resolved' }))
    expect((page.issues as Body[]).map((i) => i.id)).toEqual([resolved.id])
    const bad = await api.listIssues(key, { status: 'open' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({
      error: 'status must be one of: unresolved, ticket_created, transient, resolved',
    })
  })

  it('refuses tampered, foreign and cross-filter cursors with 400', async () => {
    const org = (await createOrganization(database.db, { name: 'Cursors' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    await seedIssues(database.db, org, 5)
    await seedIssues(database.db, orgId, 5)
    const mine = String((await body(await api.listIssues(key, { limit: 2 }))).nextCursor)
    const theirs = String((await body(await api.listIssues(readKey, { limit: 2 }))).nextCursor)
    const [payload, signature] = mine.split('.')
    // A changed signature: its last two characters replaced by two that differ from them (a
    // fixed replacement would leave about one real signature in 4,096 unchanged).
    const tail = signature!.slice(-2) === 'AA' ? 'BB' : 'AA'
    const forged = `${Buffer.from(JSON.stringify([Date.now(), '00000000-0000-4000-8000-000000000000'])).toString('base64url')}.${signature}`
    const cases = [
      theirs,
      forged,
      `${payload}.${signature!.slice(0, -2)}${tail}`,
      `${payload}x.${signature}`,
      'garbage',
      '..',
      `${mine}.extra`,
    ]
    for (const cursor of cases) {
      const response = await api.listIssues(key, { limit: 2, cursor })
      expect(response.status, cursor).toBe(400)
      expect(((await response.json()) as Body).error).toBe(
        'cursor is invalid: pass the nextCursor of the previous page unchanged',
      )
    }
    // a cursor of the unfiltered list does not continue a filtered one
    expect((await api.listIssues(key, { limit: 2, cursor: mine, status: 'unresolved' })).status).toBe(400)
    expect((await api.listIssues(key, { limit: 2, cursor: mine })).status).toBe(200)
  })
})

describe('GET /api/v1/issues/{issueId}', () => {
  it('404 Issue not found for an unknown, another organization’s or a malformed id', async () => {
    const other = (await createOrganization(database.db, { name: 'Other' })).id
    const theirs = await seedIssue(database.db, other)
    for (const id of ['00000000-0000-4000-8000-000000000000', theirs.id, 'not-a-uuid', "1' or '1'='1"]) {
      const response = await api.getIssue(readKey, id)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Issue not found' })
    }
  })
})

describe('PATCH /api/v1/issues/{issueId}', () => {
  it('sets each status, records who changed it, and moves updatedAt', async () => {
    const issue = await seedIssue(database.db, orgId, { updatedAt: new Date('2026-01-01T00:00:00Z') })
    let previous = issue.status
    for (const status of ['ticket_created', 'transient', 'resolved', 'unresolved'] as const) {
      const response = await api.patchIssue(writeKey, issue.id, { status })
      expect(response.status).toBe(200)
      const updated = (await body(response)).issue as Body
      expect(updated.status).toBe(status)
      expect(updated.id).toBe(issue.id)
      expect(new Date(String(updated.updatedAt)).getTime()).toBeGreaterThan(issue.updatedAt.getTime())
      expect(Object.keys(updated)).toContain('stepsToReplicate')
      const activities = await database.db
        .select()
        .from(issueActivities)
        .where(eq(issueActivities.issueId, issue.id))
      expect(activities.at(-1)).toMatchObject({
        kind: 'status_changed',
        fromStatus: previous,
        toStatus: status,
        actorType: 'credential',
        actorId: writeKeyId,
      })
      previous = status
    }
  })

  it('returns the issue unchanged when the status is the current one', async () => {
    const issue = await seedIssue(database.db, orgId, {
      status: 'transient',
      updatedAt: new Date('2026-02-02T00:00:00Z'),
    })
    const response = await api.patchIssue(writeKey, issue.id, { status: 'transient' })
    expect(response.status).toBe(200)
    const answered = (await body(response)).issue as Body
    expect(answered.updatedAt).toBe('2026-02-02T00:00:00.000Z')
    const activities = await database.db
      .select()
      .from(issueActivities)
      .where(eq(issueActivities.issueId, issue.id))
    expect(activities).toHaveLength(0)
  })

  it.each([
    ['invalid JSON', '{"status":', 'Request body must be valid JSON'],
    ['an empty body', '', 'Request body must be valid JSON'],
    [
      'an unknown status',
      { status: 'done' },
      'status must be one of: unresolved, ticket_created, transient, resolved',
    ],
    ['no status', {}, 'status must be one of: unresolved, ticket_created, transient, resolved'],
    [
      'a status of another type',
      { status: 3 },
      'status must be one of: unresolved, ticket_created, transient, resolved',
    ],
    ['an array', [], 'status must be one of: unresolved, ticket_created, transient, resolved'],
    ['null', 'null', 'status must be one of: unresolved, ticket_created, transient, resolved'],
  ])('400 for %s, and nothing changes', async (_label, payload, message) => {
    const issue = await seedIssue(database.db, orgId)
    const response = await api.patchIssue(writeKey, issue.id, payload)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: message })
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row!.status).toBe('unresolved')
    expect(row!.updatedAt.getTime()).toBe(issue.updatedAt.getTime())
  })

  it('404 for another organization’s issue, and it stays as it was', async () => {
    const other = (await createOrganization(database.db, { name: 'Other PATCH' })).id
    const theirs = await seedIssue(database.db, other)
    const response = await api.patchIssue(writeKey, theirs.id, { status: 'resolved' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'Issue not found' })
    const [row] = await database.db.select().from(issues).where(eq(issues.id, theirs.id))
    expect(row!.status).toBe('unresolved')
  })

  it('403 Missing required scope: write:issues for a read-only key', async () => {
    const issue = await seedIssue(database.db, orgId)
    const response = await api.patchIssue(readKey, issue.id, { status: 'resolved' })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({ error: 'Missing required scope: write:issues' })
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('serialises concurrent changes: each recorded change starts from the previous one', async () => {
    const issue = await seedIssue(database.db, orgId)
    const statuses = ['resolved', 'transient', 'ticket_created', 'resolved', 'unresolved'] as const
    await Promise.all(statuses.map((status) => api.patchIssue(writeKey, issue.id, { status })))
    const activities = await database.db
      .select()
      .from(issueActivities)
      .where(eq(issueActivities.issueId, issue.id))
      .orderBy(issueActivities.createdAt)
    for (let i = 1; i < activities.length; i++)
      expect(activities[i]!.fromStatus).toBe(activities[i - 1]!.toStatus)
    const [row] = await database.db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row!.status).toBe(activities.at(-1)?.toStatus ?? 'unresolved')
  })
})
