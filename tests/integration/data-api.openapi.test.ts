import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GET as getOpenApi } from '@/app/api/v1/openapi.json/route'
import { issueActivities, issueSessions, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { upsertRelease } from '@/lib/releases/record-release'
import { makeBatch } from '../fixtures/replay-batch'
import { api, releasesApi, savedSearchesApi, sourcemapsApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { seedInsight, seedIssue, seedOAuthToken, seedSignal } from '../helpers/seed'
import { linkIssue, matchSignal, seedSession, seedTrail, target } from '../helpers/sessions'

type Json = Record<string, unknown>
let database: TestDatabase
let document: {
  openapi: string
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Json }> }> }>
  >
  components: { schemas: Record<string, Json> }
}
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const response = getOpenApi()
  expect(response.status).toBe(200)
  document = (await response.json()) as typeof document
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

function schemaFor(path: string, method: string, status: number): Json {
  const content = document.paths[path]?.[method]?.responses[String(status)]?.content
  const schema = content?.['application/json']?.schema
  if (!schema) throw new Error(`the document has no ${status} answer for ${method.toUpperCase()} ${path}`)
  const ref = schema.$ref as string | undefined
  return ref ? document.components.schemas[ref.split('/').pop()!]! : schema
}

/** Asserts that a real answer of the handler matches what the document promises. */
async function expectDocumented(path: string, method: string, response: Response) {
  const body = await response.json()
  const validate = ajv.compile(schemaFor(path, method, response.status))
  expect(validate(body), `${method} ${path} ${response.status}: ${ajv.errorsText(validate.errors)}`).toBe(
    true,
  )
}

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every Data API and ingest operation', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/api/sdk/replay',
        '/api/v1/insights',
        '/api/v1/issues',
        '/api/v1/issues/{issueId}',
        '/api/v1/issues/{issueId}/reproduction',
        '/api/v1/signals',
        '/api/v1/sessions',
        '/api/v1/sessions/{sessionId}',
        '/api/v1/sessions/{sessionId}/timeline',
        // Notes and the ticket link (issue 18)
        '/api/v1/issues/{issueId}/notes',
        '/api/v1/issues/{issueId}/ticket',
        // Tickets created through an integration (issue 22)
        '/api/v1/issues/{issueId}/tickets',
        // Source maps (issue 19)
        '/api/v1/sourcemaps',
        '/api/v1/sourcemaps/{release}',
        // Releases and their health (issue 36)
        '/api/v1/releases',
        '/api/v1/releases/{version}',
        // Erasure of one person (issue 33)
        '/api/v1/erasures',
        '/api/v1/erasures/{erasureId}',
        // Exports of one person (issue 33)
        '/api/v1/exports',
        '/api/v1/exports/{exportId}',
        // Re-masking of stored sessions (issue 33)
        '/api/v1/remaskings',
        '/api/v1/remaskings/{remaskingId}',
        // Audit trail, retention and pins (issue 33)
        '/api/v1/audit-events',
        '/api/v1/retention',
        '/api/v1/sessions/{sessionId}/pin',
        // Verification by reproduction (issue 36)
        '/api/v1/issues/{issueId}/verifications',
        '/api/v1/reproductions',
        // Share links (issue 37)
        '/api/v1/sessions/{sessionId}/share-links',
        '/api/v1/share-links/{shareLinkId}',
        // Saved searches (issue 37)
        '/api/v1/saved-searches',
        '/api/v1/saved-searches/{savedSearchId}',
      ].sort(),
    )
    expect(Object.keys(document.paths['/api/v1/issues/{issueId}']!).sort()).toEqual(['get', 'patch'])
    expect(Object.keys(document.paths['/api/v1/issues/{issueId}/notes']!).sort()).toEqual(['get', 'post'])
    expect(Object.keys(document.paths['/api/v1/issues/{issueId}/ticket']!)).toEqual(['put'])
    expect(Object.keys(document.paths['/api/v1/issues/{issueId}/tickets']!)).toEqual(['post'])
    for (const schema of Object.values(document.components.schemas))
      expect(() => ajv.compile(schema)).not.toThrow()
  })

  it('describes the real answers of every Data API endpoint, successes and errors', async () => {
    const org = (await createOrganization(database.db, { name: 'Documented' })).id
    const read = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const write = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
    const issue = await seedIssue(database.db, org, {
      ticketProvider: 'github',
      ticketUrl: 'https://github.com/a/b/issues/1',
      ticketIdentifier: '#1',
    })
    await seedIssue(database.db, org, {
      description: null,
      previewUrl: null,
      stepsToReplicate: null,
      aiVerified: false,
    })
    await seedSignal(database.db, org)
    await seedSignal(database.db, org, { lastMatchAt: new Date(), matchCount: 2 })
    await seedInsight(database.db, org)

    await expectDocumented('/api/v1/issues', 'get', await api.listIssues(read, { limit: 1 }))
    await expectDocumented('/api/v1/issues', 'get', await api.listIssues(read, { status: 'resolved' }))
    await expectDocumented('/api/v1/issues', 'get', await api.listIssues(read, { limit: 0 }))
    await expectDocumented('/api/v1/issues', 'get', await api.listIssues(null))
    await expectDocumented('/api/v1/issues/{issueId}', 'get', await api.getIssue(read, issue.id))
    await expectDocumented('/api/v1/issues/{issueId}', 'get', await api.getIssue(read, 'nope'))
    await expectDocumented(
      '/api/v1/issues/{issueId}',
      'patch',
      await api.patchIssue(write, issue.id, { status: 'resolved' }),
    )
    await expectDocumented(
      '/api/v1/issues/{issueId}',
      'patch',
      await api.patchIssue(read, issue.id, { status: 'resolved' }),
    )
    await expectDocumented('/api/v1/issues/{issueId}', 'patch', await api.patchIssue(write, issue.id, '{'))
    // Resolve in a release (issue 36): the body's new fields, their 400, and the detail's shapes filled.
    await upsertRelease(database.db, { organizationId: org, version: '2.0.0' })
    await expectDocumented(
      '/api/v1/issues/{issueId}',
      'patch',
      await api.patchIssue(write, issue.id, { status: 'resolved', inRelease: '2.0.0' }),
    )
    await expectDocumented(
      '/api/v1/issues/{issueId}',
      'patch',
      await api.patchIssue(write, issue.id, { status: 'resolved', inRelease: '9.9.9' }),
    )
    const [old] = await database.db
      .insert(replaySessions)
      .values({
        organizationId: org,
        externalId: 'documented-old-release',
        startedAt: new Date(),
        lastActivityAt: new Date(),
        entryUrl: 'https://shop.example/',
        anonymousId: 'anon-documented',
        release: '1.0.0',
      })
      .returning({ id: replaySessions.id })
    await database.db.insert(issueSessions).values({
      issueId: issue.id,
      sessionId: old!.id,
      organizationId: org,
      firstOccurrenceAt: new Date(),
      oldRelease: true,
    })
    await database.db.insert(issueActivities).values({
      issueId: issue.id,
      organizationId: org,
      kind: 'regressed',
      actorType: 'system',
      metadata: { sessionId: old!.id, offsetMs: 0, release: '2.1.0', resolvedInRelease: '2.0.0' },
    })
    const detailed = await api.getIssue(read, issue.id)
    expect(
      ((await detailed.clone().json()) as { issue: { regression: unknown } }).issue.regression,
    ).not.toBeNull()
    await expectDocumented('/api/v1/issues/{issueId}', 'get', detailed)
    await expectDocumented(
      '/api/v1/issues/{issueId}/reproduction',
      'get',
      await api.getReproduction(read, issue.id),
    )
    await expectDocumented(
      '/api/v1/issues/{issueId}/reproduction',
      'get',
      await api.getReproduction(read, 'nope'),
    )
    await expectDocumented(
      '/api/v1/issues/{issueId}/reproduction',
      'get',
      await api.getReproduction(null, issue.id),
    )
    // Verification by reproduction (issue 36)
    const guard = (await createKey(database.db, { organizationId: org, type: 'api', verifications: true }))
      .key
    const run = {
      status: 'failed',
      baseUrl: 'https://preview.example',
      release: '3.2.0',
      summary: 'Expected: 0',
    }
    const verifications = '/api/v1/issues/{issueId}/verifications'
    await expectDocumented(verifications, 'post', await api.postVerification(guard, issue.id, run))
    await expectDocumented(verifications, 'post', await api.postVerification(guard, 'nope', run))
    await expectDocumented(verifications, 'post', await api.postVerification(read, issue.id, run))
    await expectDocumented(
      verifications,
      'post',
      await api.postVerification(guard, issue.id, { status: 'ok' }),
    )
    await expectDocumented('/api/v1/issues/{issueId}', 'get', await api.getIssue(read, issue.id))
    await expectDocumented(
      '/api/v1/reproductions',
      'get',
      await api.reproductions(read, { status: 'unresolved' }),
    )
    await expectDocumented('/api/v1/reproductions', 'get', await api.reproductions(read, { release: 'nope' }))
    await expectDocumented('/api/v1/reproductions', 'get', await api.reproductions(guard))
    await expectDocumented('/api/v1/signals', 'get', await api.listSignals(read))
    await expectDocumented('/api/v1/insights', 'get', await api.listInsights(read))
    await expectDocumented('/api/v1/insights', 'get', await api.listInsights(read, { limit: 500 }))
    // Source maps (issue 19)
    const upload = (await createKey(database.db, { organizationId: org, type: 'api', sourcemaps: true })).key
    const form = new FormData()
    form.set('release', 'v1')
    form.append('file', new File([JSON.stringify({ version: 3, sources: [], mappings: '' })], 'app.js.map'))
    await expectDocumented('/api/v1/sourcemaps', 'post', await sourcemapsApi.upload(upload, form))
    await expectDocumented('/api/v1/sourcemaps', 'post', await sourcemapsApi.upload(read, form))
    await expectDocumented('/api/v1/sourcemaps', 'get', await sourcemapsApi.listReleases(read))
    await expectDocumented('/api/v1/sourcemaps/{release}', 'get', await sourcemapsApi.getRelease(read, 'v1'))
    await expectDocumented('/api/v1/sourcemaps/{release}', 'get', await sourcemapsApi.getRelease(read, 'v2'))
    await expectDocumented(
      '/api/v1/sourcemaps/{release}',
      'delete',
      await sourcemapsApi.deleteRelease(upload, 'v1'),
    )
    // Releases and their health (issue 36)
    await seedSession(database.db, org, { release: '1.0.0', errorCount: 1, userId: 'u-1' })
    await seedSession(database.db, org, { release: '1.0.0', errorCount: null })
    await expectDocumented(
      '/api/v1/releases',
      'post',
      await releasesApi.declare(upload, { version: '1.0.0' }),
    )
    await expectDocumented(
      '/api/v1/releases',
      'post',
      await releasesApi.declare(upload, { version: '1.0.0' }),
    )
    await expectDocumented(
      '/api/v1/releases',
      'post',
      await releasesApi.declare(upload, { version: '1.1.0', deployedAt: '2026-01-01T00:00:00Z' }),
    )
    await expectDocumented('/api/v1/releases', 'post', await releasesApi.declare(upload, { version: '' }))
    await expectDocumented('/api/v1/releases', 'post', await releasesApi.declare(read, { version: '2.0.0' }))
    await expectDocumented('/api/v1/releases', 'get', await releasesApi.list(read, { limit: 1 }))
    await expectDocumented('/api/v1/releases', 'get', await releasesApi.list(read, { limit: 101 }))
    await expectDocumented('/api/v1/releases', 'get', await releasesApi.list(null))
    await expectDocumented('/api/v1/releases/{version}', 'get', await releasesApi.get(read, '1.0.0'))
    await expectDocumented('/api/v1/releases/{version}', 'get', await releasesApi.get(read, '1.1.0'))
    await expectDocumented('/api/v1/releases/{version}', 'get', await releasesApi.get(read, '9.9.9'))
    await expectDocumented('/api/v1/releases/{version}', 'get', await releasesApi.get(read, 'x'.repeat(201)))
  })

  it('describes a reproduction built from a real trail (issue 18), with its steps and limitations', async () => {
    const db = database.db
    const org = (await createOrganization(db, { name: 'Reproduction documented' })).id
    const read = (await createKey(db, { organizationId: org, type: 'api' })).key
    const at = Date.parse('2026-05-02T12:00:00Z')
    const page = 'https://shop.example/login'
    const message = "Cannot read properties of undefined (reading 'code')"
    const issue = await seedIssue(db, org, {
      kind: 'js_error',
      title: `TypeError: ${message}`,
      evidence: { type: 'TypeError', message, pageUrl: page },
    })
    const session = await seedSession(db, org, {
      startedAt: new Date(at),
      entryUrl: page,
      trailTruncated: false,
    })
    await seedTrail(db, session, [
      { kind: 'navigation', at, pageUrl: page, url: page, change: 'load' },
      {
        kind: 'input',
        at: at + 1000,
        pageUrl: page,
        target: target({
          tag: 'input',
          role: null,
          name: 'Password',
          type: 'password',
          selector: 'input#pw',
        }),
        control: 'text',
        value: null,
        masked: true,
        length: 8,
        checked: null,
      },
      {
        kind: 'navigation',
        at: at + 2000,
        pageUrl: 'https://elsewhere.example/',
        url: 'https://elsewhere.example/',
        change: 'load',
      },
      { kind: 'click', at: at + 9000, pageUrl: page, target: target(), count: 1 },
      {
        kind: 'error',
        at: at + 9005,
        pageUrl: page,
        message: `TypeError: ${message}`,
        stack: null,
        source: 'uncaught',
      },
    ])
    await linkIssue(db, session, issue.id, new Date(at + 9005))

    const response = await api.getReproduction(read, issue.id)
    const { reproduction } = (await response.clone().json()) as {
      reproduction: { sessionId: string; steps: number; limitations: string[] }
    }
    expect(reproduction.sessionId).toBe(session.id)
    expect(reproduction.steps).toBeGreaterThan(1)
    expect(reproduction.limitations.length).toBeGreaterThan(1)
    await expectDocumented('/api/v1/issues/{issueId}/reproduction', 'get', response)
  })

  it('describes the real answers of the sessions endpoints (issue 18), for every timeline entry kind', async () => {
    const db = database.db
    const org = (await createOrganization(db, { name: 'Sessions documented' })).id
    const read = (await createKey(db, { organizationId: org, type: 'api' })).key
    const at = Date.parse('2026-05-01T12:00:00Z')
    const page = 'https://shop.example/p'
    const withTrail = await seedSession(db, org, { startedAt: new Date(at), trailTruncated: false })
    await seedTrail(db, withTrail, [
      { kind: 'navigation', at, pageUrl: page, url: page, change: 'load' },
      { kind: 'click', at: at + 1, pageUrl: page, target: target(), count: 1 },
      {
        kind: 'input',
        at: at + 2,
        pageUrl: page,
        target: target({ tag: 'input' }),
        control: 'toggle',
        value: null,
        masked: false,
        length: 0,
        checked: true,
      },
      { kind: 'console', at: at + 3, pageUrl: page, level: 'warn', message: 'w' },
      { kind: 'error', at: at + 4, pageUrl: page, message: 'e', stack: null, source: 'unhandled_rejection' },
      {
        kind: 'request',
        at: at + 5,
        pageUrl: page,
        method: 'GET',
        url: page,
        status: null,
        durationMs: null,
        failed: true,
      },
      { kind: 'rage_click', at: at + 6, pageUrl: page, target: target({ role: null, name: null }), count: 4 },
      { kind: 'dead_click', at: at + 7, pageUrl: page, target: target() },
      { kind: 'custom', at: at + 8, pageUrl: page, tag: 'checkout', payload: null },
    ])
    const issue = await seedIssue(db, org)
    await linkIssue(db, withTrail, issue.id, new Date(at + 4))
    await matchSignal(db, withTrail, (await seedSignal(db, org)).id)
    const withDigest = await seedSession(db, org, {
      digest: {
        pages: [{ url: page, at }],
        clicks: [],
        errors: [{ message: 'boom', url: page, at }],
        networkFailures: [],
        rageClicks: [],
        deadClicks: [],
      },
    })
    const fresh = await seedSession(db, org, {
      status: 'receiving',
      pageCount: null,
      viewport: null,
      userAgent: null,
    })
    await seedSession(db, org, { automation: 'reproduction' })

    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(read))
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(read, { limit: 1 }))
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(read, { hasErrors: 'maybe' }))
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(read, { automation: 'only' }))
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(read, { automation: 'all' }))
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(null))
    const writeOnly = (await seedOAuthToken(db, org, { scope: 'write:issues' })).token
    await expectDocumented('/api/v1/sessions', 'get', await api.listSessions(writeOnly))
    for (const session of [withTrail, withDigest, fresh]) {
      await expectDocumented('/api/v1/sessions/{sessionId}', 'get', await api.getSession(read, session.id))
      const timeline = await api.sessionTimeline(read, session.id)
      expect(timeline.status).toBe(200)
      await expectDocumented('/api/v1/sessions/{sessionId}/timeline', 'get', timeline)
    }
    await expectDocumented(
      '/api/v1/sessions/{sessionId}/timeline',
      'get',
      await api.sessionTimeline(read, withTrail.id, { around: issue.id, limit: 2, kinds: 'error,click' }),
    )
    await expectDocumented('/api/v1/sessions/{sessionId}', 'get', await api.getSession(read, 'nope'))
    await expectDocumented(
      '/api/v1/sessions/{sessionId}/timeline',
      'get',
      await api.sessionTimeline(read, withTrail.id, { windowMs: '0' }),
    )
  })

  it('describes the real answers of the saved search routes (issue 37)', async () => {
    const org = (await createOrganization(database.db, { name: 'Saved documented' })).id
    const read = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const write = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
    const list = '/api/v1/saved-searches'
    const one = '/api/v1/saved-searches/{savedSearchId}'
    const created = await savedSearchesApi.create(write, { name: 'Pay errors', query: 'error' })
    expect(created.status).toBe(201)
    const { savedSearch } = await created.clone().json()
    await expectDocumented(list, 'post', created)
    await expectDocumented(list, 'post', await savedSearchesApi.create(write, { name: 'x', query: 'click[' }))
    await expectDocumented(
      list,
      'post',
      await savedSearchesApi.create(write, { name: 'PAY errors', query: 'error' }),
    )
    await expectDocumented(list, 'post', await savedSearchesApi.create(read, { name: 'y', query: 'error' }))
    await expectDocumented(list, 'get', await savedSearchesApi.list(read, { limit: 1 }))
    await expectDocumented(list, 'get', await savedSearchesApi.list(read, { limit: 0 }))
    await expectDocumented(one, 'get', await savedSearchesApi.get(read, savedSearch.id))
    await expectDocumented(one, 'get', await savedSearchesApi.get(read, 'nope'))
    await expectDocumented(
      one,
      'patch',
      await savedSearchesApi.update(write, savedSearch.id, { name: 'Renamed' }),
    )
    await expectDocumented(
      one,
      'patch',
      await savedSearchesApi.update(write, savedSearch.id, { query: 'a = ' }),
    )
    await expectDocumented(one, 'patch', await savedSearchesApi.update(write, 'nope', { name: 'z' }))
    await seedSignal(database.db, org, { savedSearchId: savedSearch.id })
    await expectDocumented(one, 'delete', await savedSearchesApi.remove(write, savedSearch.id))
    await expectDocumented(one, 'delete', await savedSearchesApi.remove(write, 'nope'))
    await expectDocumented(one, 'delete', await savedSearchesApi.remove(read, savedSearch.id))
  })

  it('describes the real answers of the notes and ticket routes', async () => {
    const org = (await createOrganization(database.db, { name: 'Notes documented' })).id
    const read = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const write = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
    const issue = await seedIssue(database.db, org)
    const notes = '/api/v1/issues/{issueId}/notes'
    const ticket = '/api/v1/issues/{issueId}/ticket'
    const addNoteBody = ajv.compile(document.components.schemas.AddNoteBody!)
    const linkTicketBody = ajv.compile(document.components.schemas.LinkTicketBody!)
    expect(addNoteBody({ text: 'hello' })).toBe(true)
    expect(addNoteBody({})).toBe(false)
    const link = { provider: 'GitHub', url: 'https://github.com/a/b/issues/2', identifier: '#2' }
    expect(linkTicketBody(link)).toBe(true)
    expect(linkTicketBody({ ...link, identifier: null })).toBe(true)
    expect(linkTicketBody({ url: link.url })).toBe(false)

    const created = await api.addNote(write, issue.id, { text: 'documented' })
    expect(created.status).toBe(201)
    await expectDocumented(notes, 'post', created)
    await api.addNote(write, issue.id, { text: 'second' })
    await expectDocumented(notes, 'post', await api.addNote(write, issue.id, { text: '' }))
    await expectDocumented(notes, 'post', await api.addNote(read, issue.id, { text: 'x' }))
    await expectDocumented(notes, 'post', await api.addNote(write, 'nope', { text: 'x' }))
    await expectDocumented(notes, 'get', await api.listNotes(read, issue.id, { limit: 1 }))
    await expectDocumented(notes, 'get', await api.listNotes(read, issue.id))
    await expectDocumented(notes, 'get', await api.listNotes(read, issue.id, { limit: 101 }))
    await expectDocumented(notes, 'get', await api.listNotes(read, 'nope'))
    await expectDocumented(notes, 'get', await api.listNotes(null, issue.id))
    await expectDocumented(ticket, 'put', await api.putTicket(write, issue.id, link))
    await expectDocumented(ticket, 'put', await api.putTicket(write, issue.id, { ...link, url: 'x' }))
    await expectDocumented(ticket, 'put', await api.putTicket(read, issue.id, link))
    await expectDocumented(ticket, 'put', await api.putTicket(write, 'nope', link))
  })

  it('describes the real answers of the share link routes', async () => {
    const org = (await createOrganization(database.db, { name: 'Shares documented' })).id
    const read = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const write = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
    const session = await seedSession(database.db, org)
    const links = '/api/v1/sessions/{sessionId}/share-links'
    const one = '/api/v1/share-links/{shareLinkId}'
    const created = await api.createShareLink(write, session.id, { expiresInDays: 3, startAtMs: 10 })
    expect(created.status).toBe(201)
    const { shareLink } = (await created.clone().json()) as { shareLink: { id: string } }
    await expectDocumented(links, 'post', created)
    await expectDocumented(links, 'post', await api.createShareLink(write, session.id, { expiresInDays: 31 }))
    await expectDocumented(links, 'post', await api.createShareLink(write, 'nope', {}))
    await expectDocumented(links, 'post', await api.createShareLink(read, session.id, {}))
    await expectDocumented(links, 'get', await api.listShareLinks(read, session.id))
    await expectDocumented(links, 'get', await api.listShareLinks(null, session.id))
    await expectDocumented(one, 'delete', await api.revokeShareLink(write, shareLink.id))
    await expectDocumented(one, 'delete', await api.revokeShareLink(write, 'nope'))
  })

  it('describes the ingest request body and its answers', async () => {
    const org = (await createOrganization(database.db, { name: 'Ingest' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'ingest' })).key
    const batch = makeBatch({ sessionId: 'documented' })
    const validateBatch = ajv.compile(document.components.schemas.ReplayBatch!)
    expect(validateBatch(JSON.parse(JSON.stringify(batch))), ajv.errorsText(validateBatch.errors)).toBe(true)
    expect(validateBatch({ ...batch, replay: { events: [], sequence: 0 } })).toBe(false)

    await expectDocumented('/api/sdk/replay', 'post', await sendBatch(batch, { key }))
    await expectDocumented('/api/sdk/replay', 'post', await sendBatch({ session: {} }, { key }))
    await expectDocumented('/api/sdk/replay', 'post', await sendBatch(batch, { key: null }))
    await expectDocumented(
      '/api/sdk/replay',
      'post',
      await sendBatch(batch, { key, contentType: 'image/png' }),
    )
  })
})
