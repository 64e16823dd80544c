import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, issueVerifications, outbox, releases } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { seedIssue } from '../helpers/seed'

/** POST /api/v1/issues/{issueId}/verifications (docs/releases.md#verification) over HTTP. */

let database: TestDatabase
let orgId: string
let otherOrg: string
const keys = {} as Record<'guard' | 'ci' | 'read' | 'write' | 'foreign', string>

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Verified' })).id
  otherOrg = (await createOrganization(database.db, { name: 'Elsewhere' })).id
  const key = async (
    organizationId: string,
    options: Parameters<typeof createKey>[1] extends infer O ? Partial<O> : never,
  ) => (await createKey(database.db, { organizationId, type: 'api', ...options })).key
  keys.guard = await key(orgId, { verifications: true })
  keys.ci = await key(orgId, { verifications: true, sourcemaps: true })
  keys.read = await key(orgId, {})
  keys.write = await key(orgId, { write: true })
  keys.foreign = await key(otherOrg, { verifications: true })
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

type Body = Record<string, unknown>
const json = async (response: Response) => (await response.json()) as Body

async function stateOf(issueId: string) {
  const db = database.db
  const [runs, activities, events] = await Promise.all([
    db.select().from(issueVerifications).where(eq(issueVerifications.issueId, issueId)),
    db.select().from(issueActivities).where(eq(issueActivities.issueId, issueId)),
    db.select().from(outbox).where(eq(outbox.name, EVENTS.issueVerified)),
  ])
  return {
    runs,
    activities,
    events: events.filter((event) => (event.payload as { issueId?: string }).issueId === issueId),
  }
}

describe('POST /api/v1/issues/{issueId}/verifications', () => {
  it('records a passed run: 201, the row, a verification activity and issue/verified in the outbox', async () => {
    const issue = await seedIssue(database.db, orgId, { status: 'resolved' })
    const response = await api.postVerification(keys.guard, issue.id, {
      status: 'passed',
      baseUrl: 'https://preview-42.example.com/app',
      release: '3.2.0',
      durationMs: 1834,
    })
    expect(response.status).toBe(201)
    const { verification } = (await json(response)) as { verification: Body }
    expect(verification).toEqual({
      id: expect.any(String),
      status: 'passed',
      release: '3.2.0',
      baseUrl: 'https://preview-42.example.com/app',
      summary: null,
      durationMs: 1834,
      runner: 'playwright',
      createdAt: expect.stringMatching(/Z$/),
    })
    const { runs, activities, events } = await stateOf(issue.id)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ organizationId: orgId, actorType: 'credential', runner: 'playwright' })
    expect(activities.map((a) => [a.kind, a.actorType, a.metadata])).toEqual([
      [
        'verification',
        'credential',
        {
          verificationId: verification.id,
          status: 'passed',
          release: '3.2.0',
          baseUrl: 'https://preview-42.example.com/app',
        },
      ],
    ])
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        issueId: issue.id,
        orgId,
        status: 'resolved',
        verificationId: verification.id,
        release: '3.2.0',
        baseUrl: 'https://preview-42.example.com/app',
        runner: 'playwright',
      }),
    ])
    // A preview's release is not a release of the organization: it would become a "next release".
    expect(await database.db.select().from(releases).where(eq(releases.organizationId, orgId))).toEqual([])
    // The issue shows it.
    const detail = (await json(await api.getIssue(keys.read, issue.id))).issue as Body
    expect(detail.verifications).toEqual([verification])
  })

  it('records a failed run with its summary cleaned of control characters, and sends no event', async () => {
    const issue = await seedIssue(database.db, orgId, { status: 'resolved' })
    const summary =
      '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\r\n\nExpected: 0\nReceived: 1\u0000\u0007\tdone'
    const response = await api.postVerification(keys.ci, issue.id, {
      status: 'failed',
      baseUrl: 'http://localhost:4173',
      summary,
      runner: 'agent',
    })
    expect(response.status).toBe(201)
    const { verification } = (await json(response)) as { verification: Body }
    expect(verification).toMatchObject({
      status: 'failed',
      release: null,
      durationMs: null,
      runner: 'agent',
      summary: '[31mError: expect(received).toBe(expected)[39m\n\nExpected: 0\nReceived: 1\tdone',
    })
    const { runs, activities, events } = await stateOf(issue.id)
    expect(runs).toHaveLength(1)
    expect(activities.map((a) => a.kind)).toEqual(['verification'])
    expect(events).toEqual([])
    // Newest first on the issue.
    await api.postVerification(keys.ci, issue.id, { status: 'passed', baseUrl: 'http://localhost:4173' })
    const detail = (await json(await api.getIssue(keys.read, issue.id))).issue as { verifications: Body[] }
    expect(detail.verifications.map((v) => v.status)).toEqual(['passed', 'failed'])
  })

  it('refuses bad input with a clear 400 and records nothing', async () => {
    const issue = await seedIssue(database.db, orgId)
    const ok = { status: 'passed', baseUrl: 'https://preview.example.com' }
    const cases: [unknown, string][] = [
      ['{', 'Request body must be valid JSON'],
      [[ok], 'The body must be a JSON object'],
      [{ ...ok, status: 'green' }, 'status must be one of: passed, failed'],
      [{ baseUrl: ok.baseUrl }, 'status must be one of: passed, failed'],
      [{ status: 'passed' }, 'baseUrl must be the http(s) address the reproduction ran against'],
      [{ ...ok, baseUrl: 'javascript:alert(1)' }, 'baseUrl must be an http or https address'],
      [{ ...ok, baseUrl: 'file:///etc/passwd' }, 'baseUrl must be an http or https address'],
      [{ ...ok, baseUrl: 'not a url' }, 'baseUrl must be an http or https address'],
      [
        { ...ok, baseUrl: 'https://ci:hunter2@preview.example.com' },
        'baseUrl must not contain a user name or password',
      ],
      [
        { ...ok, baseUrl: `https://preview.example.com/${'a'.repeat(2048)}` },
        'baseUrl must be at most 2048 characters',
      ],
      [{ ...ok, release: '' }, 'release must not be empty'],
      [{ ...ok, release: 'r'.repeat(201) }, 'release must be at most 200 characters'],
      [{ ...ok, release: 3 }, 'release must be a string'],
      [{ ...ok, summary: 'x'.repeat(4001) }, 'summary must be at most 4000 characters'],
      [{ ...ok, summary: '\ud800' }, 'summary must not contain broken (unpaired) Unicode surrogates'],
      [{ ...ok, durationMs: -1 }, 'durationMs must be an integer from 0 to 86400000'],
      [{ ...ok, durationMs: 1.5 }, 'durationMs must be an integer from 0 to 86400000'],
      [{ ...ok, durationMs: 86_400_001 }, 'durationMs must be an integer from 0 to 86400000'],
      [{ ...ok, durationMs: '5' }, 'durationMs must be an integer from 0 to 86400000'],
      [{ ...ok, runner: 'jenkins' }, 'runner must be one of: playwright, agent'],
    ]
    for (const [body, error] of cases) {
      const response = await api.postVerification(keys.guard, issue.id, body)
      expect([response.status, await json(response)], JSON.stringify(body).slice(0, 80)).toEqual([
        400,
        { error },
      ])
    }
    // A summary of 4000 characters beyond the BMP is 8000 code units, and still allowed.
    const long = await api.postVerification(keys.guard, issue.id, {
      ...ok,
      status: 'failed',
      summary: '😀'.repeat(4000),
    })
    expect(long.status).toBe(201)
    const { runs, activities } = await stateOf(issue.id)
    expect(runs).toHaveLength(1)
    expect(activities).toHaveLength(1)
  })

  it('answers 404 for an unknown, malformed or foreign issue, and 401/403 for the wrong credential', async () => {
    const issue = await seedIssue(database.db, orgId)
    const run = { status: 'passed', baseUrl: 'https://preview.example.com' }
    for (const [token, id, status, error] of [
      [keys.foreign, issue.id, 404, 'Issue not found'],
      [keys.guard, 'nope', 404, 'Issue not found'],
      [keys.guard, '00000000-0000-4000-8000-000000000000', 404, 'Issue not found'],
      [keys.read, issue.id, 403, 'Missing required scope: write:verifications'],
      [keys.write, issue.id, 403, 'Missing required scope: write:verifications'],
      [null, issue.id, 401, 'Missing or invalid bearer token'],
    ] as const) {
      const response = await api.postVerification(token, id, run)
      expect([response.status, await json(response)]).toEqual([status, { error }])
    }
    // A verification key reads nothing.
    expect((await api.getIssue(keys.guard, issue.id)).status).toBe(403)
    expect((await api.reproductions(keys.guard)).status).toBe(403)
    expect((await stateOf(issue.id)).runs).toEqual([])
  })
})
