import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { IssueHistoryList } from '@/app/(dashboard)/issues/[issueId]/history-list'
import { loadReproduction } from '@/app/(dashboard)/issues/[issueId]/load-reproduction'
import { VerificationCard } from '@/app/(dashboard)/issues/[issueId]/verification-card'
import type { Db } from '@/db/client'
import { issueActivities, issueSessions, issues, oauthClients, outbox, replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { evidenceView } from '@/lib/issues/evidence-view'
import { detailFields } from '@/lib/issues/issue-detail'
import { issueHistory } from '@/lib/issues/issue-history'
import { issueSessionOf, issueSessionsOf } from '@/lib/issues/issue-sessions'
import { linkTicket, unlinkTicket } from '@/lib/issues/link-ticket'
import { likePattern, searchIssues } from '@/lib/issues/search-issues'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { updateIssuesStatus } from '@/lib/issues/update-issues-status'
import { recordVerification } from '@/lib/issues/verifications'
import { logger } from '@/lib/log'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { createUser } from '@/lib/users/create-user'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'

let database: TestDatabase
let db: Db

beforeAll(async () => {
  database = await createTestDatabase()
  db = database.db
  useDatabase(database)
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const org = async (name = 'Acme') => (await createOrganization(db, { name })).id

async function seedSession(
  organizationId: string,
  startedAt: Date,
  overrides: Partial<typeof replaySessions.$inferInsert> = {},
) {
  const [row] = await db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `s-${randomUUID()}`,
      startedAt,
      lastActivityAt: new Date(startedAt.getTime() + 60_000),
      entryUrl: 'https://shop.example.com/checkout',
      anonymousId: `anon-${randomUUID().slice(0, 8)}`,
      ...overrides,
    })
    .returning()
  return row!
}

async function activitiesOf(issueId: string) {
  return db
    .select()
    .from(issueActivities)
    .where(eq(issueActivities.issueId, issueId))
    .orderBy(asc(issueActivities.createdAt))
}

async function statusEventsOf(issueId: string) {
  const rows = await db.select().from(outbox).where(eq(outbox.name, EVENTS.issueStatusChanged))
  return rows.filter((row) => (row.payload as { issueId?: string }).issueId === issueId)
}

describe('searchIssues: tabs, counts, search and paging', () => {
  let orgId: string
  beforeAll(async () => {
    orgId = await org()
    const base = Date.now() - 60_000
    const at = (i: number) => ({ createdAt: new Date(base + i * 1000) })
    await seedIssue(db, orgId, { title: 'TypeError in checkout', status: 'unresolved', ...at(1) })
    await seedIssue(db, orgId, {
      title: 'PUT /api/profile returns 503',
      description: 'Profile save fails',
      ...at(2),
    })
    await seedIssue(db, orgId, {
      title: 'Rage clicks on Pay',
      status: 'resolved',
      priority: 'critical',
      ...at(3),
    })
    await seedIssue(db, orgId, {
      title: 'Discount 100% off_code breaks cart',
      description: 'Only when the code has an underscore',
      status: 'ticket_created',
      ...at(4),
    })
    await seedIssue(db, orgId, {
      title: 'Dead click on Help',
      status: 'transient',
      description: null,
      ...at(5),
    })
    // Another organization's issues never count or show.
    await seedIssue(db, await org('Other'), { title: 'TypeError in checkout elsewhere' })
  })

  it('lists all issues newest first with every tab counted', async () => {
    const result = await searchIssues(db, orgId, { tab: 'all', q: '', sort: 'last_seen', limit: 25 })
    expect(result.items.map((i) => i.title)).toEqual([
      'Dead click on Help',
      'Discount 100% off_code breaks cart',
      'Rage clicks on Pay',
      'PUT /api/profile returns 503',
      'TypeError in checkout',
    ])
    expect(result.counts).toEqual({ all: 5, unresolved: 2, ticket_created: 1, transient: 1, resolved: 1 })
    expect(result.total).toBe(5)
    expect(result.pageCount).toBe(1)
    expect(result.items[2]).toMatchObject({
      priority: 'critical',
      status: 'resolved',
      sessionCount: 1,
      ticketProvider: null,
    })
    expect(result.items[0]!.firstSeenAt).toBeInstanceOf(Date)
    expect(result.items[0]!.lastSeenAt).toBeInstanceOf(Date)
  })

  it('filters by status tab', async () => {
    const result = await searchIssues(db, orgId, { tab: 'unresolved', q: '', sort: 'last_seen', limit: 25 })
    expect(result.items.map((i) => i.title)).toEqual([
      'PUT /api/profile returns 503',
      'TypeError in checkout',
    ])
    expect(result.counts.all).toBe(5)
  })

  it('searches title and description case-insensitively, counting matches per tab', async () => {
    const byTitle = await searchIssues(db, orgId, { tab: 'all', q: 'typeerror', limit: 25 })
    expect(byTitle.items.map((i) => i.title)).toEqual(['TypeError in checkout'])
    expect(byTitle.counts).toEqual({ all: 1, unresolved: 1, ticket_created: 0, transient: 0, resolved: 0 })
    expect(byTitle.total).toBe(5)
    const byDescription = await searchIssues(db, orgId, { tab: 'all', q: '  PROFILE SAVE ', limit: 25 })
    expect(byDescription.items.map((i) => i.title)).toEqual(['PUT /api/profile returns 503'])
    const inOtherTab = await searchIssues(db, orgId, { tab: 'resolved', q: 'typeerror', limit: 25 })
    expect(inOtherTab.items).toEqual([])
    expect(inOtherTab.counts.unresolved).toBe(1)
  })

  it('treats % and _ as literal characters, not wildcards', async () => {
    expect(likePattern('100%_x\\')).toBe('%100\\%\\_x\\\\%')
    const percent = await searchIssues(db, orgId, { tab: 'all', q: '100%', limit: 25 })
    expect(percent.items.map((i) => i.title)).toEqual(['Discount 100% off_code breaks cart'])
    const underscore = await searchIssues(db, orgId, { tab: 'all', q: '_', limit: 25 })
    expect(underscore.items.map((i) => i.title)).toEqual(['Discount 100% off_code breaks cart'])
    const wildcard = await searchIssues(db, orgId, { tab: 'all', q: '%', limit: 25 })
    expect(wildcard.items.map((i) => i.title)).toEqual(['Discount 100% off_code breaks cart'])
  })

  it('pages by number, under the same filters', async () => {
    const first = await searchIssues(db, orgId, { tab: 'all', q: '', sort: 'last_seen', limit: 2 })
    expect(first.items.map((i) => i.title)).toEqual([
      'Dead click on Help',
      'Discount 100% off_code breaks cart',
    ])
    expect(first).toMatchObject({ page: 1, pageCount: 3 })
    const second = await searchIssues(db, orgId, { tab: 'all', q: '', sort: 'last_seen', limit: 2, page: 2 })
    expect(second.items.map((i) => i.title)).toEqual(['Rage clicks on Pay', 'PUT /api/profile returns 503'])
    const third = await searchIssues(db, orgId, { tab: 'all', q: '', sort: 'last_seen', limit: 2, page: 3 })
    expect(third.items.map((i) => i.title)).toEqual(['TypeError in checkout'])
    const unresolved = await searchIssues(db, orgId, {
      tab: 'unresolved',
      q: '',
      sort: 'last_seen',
      limit: 1,
      page: 2,
    })
    expect(unresolved.items.map((i) => i.title)).toEqual(['TypeError in checkout'])
    expect(unresolved.pageCount).toBe(2)
    await expect(searchIssues(db, orgId, { tab: 'all', q: '', limit: 2, page: 0 })).rejects.toThrow(
      'The page must be a number from 1.',
    )
  })

  it('refuses an unknown tab or an overlong search with a clear message', async () => {
    await expect(searchIssues(db, orgId, { tab: 'open' as 'all', q: '', limit: 25 })).rejects.toThrow(
      /Unknown status tab/,
    )
    await expect(searchIssues(db, orgId, { tab: 'all', q: 'x'.repeat(201), limit: 25 })).rejects.toThrow(
      InvalidInputError,
    )
  })

  it('answers an organization without issues with zero counts', async () => {
    const empty = await searchIssues(db, await org('Empty'), { tab: 'all', q: '', limit: 25 })
    expect(empty).toMatchObject({ items: [], page: 1, pageCount: 1, total: 0 })
    expect(empty.counts.all).toBe(0)
  })
})

describe('issueHistory: activities with their actors named', () => {
  it('names the system, a user, an API key and a connected app, in order', async () => {
    const orgId = await org()
    const user = await createUser(db, {
      email: `grace-${randomUUID()}@example.com`,
      password: 'correct horse battery',
      organizationId: orgId,
      name: 'Grace Hopper',
    })
    const nameless = await createUser(db, {
      email: `nameless-${randomUUID()}@example.com`,
      password: 'correct horse battery',
      organizationId: orgId,
    })
    const key = await createKey(db, { organizationId: orgId, type: 'api', write: true, name: 'CI bot' })
    const clientId = `svc_client_${randomUUID().replace(/-/g, '')}`
    await db.insert(oauthClients).values({
      clientId,
      clientName: 'Claude Desktop',
      redirectUris: ['http://127.0.0.1/cb'],
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      scope: 'read:service write:issues',
    })
    const issue = await seedIssue(db, orgId)
    await db.insert(issueActivities).values({
      issueId: issue.id,
      organizationId: orgId,
      kind: 'created',
      toStatus: 'unresolved',
      actorType: 'system',
      createdAt: new Date(Date.now() - 10_000),
    })
    const change = (
      actorType: 'user' | 'credential' | 'oauth_client',
      actorId: string,
      status: 'resolved' | 'transient' | 'unresolved',
    ) => updateIssueStatus(db, { organizationId: orgId, actorType, actorId }, { issueId: issue.id, status })
    await change('user', user.id, 'resolved')
    await change('credential', key.id, 'transient')
    await change('oauth_client', clientId, 'unresolved')
    await change('user', nameless.id, 'resolved')
    await linkTicket(
      db,
      { organizationId: orgId, actorType: 'user', actorId: user.id },
      {
        issueId: issue.id,
        provider: 'Linear',
        url: 'https://linear.app/acme/issue/ENG-7',
        identifier: 'ENG-7',
      },
    )

    const history = await issueHistory(db, orgId, issue.id)
    expect(
      history.map((h) => [h.kind, h.fromStatus, h.toStatus, h.actor.type, h.actor.name, h.actor.via]),
    ).toEqual([
      ['created', null, 'unresolved', 'system', 'Session analysis', null],
      ['status_changed', 'unresolved', 'resolved', 'user', 'Grace Hopper', null],
      ['status_changed', 'resolved', 'transient', 'credential', 'CI bot', 'API key'],
      ['status_changed', 'transient', 'unresolved', 'oauth_client', 'Claude Desktop', 'Connected app'],
      ['status_changed', 'unresolved', 'resolved', 'user', nameless.email, null],
      ['ticket_linked', null, null, 'user', 'Grace Hopper', null],
    ])
    // A resolved issue stays resolved when the ticket of its fix is linked.
    expect(history[5]!.ticket).toEqual({
      linked: { provider: 'Linear', url: 'https://linear.app/acme/issue/ENG-7', identifier: 'ENG-7' },
      previous: null,
    })
    for (let i = 1; i < history.length; i++)
      expect(history[i]!.at.getTime()).toBeGreaterThanOrEqual(history[i - 1]!.at.getTime())
  })

  it('tells a reproduction run (issue 36): passed or failed, against its base URL, in its release', async () => {
    const orgId = await org()
    const key = await createKey(db, {
      organizationId: orgId,
      type: 'api',
      verifications: true,
      name: 'Guard',
    })
    const issue = await seedIssue(db, orgId)
    const actor = { organizationId: orgId, actorType: 'credential' as const, actorId: key.id }
    await recordVerification(db, actor, {
      issueId: issue.id,
      status: 'failed',
      baseUrl: 'https://preview-1.example.com',
      release: '3.1.0',
      summary: 'still broken',
      runner: 'playwright',
    })
    await recordVerification(db, actor, {
      issueId: issue.id,
      status: 'passed',
      baseUrl: 'https://preview-2.example.com',
      runner: 'agent',
    })
    const history = await issueHistory(db, orgId, issue.id)
    expect(history.map((h) => [h.kind, h.verification, h.actor.name])).toEqual([
      [
        'verification',
        { status: 'failed', baseUrl: 'https://preview-1.example.com', release: '3.1.0' },
        'Guard',
      ],
      [
        'verification',
        { status: 'passed', baseUrl: 'https://preview-2.example.com', release: null },
        'Guard',
      ],
    ])
    const text = renderToStaticMarkup(createElement(IssueHistoryList, { history, now: Date.now() })).replace(
      /<[^>]*>/g,
      '',
    )
    expect(text).toContain('Reproduction failed against https://preview-1.example.com (release 3.1.0)')
    expect(text).toContain('Reproduction passed against https://preview-2.example.com')
  })

  it('names the system part of an insight issue, and refuses another organization', async () => {
    const orgId = await org()
    const issue = await seedIssue(db, orgId, { sourceType: 'insight' })
    await db.insert(issueActivities).values({
      issueId: issue.id,
      organizationId: orgId,
      kind: 'created',
      toStatus: 'unresolved',
      actorType: 'system',
    })
    expect((await issueHistory(db, orgId, issue.id)).map((h) => h.actor.name)).toEqual(['Insights'])
    await expect(issueHistory(db, await org('Other'), issue.id)).rejects.toThrow(NotFoundError)
    await expect(issueHistory(db, orgId, 'not-a-uuid')).rejects.toThrow(NotFoundError)
  })
})

describe('issueSessionsOf: the sessions an issue was seen in', () => {
  it('lists linked sessions newest first with user, entry URL, occurrences and offset, bounded with a total', async () => {
    const orgId = await org()
    const issue = await seedIssue(db, orgId)
    const base = Date.now() - 3_600_000
    const sessions = []
    for (let i = 0; i < 4; i++) {
      const started = new Date(base + i * 60_000)
      const session = await seedSession(orgId, started, {
        userEmail: i === 3 ? 'buyer@example.com' : null,
        userName: i === 3 ? 'Bea Buyer' : null,
        entryUrl: `https://shop.example.com/p/${i}`,
      })
      sessions.push(session)
      await db.insert(issueSessions).values({
        issueId: issue.id,
        sessionId: session.id,
        organizationId: orgId,
        occurrences: i + 1,
        firstOccurrenceAt: new Date(started.getTime() + 1500 + i),
        evidence: i === 3 ? { trigger: { element: { selector: 'button#pay', text: 'Pay' } } } : null,
      })
    }
    // A session of the organization the issue was not seen in is not listed.
    await seedSession(orgId, new Date())

    const { sessions: listed, total } = await issueSessionsOf(db, orgId, issue.id, 3)
    expect(total).toBe(4)
    expect(listed.map((s) => s.sessionId)).toEqual([sessions[3]!.id, sessions[2]!.id, sessions[1]!.id])
    expect(listed[0]).toMatchObject({
      externalId: sessions[3]!.externalId,
      entryUrl: 'https://shop.example.com/p/3',
      user: {
        email: 'buyer@example.com',
        name: 'Bea Buyer',
        anonymousId: sessions[3]!.anonymousId,
        id: null,
      },
      occurrences: 4,
      offsetMs: 1503,
      trigger: { selector: 'button#pay', text: 'Pay' },
    })
    expect(listed[1]!.trigger).toBeNull()

    expect(await issueSessionOf(db, orgId, issue.id, sessions[0]!.id)).toMatchObject({ offsetMs: 1500 })
    expect(await issueSessionOf(db, orgId, issue.id, randomUUID())).toBeNull()
    expect(await issueSessionOf(db, orgId, issue.id, 'junk')).toBeNull()
    await expect(issueSessionsOf(db, await org('Other'), issue.id)).rejects.toThrow(NotFoundError)
    await expect(issueSessionOf(db, await org('Other'), issue.id, sessions[0]!.id)).rejects.toThrow(
      NotFoundError,
    )
  })
})

describe('linkTicket and unlinkTicket', () => {
  const ticket = { provider: 'GitHub', url: 'https://github.com/acme/shop/issues/12', identifier: '#12' }

  it('links a ticket: fields, status ticket_created, both activities and the status event', async () => {
    const orgId = await org()
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    // Last touched a minute ago: seeding and linking within one millisecond would leave
    // updatedAt equal, and the check below could not tell whether linking touched it.
    const issue = await seedIssue(db, orgId, { updatedAt: new Date(Date.now() - 60_000) })
    const linked = await linkTicket(db, actor, { issueId: issue.id, ...ticket })
    expect(linked).toMatchObject({
      status: 'ticket_created',
      ticketProvider: 'GitHub',
      ticketUrl: ticket.url,
      ticketIdentifier: '#12',
    })
    const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ status: 'ticket_created', ticketProvider: 'GitHub', ticketIdentifier: '#12' })
    expect(row!.updatedAt.getTime()).toBeGreaterThan(issue.updatedAt.getTime())
    const activities = await activitiesOf(issue.id)
    expect(activities.map((a) => [a.kind, a.fromStatus, a.toStatus, a.actorType, a.actorId])).toEqual([
      ['ticket_linked', null, null, 'user', actor.actorId],
      ['status_changed', 'unresolved', 'ticket_created', 'user', actor.actorId],
    ])
    expect(activities[0]!.metadata).toEqual({ ...ticket, previous: null })
    const events = await statusEventsOf(issue.id)
    expect(events).toHaveLength(1)
    expect(events[0]!.payload).toMatchObject({
      issueId: issue.id,
      orgId,
      status: 'ticket_created',
      previousStatus: 'unresolved',
      actorType: 'user',
    })

    // The same ticket again changes nothing.
    await linkTicket(db, actor, { issueId: issue.id, ...ticket })
    expect(await activitiesOf(issue.id)).toHaveLength(2)

    // Another ticket replaces it; the status is already ticket_created, so no event.
    await linkTicket(db, actor, {
      issueId: issue.id,
      provider: 'Jira',
      url: 'http://jira.internal/browse/SHOP-3',
      identifier: '',
    })
    const [replaced] = await db.select().from(issues).where(eq(issues.id, issue.id))
    expect(replaced).toMatchObject({
      ticketProvider: 'Jira',
      ticketUrl: 'http://jira.internal/browse/SHOP-3',
      ticketIdentifier: null,
    })
    const after = await activitiesOf(issue.id)
    expect(after).toHaveLength(3)
    expect(after[2]!.metadata).toEqual({
      provider: 'Jira',
      url: 'http://jira.internal/browse/SHOP-3',
      identifier: null,
      previous: ticket,
    })
    expect(await statusEventsOf(issue.id)).toHaveLength(1)
  })

  it('unlinks: clears the ticket, records it, and a ticket_created issue returns to unresolved', async () => {
    const orgId = await org()
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    const issue = await seedIssue(db, orgId)
    await linkTicket(db, actor, { issueId: issue.id, ...ticket })
    const unlinked = await unlinkTicket(db, actor, { issueId: issue.id })
    expect(unlinked).toMatchObject({
      status: 'unresolved',
      ticketProvider: null,
      ticketUrl: null,
      ticketIdentifier: null,
    })
    const activities = await activitiesOf(issue.id)
    expect(activities.slice(2).map((a) => [a.kind, a.fromStatus, a.toStatus])).toEqual([
      ['ticket_linked', null, null],
      ['status_changed', 'ticket_created', 'unresolved'],
    ])
    expect(activities[2]!.metadata).toEqual({ unlinked: true, previous: ticket })
    const history = await issueHistory(db, orgId, issue.id)
    expect(history[2]!.ticket).toEqual({ linked: null, previous: ticket })
    expect((await statusEventsOf(issue.id)).map((e) => (e.payload as { status: string }).status)).toEqual([
      'ticket_created',
      'unresolved',
    ])

    // Nothing linked: nothing changes.
    await unlinkTicket(db, actor, { issueId: issue.id })
    expect(await activitiesOf(issue.id)).toHaveLength(4)
  })

  it('keeps a resolved or transient status on unlink, and a resolved one on link', async () => {
    const orgId = await org()
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    const resolved = await seedIssue(db, orgId, { status: 'resolved' })
    expect((await linkTicket(db, actor, { issueId: resolved.id, ...ticket })).status).toBe('resolved')
    expect((await unlinkTicket(db, actor, { issueId: resolved.id })).status).toBe('resolved')
    expect(await statusEventsOf(resolved.id)).toHaveLength(0)
    const transient = await seedIssue(db, orgId, { status: 'transient' })
    expect((await linkTicket(db, actor, { issueId: transient.id, ...ticket })).status).toBe('ticket_created')
  })

  it('refuses bad input with a clear message and changes nothing', async () => {
    const orgId = await org()
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    const issue = await seedIssue(db, orgId)
    const cases: [Partial<typeof ticket>, RegExp][] = [
      [{ provider: '' }, /Enter the ticket provider/],
      [{ provider: 'x'.repeat(65) }, /limited to 64/],
      [{ url: '' }, /Enter the ticket URL/],
      [{ url: 'javascript:alert(1)' }, /http:\/\/ or https:\/\//],
      [{ url: 'ftp://example.com/1' }, /http:\/\/ or https:\/\//],
      [{ url: 'github.com/acme/shop/issues/1' }, /http:\/\/ or https:\/\//],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, /limited to 2048/],
      [{ identifier: 'x'.repeat(129) }, /limited to 128/],
    ]
    for (const [override, message] of cases) {
      const attempt = linkTicket(db, actor, { issueId: issue.id, ...ticket, ...override })
      await expect(attempt).rejects.toThrow(InvalidInputError)
      await expect(linkTicket(db, actor, { issueId: issue.id, ...ticket, ...override })).rejects.toThrow(
        message,
      )
    }
    const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row).toMatchObject({ status: 'unresolved', ticketProvider: null, ticketUrl: null })
    expect(row!.updatedAt.getTime()).toBe(issue.updatedAt.getTime())
    expect(await activitiesOf(issue.id)).toHaveLength(0)
    expect(await statusEventsOf(issue.id)).toHaveLength(0)
  })

  it("never touches another organization's issue", async () => {
    const orgId = await org()
    const issue = await seedIssue(db, orgId)
    const stranger = { organizationId: await org('Other'), actorType: 'user' as const, actorId: randomUUID() }
    await expect(linkTicket(db, stranger, { issueId: issue.id, ...ticket })).rejects.toThrow(NotFoundError)
    await expect(unlinkTicket(db, stranger, { issueId: issue.id })).rejects.toThrow(NotFoundError)
    await expect(linkTicket(db, stranger, { issueId: 'nope', ...ticket })).rejects.toThrow(NotFoundError)
    const [row] = await db
      .select()
      .from(issues)
      .where(and(eq(issues.id, issue.id), eq(issues.organizationId, orgId)))
    expect(row).toMatchObject({ status: 'unresolved', ticketProvider: null })
    expect(await activitiesOf(issue.id)).toHaveLength(0)
  })
})

describe('evidenceView: what the issue page shows of the recorded evidence', () => {
  it('shows the error with its stack and the page it happened on', () => {
    const view = evidenceView('js_error', {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'price')",
      mechanism: 'onerror',
      stack: ['TypeError: boom', '  at addToCart (https://shop.example.com/app.js:13:48)', 42],
      pageUrl: 'https://shop.example.com/products/42',
      pathPattern: '/products/:id',
      blocking: true,
      retried: false,
    })
    expect(view.headline).toBe("TypeError: Cannot read properties of undefined (reading 'price')")
    expect(view.stack).toEqual(['TypeError: boom', 'at addToCart (https://shop.example.com/app.js:13:48)'])
    expect(view.facts).toEqual([
      { label: 'Reported by', value: 'onerror' },
      {
        label: 'Page',
        value: 'https://shop.example.com/products/42',
        href: 'https://shop.example.com/products/42',
      },
      { label: 'Page pattern', value: '/products/:id' },
    ])
  })

  it('says what the user did next in the priority reason\'s words, never "could not go on" (issue 34)', () => {
    const wentOn = evidenceView('js_error', {
      message: 'x',
      blocking: false,
      followUp: 'went_on',
      followUpSentence: 'the user went on (clicked “Add item” (#add-item) 2.1 s later)',
    })
    expect(wentOn.facts).toEqual([
      {
        label: 'What the user did next',
        value: 'The user went on (clicked “Add item” (#add-item) 2.1 s later)',
      },
    ])
    // Stored before the sentence was: the kind alone still speaks; a bare flag claims nothing.
    const retried = evidenceView('js_error', {
      message: 'x',
      blocking: true,
      retried: true,
      followUp: 'retried',
    })
    expect(retried.facts).toEqual([
      { label: 'What the user did next', value: 'The user tried the same action again' },
    ])
    expect(evidenceView('js_error', { message: 'x', blocking: true, followUp: 'toString' }).facts).toEqual([])
  })

  it("shows the page's own console error about a failed request beside it", () => {
    const view = evidenceView('network_error', {
      method: 'POST',
      url: 'https://shop.example.com/api/checkout',
      status: 500,
      consoleErrors: ['Checkout failed 500', 42],
    })
    expect(view.facts).toContainEqual({
      label: 'Logged by the page',
      value: 'console.error “Checkout failed 500”',
    })
  })

  it('shows the failing request, also one that got no response, and never links a non-web URL', () => {
    const failed = evidenceView('network_error', {
      method: 'POST',
      url: 'https://shop.example.com/api/sync',
      status: 0,
      error: 'TypeError: Failed to fetch',
      durationMs: 1520,
      pageUrl: 'javascript:alert(1)',
    })
    expect(failed.headline).toBe('POST https://shop.example.com/api/sync → no response (network error)')
    expect(failed.facts).toContainEqual({ label: 'Error', value: 'TypeError: Failed to fetch' })
    expect(failed.facts).toContainEqual({ label: 'Duration', value: '1.5 s' })
    expect(failed.facts).toContainEqual({ label: 'Page', value: 'javascript:alert(1)', href: undefined })
  })

  it('describes rage and dead clicks, and copes with missing or odd evidence', () => {
    expect(evidenceView('rage_click', { clicks: 6, durationMs: 900, selector: 'button#save' })).toMatchObject(
      {
        headline: '6 clicks in 900 ms without a response',
        facts: [{ label: 'Element', value: 'button#save' }],
      },
    )
    expect(evidenceView('dead_click', { waitedMs: 7000, selector: 'button.compare' }).headline).toBe(
      'No visible response within 7.0 s of the click',
    )
    expect(evidenceView('js_error', null)).toEqual({
      headline: null,
      facts: [],
      stack: [],
      symbolicated: null,
    })
    expect(evidenceView('js_error', { message: 42, stack: 'not\nan array' })).toEqual({
      headline: null,
      facts: [],
      stack: ['not', 'an array'],
      symbolicated: null,
    })
  })
})

describe('searchIssues: filters, sorts, users affected and the 14-day trend', () => {
  const DAY = 86_400_000
  const now = new Date('2026-11-25T15:00:00Z')
  let orgId: string
  const ids = { error: '', request: '', rage: '' }

  /** Links a session to an issue, first seen in it `daysAgo` days before `now`. */
  async function seen(issueId: string, daysAgo: number, user: { userId?: string; anonymousId?: string }) {
    const at = new Date(now.getTime() - daysAgo * DAY)
    const session = await seedSession(orgId, at, {
      userId: user.userId ?? null,
      ...(user.anonymousId ? { anonymousId: user.anonymousId } : {}),
    })
    await db
      .insert(issueSessions)
      .values({ issueId, sessionId: session.id, organizationId: orgId, firstOccurrenceAt: at })
  }

  beforeAll(async () => {
    orgId = await org('Filters')
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY)
    ids.error = (
      await seedIssue(db, orgId, {
        title: 'TypeError on checkout',
        kind: 'js_error',
        priority: 'high',
        sessionCount: 3,
        firstSeenAt: at(10),
        lastSeenAt: at(0.5),
        evidence: { pageUrl: 'https://shop.example.com/checkout' },
      })
    ).id
    ids.request = (
      await seedIssue(db, orgId, {
        title: 'POST /api/pay returns 500',
        kind: 'network_error',
        priority: 'critical',
        sessionCount: 1,
        firstSeenAt: at(2),
        lastSeenAt: at(2),
        evidence: { url: 'https://shop.example.com/api/pay', pathPattern: '/cart' },
      })
    ).id
    ids.rage = (
      await seedIssue(db, orgId, {
        title: 'Rage clicks on Apply coupon',
        kind: 'rage_click',
        priority: 'low',
        sessionCount: 5,
        firstSeenAt: at(20),
        lastSeenAt: at(1),
        evidence: { pageUrl: 'https://shop.example.com/cart' },
      })
    ).id
    // Three sessions of two people (one identified twice); the third session is 20 days old.
    await seen(ids.error, 0.5, { userId: 'u-1' })
    await seen(ids.error, 3.5, { userId: 'u-1' })
    await seen(ids.error, 20, { anonymousId: 'anon-x' })
    await seen(ids.request, 2, { anonymousId: 'anon-y' })
    for (const [i, user] of ['a', 'b', 'c', 'd', 'e'].entries())
      await seen(ids.rage, 1 + i * 0.1, { userId: user })
  })

  const search = (query: Partial<Parameters<typeof searchIssues>[2]> = {}) =>
    searchIssues(db, orgId, { tab: 'all', q: '', limit: 25, ...query }, now)
  const titles = async (query: Partial<Parameters<typeof searchIssues>[2]> = {}) =>
    (await search(query)).items.map((i) => i.title)

  it('filters by priority, kind and page or URL, and counts tabs under the same filters', async () => {
    expect(await titles({ priority: 'critical' })).toEqual(['POST /api/pay returns 500'])
    expect(await titles({ kind: 'rage_click' })).toEqual(['Rage clicks on Apply coupon'])
    // The page an issue happened on, a failed request's own URL, or its page pattern.
    expect(await titles({ url: '/CHECKOUT' })).toEqual(['TypeError on checkout'])
    expect(await titles({ url: 'api/pay' })).toEqual(['POST /api/pay returns 500'])
    expect(await titles({ url: '/cart', sort: 'first_seen' })).toEqual([
      'POST /api/pay returns 500',
      'Rage clicks on Apply coupon',
    ])
    const combined = await search({ url: '/cart', priority: 'low' })
    expect(combined.items.map((i) => i.title)).toEqual(['Rage clicks on Apply coupon'])
    expect(combined.counts).toMatchObject({ all: 1, unresolved: 1, resolved: 0 })
    expect(combined.total).toBe(3)
    await expect(search({ kind: 'typo' })).rejects.toThrow(/Unknown kind/)
    await expect(search({ priority: 'urgent' })).rejects.toThrow(/Unknown priority/)
    await expect(search({ sort: 'random' })).rejects.toThrow(/Unknown sort/)
  })

  it('sorts by impact (the default), last seen, first seen, sessions, users and priority', async () => {
    // Impact: priority first (critical, high, low here), then users affected, then last seen.
    expect(await titles()).toEqual([
      'POST /api/pay returns 500',
      'TypeError on checkout',
      'Rage clicks on Apply coupon',
    ])
    expect(await titles({ sort: 'last_seen' })).toEqual([
      'TypeError on checkout',
      'Rage clicks on Apply coupon',
      'POST /api/pay returns 500',
    ])
    expect(await titles({ sort: 'first_seen' })).toEqual([
      'POST /api/pay returns 500',
      'TypeError on checkout',
      'Rage clicks on Apply coupon',
    ])
    expect(await titles({ sort: 'sessions' })).toEqual([
      'Rage clicks on Apply coupon',
      'TypeError on checkout',
      'POST /api/pay returns 500',
    ])
    expect(await titles({ sort: 'users' })).toEqual([
      'Rage clicks on Apply coupon',
      'TypeError on checkout',
      'POST /api/pay returns 500',
    ])
    expect(await titles({ sort: 'priority' })).toEqual([
      'POST /api/pay returns 500',
      'TypeError on checkout',
      'Rage clicks on Apply coupon',
    ])
  })

  it('orders by impact: priority, then users affected, then the latest seen; counts events', async () => {
    const impactOrg = await org('Impact')
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY)
    const make = (title: string, priority: 'critical' | 'high', lastSeen: number) =>
      seedIssue(db, impactOrg, { title, priority, firstSeenAt: at(5), lastSeenAt: at(lastSeen) })
    const link = async (issueId: string, users: string[], occurrences: number) => {
      for (const user of users) {
        const session = await seedSession(impactOrg, at(1), { userId: user })
        await db.insert(issueSessions).values({
          issueId,
          sessionId: session.id,
          organizationId: impactOrg,
          firstOccurrenceAt: at(1),
          occurrences,
        })
      }
    }
    const oneUserRecent = await make('High, one user, seen today', 'high', 0.1)
    const twoUsersOld = await make('High, two users, seen last week', 'high', 7)
    const oneUserOld = await make('High, one user, seen last week', 'high', 7.5)
    const critical = await make('Critical, one user, oldest', 'critical', 9)
    await link(oneUserRecent.id, ['u-1'], 4)
    await link(twoUsersOld.id, ['u-1', 'u-2'], 3)
    await link(oneUserOld.id, ['u-3'], 1)
    await link(critical.id, ['u-4'], 1)
    const result = await searchIssues(db, impactOrg, { tab: 'all', q: '', limit: 25 }, now)
    expect(result.items.map((i) => i.title)).toEqual([
      'Critical, one user, oldest',
      'High, two users, seen last week',
      'High, one user, seen today',
      'High, one user, seen last week',
    ])
    // Events: every linked session's occurrences added up.
    expect(result.items.map((i) => i.eventCount)).toEqual([1, 6, 4, 1])
  })

  it('counts distinct users and sessions per UTC day over 14 days, in one grouped query for the page', async () => {
    const select = vi.spyOn(db, 'select')
    const { items } = await search()
    // The page, the tab counts and the trends of every row: three queries whatever the page size.
    expect(select).toHaveBeenCalledTimes(3)
    select.mockRestore()
    const byId = new Map(items.map((i) => [i.id, i]))
    expect(byId.get(ids.error)!.usersAffected).toBe(2)
    expect(byId.get(ids.rage)!.usersAffected).toBe(5)
    const trend = byId.get(ids.error)!.trend
    expect(trend).toHaveLength(14)
    // Today is the last day; 3.5 days before 15:00 is 3 days before today's date (UTC).
    expect(trend[13]).toBe(1)
    expect(trend[10]).toBe(1)
    // The session 20 days ago is outside the window.
    expect(trend.reduce((a, b) => a + b, 0)).toBe(2)
    expect(byId.get(ids.rage)!.trend[12]).toBe(5)
  })
})

describe('updateIssuesStatus: bulk resolve', () => {
  it('resolves many issues in one go, with one activity and one webhook event per changed issue', async () => {
    const orgId = await org('Bulk')
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: 'user-bulk' }
    const open = await Promise.all([1, 2, 3].map((i) => seedIssue(db, orgId, { title: `Open ${i}` })))
    const done = await seedIssue(db, orgId, { status: 'resolved' })
    const foreign = await seedIssue(db, await org('Elsewhere'))

    const result = await updateIssuesStatus(db, actor, {
      issueIds: [...open.map((i) => i.id), open[0]!.id, done.id, foreign.id, 'junk'],
      status: 'resolved',
    })
    expect(result).toEqual({ changed: 3, unchanged: 1, notFound: 2 })
    for (const issue of open) {
      const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
      expect(row!.status).toBe('resolved')
      const events = await statusEventsOf(issue.id)
      expect(events).toHaveLength(1)
      expect(events[0]!.payload).toMatchObject({
        previousStatus: 'unresolved',
        status: 'resolved',
        actorType: 'user',
      })
      expect((await activitiesOf(issue.id)).map((a) => [a.kind, a.toStatus, a.actorId])).toEqual([
        ['status_changed', 'resolved', 'user-bulk'],
      ])
    }
    expect(await statusEventsOf(done.id)).toEqual([])
    expect(await statusEventsOf(foreign.id)).toEqual([])
    const [untouched] = await db.select().from(issues).where(eq(issues.id, foreign.id))
    expect(untouched!.status).toBe('unresolved')
  })

  it('refuses more than 100 issues, or none, with a clear error and changes nothing', async () => {
    const orgId = await org('Too many')
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: 'user-bulk' }
    const issue = await seedIssue(db, orgId)
    const many = [issue.id, ...Array.from({ length: 100 }, () => randomUUID())]
    await expect(updateIssuesStatus(db, actor, { issueIds: many, status: 'resolved' })).rejects.toThrow(
      'Select at most 100 issues at a time (101 were selected).',
    )
    await expect(updateIssuesStatus(db, actor, { issueIds: [], status: 'resolved' })).rejects.toThrow(
      InvalidInputError,
    )
    const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row!.status).toBe('unresolved')
    expect(await statusEventsOf(issue.id)).toEqual([])
  })
})

describe("the issue page's Reproduction card", () => {
  it('shows the reproduction, and when building it fails logs that and costs only the card', async () => {
    const organizationId = await org('Card')
    const issue = await seedIssue(db, organizationId)
    const shown = await loadReproduction(db, organizationId, issue.id)
    expect(shown?.issueId).toBe(issue.id)
    expect(shown?.test).toContain(
      "import { type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test'",
    )

    const failure = new Error('the trail could not be read')
    const select = vi.spyOn(db, 'select').mockImplementation(() => {
      throw failure
    })
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined)
    try {
      await expect(loadReproduction(db, organizationId, issue.id)).resolves.toBeNull()
      expect(logged).toHaveBeenCalledWith(
        { err: failure, organizationId, issueId: issue.id },
        'building the issue reproduction failed',
      )
    } finally {
      select.mockRestore()
      logged.mockRestore()
    }
  })
})

describe('the Verification card of the issue page (issue 36)', () => {
  const render = (verifications: Awaited<ReturnType<typeof detailFields>>['verifications']) =>
    renderToStaticMarkup(
      createElement(VerificationCard, {
        verifications,
        apiBaseUrl: 'https://replay.example.com',
        now: Date.now(),
      }),
    )

  it('says how to get runs when there are none', async () => {
    const orgId = await org()
    const issue = await seedIssue(db, orgId)
    const html = render((await detailFields(db, orgId, issue.id)).verifications)
    expect(html).toContain('data-testid="verification-none"')
    expect(html).toContain('https://replay.example.com/api/v1/reproductions?format=tgz')
    expect(html).toContain('npx playwright test')
    expect(html).toContain('report_reproduction_result')
  })

  it('shows the latest run large, the runner’s summary as escaped preformatted text, then the earlier runs', async () => {
    const orgId = await org()
    const key = await createKey(db, { organizationId: orgId, type: 'api', verifications: true })
    const issue = await seedIssue(db, orgId)
    const actor = { organizationId: orgId, actorType: 'credential' as const, actorId: key.id }
    const run = (status: 'passed' | 'failed', n: number, summary?: string) =>
      recordVerification(db, actor, {
        issueId: issue.id,
        status,
        baseUrl: `https://preview-${n}.example.com/?q=<b>`,
        release: `3.${n}.0`,
        summary,
        runner: 'playwright',
      })
    for (let n = 0; n < 11; n++) await run('failed', n)
    await run('passed', 11)
    const passed = render((await detailFields(db, orgId, issue.id)).verifications)
    expect(passed.replace(/<[^>]*>/g, '')).toContain(
      'Fix verified in 3.11.0 (reproduction passed against https://preview-11.example.com/?q=&lt;b&gt;)',
    )
    // Ten runs in all: the latest and the nine before it, newest first.
    const earlier = [...passed.matchAll(/preview-(\d+)\.example\.com/g)].map((m) => Number(m[1]))
    expect(earlier).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
    expect(passed).not.toContain('<a ')

    await run('failed', 12, '<img src=x onerror=alert(1)>\nline two')
    const failed = render((await detailFields(db, orgId, issue.id)).verifications)
    expect(failed.replace(/<[^>]*>/g, '')).toContain(
      'Reproduction still fails against https://preview-12.example.com/?q=&lt;b&gt; (release 3.12.0)',
    )
    expect(failed).toMatch(
      /<pre[^>]*data-testid="verification-summary"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;\nline two<\/pre>/,
    )
    expect(failed).not.toContain('<img')
  })
})
