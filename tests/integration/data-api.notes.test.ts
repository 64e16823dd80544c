import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueActivities, issues, outbox } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { linkTicket } from '@/lib/issues/link-ticket'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { INVALID_CURSOR } from '@/lib/pagination/cursor'
import { api, withoutDetail } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { seedIssue, seedOAuthToken } from '../helpers/seed'

/**
 * Notes and the ticket link over HTTP, through the real route handlers:
 * POST/GET /api/v1/issues/{issueId}/notes and PUT /api/v1/issues/{issueId}/ticket.
 */

let database: TestDatabase
let orgId: string
let otherOrg: string
let readKey: string
let writeKey: string
let writeKeyId: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Acme' })).id
  otherOrg = (await createOrganization(database.db, { name: 'Other' })).id
  readKey = (await createKey(database.db, { organizationId: orgId, type: 'api' })).key
  const write = await createKey(database.db, {
    organizationId: orgId,
    type: 'api',
    write: true,
    name: 'Release bot',
  })
  writeKey = write.key
  writeKeyId = write.id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
// A fresh limiter for each test: the file writes more than one key's 60 a minute in all.
freezeRateLimitClock()

type Body = Record<string, unknown>
const body = async (response: Response) => (await response.json()) as Body

async function activitiesOf(issueId: string) {
  return database.db
    .select()
    .from(issueActivities)
    .where(eq(issueActivities.issueId, issueId))
    .orderBy(asc(issueActivities.createdAt), asc(issueActivities.id))
}

async function eventsOf(issueId: string) {
  const rows = await database.db.select().from(outbox).where(eq(outbox.organizationId, orgId))
  return rows.filter((row) => (row.payload as { issueId?: string }).issueId === issueId)
}

async function issueRow(issueId: string) {
  const [row] = await database.db.select().from(issues).where(eq(issues.id, issueId))
  return row!
}

const ENTER_TEXT = 'Enter the text of the note.'
const TOO_LONG = 'A note is limited to 5,000 characters.'

describe('POST /api/v1/issues/{issueId}/notes', () => {
  it('answers 201 with the note, named by its key, and records it in the history only', async () => {
    const issue = await seedIssue(database.db, orgId, { updatedAt: new Date('2026-01-01T00:00:00Z') })
    const response = await api.addNote(writeKey, issue.id, {
      text: '  Root cause: a stale cart.\nFixed in #88  ',
    })
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-ratelimit-limit')).toBe('60')
    const { note } = (await body(response)) as { note: Body }
    expect(Object.keys(note).sort()).toEqual(['author', 'createdAt', 'id', 'issueId', 'text'])
    expect(note).toMatchObject({
      issueId: issue.id,
      text: 'Root cause: a stale cart.\nFixed in #88',
      author: { type: 'credential', id: writeKeyId, name: 'Release bot' },
    })
    expect(new Date(String(note.createdAt)).toISOString()).toBe(note.createdAt)

    const activities = await activitiesOf(issue.id)
    expect(activities).toHaveLength(1)
    expect(activities[0]).toMatchObject({
      id: note.id,
      kind: 'note',
      organizationId: orgId,
      fromStatus: null,
      toStatus: null,
      actorType: 'credential',
      actorId: writeKeyId,
      metadata: { text: 'Root cause: a stale cart.\nFixed in #88' },
    })
    // No status change, no updatedAt, no event.
    const row = await issueRow(issue.id)
    expect(row.status).toBe('unresolved')
    expect(row.updatedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z')
    expect(await eventsOf(issue.id)).toEqual([])
  })

  it('names an OAuth token’s note after its connected app', async () => {
    const issue = await seedIssue(database.db, orgId)
    const oauth = await seedOAuthToken(database.db, orgId, { scope: 'read:service write:issues' })
    const response = await api.addNote(oauth.token, issue.id, { text: 'From the agent' })
    expect(response.status).toBe(201)
    expect(((await body(response)).note as Body).author).toEqual({
      type: 'oauth_client',
      id: oauth.clientId,
      name: 'Test client',
    })
  })

  it('takes 5,000 characters (counted as characters, not UTF-16 units) and refuses 5,001', async () => {
    const issue = await seedIssue(database.db, orgId)
    for (const text of ['x'.repeat(5000), '😀'.repeat(5000), `  ${'y'.repeat(5000)}  `]) {
      const response = await api.addNote(writeKey, issue.id, { text })
      expect(response.status).toBe(201)
      expect(((await body(response)).note as Body).text).toBe(text.trim())
    }
    for (const text of ['x'.repeat(5001), '😀'.repeat(5001)]) {
      const response = await api.addNote(writeKey, issue.id, { text })
      expect(response.status).toBe(400)
      expect(await body(response)).toEqual({ error: TOO_LONG })
    }
    expect(await activitiesOf(issue.id)).toHaveLength(3)
  })

  it.each([
    ['invalid JSON', '{"text":', 'Request body must be valid JSON'],
    ['an empty body', '', 'Request body must be valid JSON'],
    ['form data', 'text=hello', 'Request body must be valid JSON'],
    ['an empty text', { text: '' }, ENTER_TEXT],
    ['only white space', { text: ' \n\t ' }, ENTER_TEXT],
    ['no text', {}, ENTER_TEXT],
    ['a number', { text: 42 }, ENTER_TEXT],
    ['an array body', [{ text: 'x' }], ENTER_TEXT],
    ['null', 'null', ENTER_TEXT],
    ['text only in __proto__', '{"__proto__":{"text":"sneaky"}}', ENTER_TEXT],
    [
      'a NUL character',
      { text: 'a\u0000b' },
      'The note must not contain NUL characters or broken (unpaired) Unicode surrogates',
    ],
    [
      'an unpaired surrogate',
      '{"text":"a\\ud800b"}',
      'The note must not contain NUL characters or broken (unpaired) Unicode surrogates',
    ],
  ])('400 for %s, and nothing is stored', async (_label, payload, message) => {
    const issue = await seedIssue(database.db, orgId)
    const response = await api.addNote(writeKey, issue.id, payload)
    expect(response.status).toBe(400)
    expect(await body(response)).toEqual({ error: message })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await activitiesOf(issue.id)).toEqual([])
  })

  it('404 Issue not found for an unknown, a malformed or another organization’s issue', async () => {
    const theirs = await seedIssue(database.db, otherOrg)
    for (const id of [randomUUID(), 'not-a-uuid', theirs.id]) {
      const response = await api.addNote(writeKey, id, { text: 'hello' })
      expect(response.status, id).toBe(404)
      expect(await body(response)).toEqual({ error: 'Issue not found' })
    }
    expect(await activitiesOf(theirs.id)).toEqual([])
  })

  it('401 without a valid token (challenge write:issues) and 403 for a read-only key, as PATCH', async () => {
    const issue = await seedIssue(database.db, orgId)
    for (const token of [null, 'svc_api_nope']) {
      const response = await api.addNote(token, issue.id, { text: 'hello' })
      expect(response.status).toBe(401)
      expect(await body(response)).toEqual({ error: 'Missing or invalid bearer token' })
      expect(response.headers.get('www-authenticate')).toBe('Bearer scope="write:issues"')
    }
    const refused = await api.addNote(readKey, issue.id, { text: 'hello' })
    const patch = await api.patchIssue(readKey, issue.id, { status: 'resolved' })
    expect(refused.status).toBe(403)
    expect(await body(refused)).toEqual({ error: 'Missing required scope: write:issues' })
    expect(await body(patch)).toEqual({ error: 'Missing required scope: write:issues' })
    expect(await activitiesOf(issue.id)).toEqual([])
  })
})

describe('GET /api/v1/issues/{issueId}/notes', () => {
  it('lists the issue’s notes only, newest first, in keyset pages', async () => {
    const issue = await seedIssue(database.db, orgId)
    const elsewhere = await seedIssue(database.db, orgId)
    await api.addNote(writeKey, elsewhere.id, { text: 'another issue' })
    const written: string[] = []
    for (let i = 0; i < 5; i++) {
      const response = await api.addNote(writeKey, issue.id, { text: `note ${i}` })
      written.push(String(((await body(response)).note as Body).id))
      // Other history entries are not notes.
      if (i === 2) await api.patchIssue(writeKey, issue.id, { status: 'transient' })
    }

    const all = await api.listNotes(readKey, issue.id)
    expect(all.status).toBe(200)
    expect(all.headers.get('x-ratelimit-limit')).toBe('300')
    const whole = await body(all)
    expect(Object.keys(whole).sort()).toEqual(['nextCursor', 'notes'])
    expect(whole.nextCursor).toBeNull()
    const notes = whole.notes as Body[]
    expect(notes.map((n) => n.text)).toEqual(['note 4', 'note 3', 'note 2', 'note 1', 'note 0'])
    expect(notes.map((n) => n.id)).toEqual([...written].reverse())
    expect(notes[0]!.author).toEqual({ type: 'credential', id: writeKeyId, name: 'Release bot' })

    const pages: string[][] = []
    let cursor: string | undefined
    do {
      const page = await body(await api.listNotes(readKey, issue.id, { limit: 2, cursor }))
      pages.push((page.notes as Body[]).map((n) => String(n.text)))
      cursor = (page.nextCursor as string | null) ?? undefined
    } while (cursor)
    expect(pages).toEqual([['note 4', 'note 3'], ['note 2', 'note 1'], ['note 0']])
  })

  it('answers an issue without notes with an empty page', async () => {
    const issue = await seedIssue(database.db, orgId)
    expect(await body(await api.listNotes(readKey, issue.id))).toEqual({ notes: [], nextCursor: null })
  })

  it('refuses a limit outside 1..100 and a cursor of another issue', async () => {
    const issue = await seedIssue(database.db, orgId)
    const other = await seedIssue(database.db, orgId)
    for (const target of [issue, other])
      for (let i = 0; i < 2; i++) await api.addNote(writeKey, target.id, { text: `n${i}` })
    for (const limit of [0, 101, 'x']) {
      const response = await api.listNotes(readKey, issue.id, { limit })
      expect(response.status).toBe(400)
      expect(await body(response)).toEqual({ error: 'limit must be an integer between 1 and 100' })
    }
    expect((await api.listNotes(readKey, issue.id, { limit: 100 })).status).toBe(200)
    const { nextCursor } = await body(await api.listNotes(readKey, other.id, { limit: 1 }))
    const response = await api.listNotes(readKey, issue.id, { cursor: String(nextCursor) })
    expect(response.status).toBe(400)
    expect(await body(response)).toEqual({ error: INVALID_CURSOR })
  })

  it('404 for another organization’s, an unknown or a malformed issue; 401 without a token', async () => {
    const theirs = await seedIssue(database.db, otherOrg)
    const theirKey = (await createKey(database.db, { organizationId: otherOrg, type: 'api', write: true }))
      .key
    await api.addNote(theirKey, theirs.id, { text: 'private to Other' })
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      const response = await api.listNotes(readKey, id)
      expect(response.status, id).toBe(404)
      expect(await body(response)).toEqual({ error: 'Issue not found' })
    }
    const unauthenticated = await api.listNotes(null, theirs.id)
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Bearer scope="read:service"')
    // Their own key sees it.
    const own = await body(await api.listNotes(theirKey, theirs.id))
    expect((own.notes as Body[]).map((n) => n.text)).toEqual(['private to Other'])
  })
})

describe('PUT /api/v1/issues/{issueId}/ticket', () => {
  const ticket = { provider: 'GitHub', url: 'https://github.com/acme/shop/issues/12', identifier: '#12' }

  /** What a change left behind, without the ids and times that differ between two issues. */
  async function traces(issueId: string) {
    const activities = (await activitiesOf(issueId)).map((a) => ({
      kind: a.kind,
      fromStatus: a.fromStatus,
      toStatus: a.toStatus,
      actorType: a.actorType,
      metadata: a.metadata,
    }))
    const events = (await eventsOf(issueId)).map((e) => {
      const { issueId: _id, title: _title, previewUrl: _preview, actorType, ...rest } = e.payload
      return { name: e.name, actorType, ...rest }
    })
    const row = await issueRow(issueId)
    return {
      issue: {
        status: row.status,
        ticketProvider: row.ticketProvider,
        ticketUrl: row.ticketUrl,
        ticketIdentifier: row.ticketIdentifier,
      },
      activities,
      events,
    }
  }

  it('links the ticket exactly as the dashboard does: fields, status, history and event', async () => {
    const viaApi = await seedIssue(database.db, orgId, { updatedAt: new Date(Date.now() - 60_000) })
    const viaDashboard = await seedIssue(database.db, orgId, { updatedAt: new Date(Date.now() - 60_000) })
    const response = await api.putTicket(writeKey, viaApi.id, ticket)
    expect(response.status).toBe(200)
    const answered = (await body(response)).issue as Body
    expect(answered).toEqual(withoutDetail(await body(await api.getIssue(readKey, viaApi.id))).issue)
    expect(answered).toMatchObject({
      status: 'ticket_created',
      ticketProvider: 'GitHub',
      ticketUrl: ticket.url,
      ticketIdentifier: '#12',
    })
    expect(new Date(String(answered.updatedAt)).getTime()).toBeGreaterThan(viaApi.updatedAt.getTime())

    // The dashboard's action calls linkTicket with the member as actor (issues.dashboard.test.ts).
    const member = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    await linkTicket(database.db, member, { issueId: viaDashboard.id, ...ticket })
    const api_ = await traces(viaApi.id)
    const dashboard = await traces(viaDashboard.id)
    expect(api_.issue).toEqual(dashboard.issue)
    expect(api_.activities.map((a) => ({ ...a, actorType: 'same' }))).toEqual(
      dashboard.activities.map((a) => ({ ...a, actorType: 'same' })),
    )
    expect(api_.events.map((e) => ({ ...e, actorType: 'same' }))).toEqual(
      dashboard.events.map((e) => ({ ...e, actorType: 'same' })),
    )
    expect(api_.activities.map((a) => [a.kind, a.fromStatus, a.toStatus, a.actorType])).toEqual([
      ['ticket_linked', null, null, 'credential'],
      ['status_changed', 'unresolved', 'ticket_created', 'credential'],
    ])
    expect(api_.events).toEqual([
      expect.objectContaining({
        name: EVENTS.issueStatusChanged,
        actorType: 'credential',
        status: 'ticket_created',
        previousStatus: 'unresolved',
      }),
    ])
    const [linked] = await database.db
      .select()
      .from(issueActivities)
      .where(and(eq(issueActivities.issueId, viaApi.id), eq(issueActivities.kind, 'ticket_linked')))
    expect(linked!.actorId).toBe(writeKeyId)
  })

  it('is idempotent: the same ticket again changes nothing; null or no identifier means none', async () => {
    const issue = await seedIssue(database.db, orgId)
    const first = await body(await api.putTicket(writeKey, issue.id, ticket))
    const before = await traces(issue.id)
    const again = await api.putTicket(writeKey, issue.id, ticket)
    expect(again.status).toBe(200)
    expect(await body(again)).toEqual(first)
    expect(await traces(issue.id)).toEqual(before)

    for (const identifier of [null, undefined]) {
      const other = await seedIssue(database.db, orgId)
      const response = await api.putTicket(writeKey, other.id, { ...ticket, identifier })
      expect(response.status).toBe(200)
      expect(((await body(response)).issue as Body).ticketIdentifier).toBeNull()
    }
  })

  it('keeps a resolved issue resolved, as the dashboard does', async () => {
    const issue = await seedIssue(database.db, orgId, { status: 'resolved' })
    const response = await api.putTicket(writeKey, issue.id, ticket)
    expect(((await body(response)).issue as Body).status).toBe('resolved')
    expect((await traces(issue.id)).events).toEqual([])
  })

  it.each([
    ['invalid JSON', '{"provider":', 'Request body must be valid JSON'],
    ['no provider', { url: ticket.url }, 'Enter the ticket provider, e.g. GitHub, Linear or Jira.'],
    [
      'a blank provider',
      { ...ticket, provider: '  ' },
      'Enter the ticket provider, e.g. GitHub, Linear or Jira.',
    ],
    ['no URL', { provider: 'GitHub' }, 'Enter the ticket URL.'],
    [
      'a URL that is not http(s)',
      { ...ticket, url: 'javascript:alert(1)' },
      'The ticket URL must be a full http:// or https:// address, e.g. https://github.com/acme/shop/issues/12.',
    ],
    [
      'a provider too long',
      { ...ticket, provider: 'p'.repeat(65) },
      'The provider is limited to 64 characters.',
    ],
    [
      'a URL too long',
      { ...ticket, url: `https://x.io/${'a'.repeat(2048)}` },
      'The ticket URL is limited to 2048 characters.',
    ],
    [
      'an identifier too long',
      { ...ticket, identifier: 'i'.repeat(129) },
      'The identifier is limited to 128 characters.',
    ],
    [
      'an identifier that is a number',
      { ...ticket, identifier: 12 },
      'The identifier must be text, e.g. #12 or ENG-42.',
    ],
    ['an array body', [ticket], 'Enter the ticket provider, e.g. GitHub, Linear or Jira.'],
  ])('400 for %s, and the issue stays as it was', async (_label, payload, message) => {
    const issue = await seedIssue(database.db, orgId)
    const before = await traces(issue.id)
    const response = await api.putTicket(writeKey, issue.id, payload)
    expect(response.status).toBe(400)
    expect(await body(response)).toEqual({ error: message })
    expect(await traces(issue.id)).toEqual(before)
    expect((await issueRow(issue.id)).updatedAt.getTime()).toBe(issue.updatedAt.getTime())
  })

  it('404 for another organization’s or a malformed issue, 403 for a read-only key, 401 without one', async () => {
    const theirs = await seedIssue(database.db, otherOrg)
    for (const id of [theirs.id, 'x']) {
      const response = await api.putTicket(writeKey, id, ticket)
      expect(response.status).toBe(404)
      expect(await body(response)).toEqual({ error: 'Issue not found' })
    }
    const [row] = await database.db.select().from(issues).where(eq(issues.id, theirs.id))
    expect(row).toEqual(theirs)
    const mine = await seedIssue(database.db, orgId)
    const refused = await api.putTicket(readKey, mine.id, ticket)
    expect(refused.status).toBe(403)
    expect(await body(refused)).toEqual({ error: 'Missing required scope: write:issues' })
    const anonymous = await api.putTicket(null, mine.id, ticket)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer scope="write:issues"')
    expect((await traces(mine.id)).activities).toEqual([])
  })
})
