import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { getIssue, getIssueJson } from '@/lib/issues/get-issue'
import { getIssueDetail } from '@/lib/issues/issue-detail'
import { listIssues, listIssuesJson } from '@/lib/issues/list-issues'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'

/**
 * The Data API's issue reads send JSON written by the database (lib/issues/issue-json.ts).
 * It must be the very bytes JSON.stringify makes of the objects the rest of the service
 * builds from the same rows: strings with every kind of character, nulls, booleans, and
 * timestamps with microseconds (a JavaScript Date keeps milliseconds).
 */

let database: TestDatabase
let org: string
let key: string

const AWKWARD = [
  'quotes " and \\ backslashes \\" and a slash /',
  'controls \u0001\u0008\t\n\f\r\u001f and DEL \u007f',
  'unicode é ß 漢字 😀 and separators \u2028\u2029',
  '<script>alert("x")</script> & \'single\'',
  '',
]

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  org = (await createOrganization(database.db, { name: 'JSON' })).id
  key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
  let i = 0
  for (const text of AWKWARD)
    for (const aiVerified of [true, false, null]) {
      i++
      const issue = await seedIssue(database.db, org, {
        title: `${text} ${i}`,
        description: aiVerified === null ? null : text,
        stepsToReplicate: aiVerified ? text : null,
        previewUrl: aiVerified === false ? null : `https://example.com/?q=${encodeURIComponent(text)}`,
        ticketProvider: aiVerified ? 'linear' : null,
        ticketUrl: aiVerified ? `https://linear.app/x/ENG-${i}` : null,
        ticketIdentifier: aiVerified ? `ENG-${i}` : null,
        priorityReason: aiVerified === false ? text : null,
        firstRelease: aiVerified ? text : null,
        lastRelease: aiVerified === null ? null : `${text}-next`,
        // originalStack is appended to the database's JSON (issue-json.ts): awkward text there too.
        // serverMessage is read from the evidence by the database too; a non-string reads as null.
        evidence: aiVerified
          ? {
              serverMessage: text,
              release: text,
              frames: [
                {
                  minified: { fn: text, url: `https://cdn.example/${text}.js`, line: 1, column: i },
                  original: {
                    fn: text || null,
                    source: `src/${text}.ts`,
                    line: i,
                    column: 3,
                    context: { pre: [text], line: `throw ${text}`, post: [] },
                  },
                  status: 'mapped',
                },
                { minified: { fn: '', url: text, line: 2, column: 9 }, original: null, status: 'no_map' },
              ],
            }
          : aiVerified === false
            ? { serverMessage: i % 2 ? 42 : { message: text } }
            : null,
        aiVerified,
        status: i % 2 ? 'unresolved' : 'resolved',
        sessionCount: i * 1_000_003,
      })
      // Microseconds, some past .999, and equal milliseconds across rows (the keyset's tie-break).
      await database.db
        .update(issues)
        .set({
          createdAt: sql`timestamptz '2026-03-04 05:06:07.123456+00' + ${(i % 4) * 999} * interval '1 microsecond'`,
          updatedAt: sql`timestamptz '2026-03-04 05:06:07.999999+00' + ${i} * interval '1 day'`,
        })
        .where(eq(issues.id, issue.id))
    }
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

describe('issue JSON written by the database equals JSON.stringify of the issue objects', () => {
  it('single issues', async () => {
    const rows = await database.db
      .select({ id: issues.id })
      .from(issues)
      .where(eq(issues.organizationId, org))
    expect(rows.length).toBe(AWKWARD.length * 3)
    const stacks = await Promise.all(
      rows.map(async ({ id }) => (await getIssue(database.db, { organizationId: org }, id)).originalStack),
    )
    expect(stacks.filter((stack) => stack?.frames.length === 2)).toHaveLength(AWKWARD.length)
    for (const { id } of rows)
      expect(await getIssueJson(database.db, { organizationId: org }, id)).toBe(
        JSON.stringify(await getIssue(database.db, { organizationId: org }, id)),
      )
  })

  it.each([undefined, 'unresolved' as const])('every page, with status %s', async (status) => {
    let cursor: string | undefined
    let pages = 0
    do {
      const query = { limit: 2, cursor, status }
      const objects = await listIssues(database.db, { organizationId: org }, query)
      const json = await listIssuesJson(database.db, { organizationId: org }, query)
      expect(`[${json.items}]`).toBe(JSON.stringify(objects.items))
      expect(json.nextCursor).toBe(objects.nextCursor)
      cursor = objects.nextCursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBeGreaterThan(3)
  })

  it('over HTTP: the list and single answers are the same bytes as the objects serialised', async () => {
    const objects = await listIssues(database.db, { organizationId: org }, { limit: 25 })
    const list = await api.listIssues(key)
    expect(await list.text()).toBe(JSON.stringify({ issues: objects.items, nextCursor: objects.nextCursor }))
    const first = objects.items[0]!
    const single = await api.getIssue(key, first.id)
    // The single answer is the issue with its detail (issue 36), the detail appended to the database's text.
    expect(await single.text()).toBe(
      JSON.stringify({ issue: (await getIssueDetail(database.db, { organizationId: org }, first.id)).issue }),
    )
  })
})
