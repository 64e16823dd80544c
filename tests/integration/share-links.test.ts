/**
 * Share links (issue 37, docs/sharing.md): created, listed and revoked over the Data API within
 * the expiry bounds, the token-authorised events route answering the linked session's events
 * only while the link is valid (and nothing else of the organization), the audit trail, erasure
 * and session deletion taking links with them, and tickets carrying a link only when enabled.
 */
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GET as sharedEvents } from '@/app/api/share/[token]/events/route'
import { POST as postErasure } from '@/app/api/v1/erasures/route'
import { POST as createLink, GET as listLinks } from '@/app/api/v1/sessions/[sessionId]/share-links/route'
import { DELETE as revokeLink } from '@/app/api/v1/share-links/[shareLinkId]/route'
import { auditEvents, integrationDeliveries, replaySessions, shareLinks } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createIntegration } from '@/lib/integrations/create-integration'
import { createTicket } from '@/lib/integrations/create-ticket'
import { createOrganization } from '@/lib/orgs/create-organization'
import { runErasure } from '@/lib/privacy/erase-person'
import { deleteSessions } from '@/lib/retention/delete-sessions'
import { INVALID_EXPIRY, INVALID_START_AT, SHARE_LINK_NOT_FOUND } from '@/lib/sharing/limits'
import { SHARE_LINK_NOT_KEPT, setTicketShareLinks } from '@/lib/sharing/ticket-links'
import { getBlobStore } from '@/lib/storage'
import { recorderBatches } from '../helpers/batches'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { captureLogs } from '../helpers/logs'
import { seedIssue } from '../helpers/seed'
import { linkIssue, seedSession } from '../helpers/sessions'
import { startGithubFake, type TrackerFake } from '../helpers/tracker-fakes'

const BASE = 'https://replay.example.com'
const GITHUB_TOKEN = 'github_pat_11AAAA0123456789SHARETOKEN'
const EMAIL = 'pat.share@example.com'
const DAY = 86_400_000

let database: TestDatabase
let github: TrackerFake
let orgId: string
let otherOrgId: string
let writeKey: { id: string; key: string }
let readKey: string
let privacyKey: string
let otherKey: string
let sessionId: string
let externalId: string
let otherSessionId: string
let foreignSessionId: string
const sentEvents = [
  { type: 4, timestamp: 1_790_000_000_000, data: { href: 'http://127.0.0.1/', width: 800, height: 600 } },
  {
    type: 2,
    timestamp: 1_790_000_000_010,
    data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { top: 0, left: 0 } },
  },
  { type: 3, timestamp: 1_790_000_001_000, data: { source: 2, type: 2, id: 1, x: 5, y: 5 } },
]
// What the dashboard's panes show and a share link does not: a custom event's payload and a
// console message (rrweb's console plugin).
const CONSOLE_SECRET = 'order 4411 for ada, card ending 4242'
const paneEvents = [
  { type: 5, timestamp: 1_790_000_001_100, data: { tag: 'checkout', payload: { order: 4411 } } },
  {
    type: 6,
    timestamp: 1_790_000_001_200,
    data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [CONSOLE_SECRET], trace: [] } },
  },
]

type Body = Record<string, unknown>

function call(token: string | null, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  if (token) headers.set('authorization', `Bearer ${token}`)
  if (init.body) headers.set('content-type', 'application/json')
  return new Request(new URL(path, 'http://localhost:3000'), { ...init, headers })
}
const create = (token: string, id: string, body: unknown = {}) =>
  createLink(
    call(token, `/api/v1/sessions/${id}/share-links`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
    {
      params: Promise.resolve({ sessionId: id }),
    },
  )
const list = (token: string, id: string) =>
  listLinks(call(token, `/api/v1/sessions/${id}/share-links`), { params: Promise.resolve({ sessionId: id }) })
const revoke = (token: string, id: string) =>
  revokeLink(call(token, `/api/v1/share-links/${id}`, { method: 'DELETE' }), {
    params: Promise.resolve({ shareLinkId: id }),
  })
const events = (token: string, address = '203.0.113.9') =>
  sharedEvents(
    new Request(`http://localhost:3000/api/share/${encodeURIComponent(token)}/events`, {
      headers: { 'x-forwarded-for': address },
    }),
    { params: Promise.resolve({ token }) },
  )
const tokenOf = (url: string) => new URL(url).pathname.split('/')[2]!

async function audit(action: string, targetId: string) {
  return database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, targetId)))
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  github = await startGithubFake(GITHUB_TOKEN)
  // One trusted proxy hop, so each test address is its own rate-limit bucket.
  setConfigForTests(
    parseConfig({ ...process.env, BASE_URL: BASE, GITHUB_API_URL: github.url, TRUSTED_PROXY_HOPS: '1' }),
  )
  orgId = (await createOrganization(database.db, { name: 'Sharer' })).id
  otherOrgId = (await createOrganization(database.db, { name: 'Stranger' })).id
  writeKey = await createKey(database.db, { organizationId: orgId, type: 'api', write: true })
  readKey = (await createKey(database.db, { organizationId: orgId, type: 'api' })).key
  privacyKey = (await createKey(database.db, { organizationId: orgId, type: 'api', privacy: true })).key
  otherKey = (await createKey(database.db, { organizationId: otherOrgId, type: 'api', write: true })).key
  const ingestKey = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
  externalId = `share-${randomUUID()}`
  for (const batch of recorderBatches({
    sessionId: externalId,
    events: [...sentEvents, ...paneEvents],
    user: { anonymousId: 'anon-share', id: 'user-7', properties: { email: EMAIL } },
  }))
    expect((await sendBatch(batch, { key: ingestKey })).status).toBe(200)
  const [row] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(eq(replaySessions.externalId, externalId))
  sessionId = row!.id
  otherSessionId = (await seedSession(database.db, orgId)).id
  foreignSessionId = (await seedSession(database.db, otherOrgId)).id
})
afterAll(async () => {
  await github?.close()
  setConfigForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

describe('the Data API', () => {
  let linkId: string
  let token: string

  it('creates a link (201) with its address shown once; a week by default, opening at startAtMs', async () => {
    const before = Date.now()
    const response = await create(writeKey.key, sessionId, { startAtMs: 1500 })
    expect(response.status).toBe(201)
    const { shareLink } = (await response.json()) as { shareLink: Body }
    expect(shareLink).toMatchObject({ sessionId, startAtMs: 1500, state: 'active', revokedAt: null })
    expect(shareLink.url).toMatch(
      /^https:\/\/replay\.example\.com\/share\/svc_shr_[A-Za-z0-9_-]{43}\?t=1500$/,
    )
    expect(shareLink.embedUrl).toBe(String(shareLink.url).replace('?t=', '/embed?t='))
    const expires = new Date(String(shareLink.expiresAt)).getTime()
    expect(expires - before).toBeGreaterThanOrEqual(7 * DAY - 1000)
    expect(expires - before).toBeLessThanOrEqual(7 * DAY + 60_000)
    linkId = String(shareLink.id)
    token = tokenOf(String(shareLink.url))
    // Only the hash is stored.
    const stored = JSON.stringify(await database.db.select().from(shareLinks))
    expect(stored).not.toContain(token)
    const [created] = await audit('share.created', linkId)
    expect(created).toMatchObject({ actorType: 'credential', actorId: writeKey.id, targetType: 'share_link' })
    expect(created!.metadata).toMatchObject({ sessionId, startAtMs: 1500 })
  })

  it('holds expiry and start to their bounds with 400s', async () => {
    for (const expiresInDays of [0, 31, 1.5, '7', -1, 1e9])
      expect(await (await create(writeKey.key, sessionId, { expiresInDays })).json()).toEqual({
        error: INVALID_EXPIRY,
      })
    for (const startAtMs of [-1, 0.5, '10', 1e11]) {
      const response = await create(writeKey.key, sessionId, { startAtMs })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: INVALID_START_AT })
    }
    expect((await create(writeKey.key, sessionId, '{"expiresInDays":')).status).toBe(400)
    const longest = await create(writeKey.key, sessionId, { expiresInDays: 30 })
    expect(longest.status).toBe(201)
    const { shareLink } = (await longest.json()) as { shareLink: { expiresAt: string; startAtMs: null } }
    expect(new Date(shareLink.expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * DAY)
    expect(shareLink.startAtMs).toBeNull()
  })

  it('takes write:issues to create and revoke, read:service to list; never crosses organizations', async () => {
    expect((await create(readKey, sessionId)).status).toBe(403)
    expect((await revoke(readKey, linkId)).status).toBe(403)
    expect((await create(otherKey, sessionId)).status).toBe(404)
    expect((await create(writeKey.key, foreignSessionId)).status).toBe(404)
    expect((await create(writeKey.key, 'not-a-uuid')).status).toBe(404)
    expect((await list(otherKey, sessionId)).status).toBe(404)
    expect(await (await revoke(otherKey, linkId)).json()).toEqual({ error: SHARE_LINK_NOT_FOUND })
    const listed = await list(readKey, sessionId)
    expect(listed.status).toBe(200)
    const { shareLinks: items } = (await listed.json()) as { shareLinks: Body[] }
    expect(items.map((i) => i.id)).toContain(linkId)
    expect(JSON.stringify(items)).not.toContain('svc_shr_')
    for (const item of items) expect(item).not.toHaveProperty('url')
  })

  it("the events route answers the session's playable events with the token, and nothing else of the organization", async () => {
    const logs = captureLogs('info')
    let response: Response
    try {
      response = await events(token)
    } finally {
      logs.restore()
    }
    // The access line names the route: the token in the path would open the replay to any log reader.
    expect(logs.records().find((r) => r.msg === 'request')).toMatchObject({
      surface: 'share',
      path: '/api/share/[token]/events',
      status: 200,
    })
    expect(logs.lines.join('')).not.toContain(token)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(response.headers.get('x-robots-tag')).toContain('noindex')
    const text = await response.text()
    // Only what draws the page: no custom event, no console message.
    expect(JSON.parse(text)).toEqual(sentEvents)
    for (const secret of [
      EMAIL,
      'user-7',
      'anon-share',
      orgId,
      otherSessionId,
      sessionId,
      externalId,
      CONSOLE_SECRET,
    ])
      expect(text).not.toContain(secret)
    // A second view within the hour is the same audit entry.
    expect((await events(token)).status).toBe(200)
    const views = await audit('share.viewed', linkId)
    expect(views).toHaveLength(1)
    expect(views[0]).toMatchObject({ actorType: 'system', actorId: 'share_link' })
    expect(views[0]!.metadata).toEqual({ sessionId })
    for (const bad of ['svc_shr_unknown', `svc_shr_${'A'.repeat(43)}`, token.slice(0, -1), `${token}x`]) {
      const missing = await events(bad)
      expect(missing.status).toBe(404)
      expect(await missing.json()).toEqual({ error: SHARE_LINK_NOT_FOUND })
    }
  })

  it('answers 404 once the link is revoked or expired, alike', async () => {
    const revoked = await revoke(writeKey.key, linkId)
    expect(revoked.status).toBe(200)
    expect(((await revoked.json()) as { shareLink: Body }).shareLink).toMatchObject({ state: 'revoked' })
    expect((await revoke(writeKey.key, linkId)).status).toBe(200)
    expect(await audit('share.revoked', linkId)).toHaveLength(1)
    const gone = await events(token)
    expect(gone.status).toBe(404)
    expect(await gone.json()).toEqual({ error: SHARE_LINK_NOT_FOUND })

    const fresh = (await (await create(writeKey.key, sessionId)).json()) as {
      shareLink: { id: string; url: string }
    }
    expect((await events(tokenOf(fresh.shareLink.url))).status).toBe(200)
    await database.db
      .update(shareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(shareLinks.id, fresh.shareLink.id))
    expect(await (await events(tokenOf(fresh.shareLink.url))).json()).toEqual({ error: SHARE_LINK_NOT_FOUND })
    const { shareLinks: items } = (await (await list(readKey, sessionId)).json()) as { shareLinks: Body[] }
    expect(items.find((i) => i.id === fresh.shareLink.id)).toMatchObject({ state: 'expired' })
  })

  it('limits reads per address', async () => {
    const bucket = `198.51.100.${Math.floor(Math.random() * 200)}`
    const answers: number[] = []
    for (let i = 0; i < 31; i++) answers.push((await events('svc_shr_nope', bucket)).status)
    expect(answers.slice(0, 30).every((s) => s === 404)).toBe(true)
    expect(answers[30]).toBe(429)
    expect((await events('svc_shr_nope', '198.51.100.250')).status).toBe(404)
  })
})

describe('links go with their session', () => {
  it('erasing the person deletes the links to their sessions first', async () => {
    const { shareLink } = (await (await create(writeKey.key, sessionId)).json()) as {
      shareLink: { url: string }
    }
    const response = await postErasure(
      call(privacyKey, '/api/v1/erasures', {
        method: 'POST',
        body: JSON.stringify({ anonymousId: 'anon-share' }),
      }),
    )
    expect(response.status).toBe(202)
    const { erasure } = (await response.json()) as { erasure: { id: string } }
    const done = await runErasure(
      { db: database.db, blobs: getBlobStore() },
      { organizationId: orgId, erasureId: erasure.id },
    )
    expect(done.counts.shareLinksDeleted).toBeGreaterThanOrEqual(1)
    expect(await database.db.select().from(shareLinks).where(eq(shareLinks.sessionId, sessionId))).toEqual([])
    expect((await events(tokenOf(shareLink.url))).status).toBe(404)
  })

  it('deleting a session (retention) deletes its links', async () => {
    await create(writeKey.key, otherSessionId)
    await deleteSessions(database.db, getBlobStore(), { organizationId: orgId, sessionIds: [otherSessionId] })
    expect(
      await database.db.select().from(shareLinks).where(eq(shareLinks.sessionId, otherSessionId)),
    ).toEqual([])
  })
})

describe('ticket bodies', () => {
  it('link to a share link of the sample session only when the organization enables it', async () => {
    await createIntegration(database.db, {
      organizationId: orgId,
      kind: 'github',
      name: 'GitHub',
      token: GITHUB_TOKEN,
      repository: 'acme/shop',
    })
    const session = await seedSession(database.db, orgId)
    const actor = { organizationId: orgId, actorType: 'user' as const, actorId: randomUUID() }
    const ticketFor = async () => {
      const issue = await seedIssue(database.db, orgId, { title: `Broken ${randomUUID()}` })
      await linkIssue(database.db, session, issue.id, new Date(session.startedAt.getTime() + 4000))
      await createTicket(database.db, actor, { issueId: issue.id, provider: 'github' })
      return { issueId: issue.id, body: github.created.at(-1)!.body }
    }
    const off = await ticketFor()
    expect(off.body).not.toContain('/share/')

    await setTicketShareLinks(database.db, { organizationId: orgId, enabled: true })
    const on = await ticketFor()
    const url = /https:\/\/replay\.example\.com\/share\/(svc_shr_[A-Za-z0-9_-]{43})\?t=4000/.exec(on.body)
    expect(url, on.body).not.toBeNull()
    expect((await events(url![1]!)).status).toBe(200)
    const [created] = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'share.created'), eq(auditEvents.actorId, actor.actorId)))
    expect(created!.metadata).toMatchObject({ via: 'ticket', sessionId: session.id })
    // The delivery log keeps the text without the token.
    const deliveries = await database.db
      .select({ body: integrationDeliveries.body })
      .from(integrationDeliveries)
      .where(eq(integrationDeliveries.issueId, on.issueId))
    expect(deliveries.length).toBeGreaterThan(0)
    for (const delivery of deliveries) {
      expect(delivery.body).not.toContain(url![1]!)
      expect(delivery.body).toContain(SHARE_LINK_NOT_KEPT)
    }

    // A tracker that refuses the ticket got the only copy of the link's token: it is revoked.
    github.failNext({ kind: 'unauthorized' })
    const refusedIssue = await seedIssue(database.db, orgId, { title: `Refused ${randomUUID()}` })
    await linkIssue(database.db, session, refusedIssue.id, new Date(session.startedAt.getTime() + 4000))
    await expect(
      createTicket(database.db, actor, { issueId: refusedIssue.id, provider: 'github' }),
    ).rejects.toThrow()
    const links = await database.db
      .select({ revokedAt: shareLinks.revokedAt })
      .from(shareLinks)
      .where(and(eq(shareLinks.sessionId, session.id), eq(shareLinks.createdById, actor.actorId)))
    expect(links.filter((l) => l.revokedAt === null)).toHaveLength(1)
    expect(links.filter((l) => l.revokedAt !== null)).toHaveLength(1)
  })
})
