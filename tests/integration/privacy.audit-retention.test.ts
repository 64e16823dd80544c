/**
 * Retention choices, pins and the audit trail (issue 33, item 5; docs/privacy.md#retention,
 * #audit-trail): each recorded action leaves exactly one entry naming its actor, the trail is
 * read over the Data API and by owners in the dashboard, retention is set from the API, the
 * dashboard and the CLI within the CLI's bounds, pinned sessions outlive retention up to the
 * maximum, and the trail refuses updates.
 */
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { renderToStaticMarkup } from 'react-dom/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setSessionPinAction } from '@/app/(dashboard)/sessions/[sessionId]/actions'
import { changeNetworkPolicyAction } from '@/app/(dashboard)/settings/actions'
import AuditPage from '@/app/(dashboard)/settings/audit/page'
import { createKeyAction, revokeKeyAction } from '@/app/(dashboard)/settings/keys/actions'
import { changeRetentionAction } from '@/app/(dashboard)/settings/privacy/actions'
import { GET as getReplayEvents } from '@/app/api/dashboard/sessions/[sessionId]/events/route'
import { GET as getAuditEvents } from '@/app/api/v1/audit-events/route'
import { GET as getRetention, PATCH as patchRetention } from '@/app/api/v1/retention/route'
import { PUT as pin, DELETE as unpin } from '@/app/api/v1/sessions/[sessionId]/pin/route'
import { GET as getSession } from '@/app/api/v1/sessions/[sessionId]/route'
import { GET as getTimeline } from '@/app/api/v1/sessions/[sessionId]/timeline/route'
import { auditEvents, memberships, type Role, replaySessions, users } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { pruneAuditTrail } from '@/lib/audit/prune'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { sweepRetention } from '@/lib/retention/sweep'
import { getBlobStore } from '@/lib/storage'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, startMcpServer } from '../helpers/mcp'
import { seedSession } from '../helpers/sessions'
import { signedIn } from '../helpers/signed-in'

// Actions and the audit page read whoever `signedIn.cookie` names; the rest is the real code.
vi.mock('@/lib/http/session', async () => {
  const helper = await import('../helpers/signed-in')
  const { currentOrganization } = await import('@/lib/members/memberships')
  return {
    ...helper,
    requireMember: async () => {
      const user = await helper.getSignedInUser()
      if (!user) throw new Error('signed out')
      return { user, organization: currentOrganization(user)! }
    },
  }
})
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))
vi.mock('next/headers', () => ({
  headers: async () => new Headers({ 'x-forwarded-for': '203.0.113.7' }),
  cookies: async () => ({ get: () => undefined, getAll: () => [] }),
}))

const BASE = 'http://localhost:3000'
let database: TestDatabase
let orgId: string
let owner: { id: string; cookie: string }
let member: { id: string; cookie: string }
let privacyKey: { id: string; key: string }
let readKey: { id: string; key: string }
let writeKey: { id: string; key: string }

async function person(organizationId: string, role: Role) {
  const email = `${role}-${randomUUID()}@example.com`
  const [user] = await database.db
    .insert(users)
    .values({ email, passwordHash: 'x', name: `The ${role}` })
    .returning()
  await database.db.insert(memberships).values({ organizationId, userId: user!.id, role })
  const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
  return { id: user!.id, cookie: `next-auth.session-token=${token}` }
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

function call(token: string | null, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  if (token) headers.set('authorization', `Bearer ${token}`)
  if (init.body) headers.set('content-type', 'application/json')
  return new Request(new URL(path, BASE), { ...init, headers })
}
const sessionParams = (sessionId: string) => ({ params: Promise.resolve({ sessionId }) })

/** The organization's entries of one action, oldest first. */
async function entries(action: string, targetId?: string) {
  return database.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, orgId),
        eq(auditEvents.action, action),
        targetId ? eq(auditEvents.targetId, targetId) : undefined,
      ),
    )
    .orderBy(auditEvents.createdAt)
}

async function cli(...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await runAdminCli([...argv, '--json'], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    database,
  })
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') }
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgId = (await createOrganization(database.db, { name: 'Audited' })).id
  owner = await person(orgId, 'owner')
  member = await person(orgId, 'member')
  privacyKey = await createKey(database.db, { organizationId: orgId, type: 'api', privacy: true })
  readKey = await createKey(database.db, { organizationId: orgId, type: 'api' })
  writeKey = await createKey(database.db, { organizationId: orgId, type: 'api', write: true })
})
afterAll(async () => {
  signedIn.cookie = ''
  useDatabase(undefined)
  await database?.close()
})

describe('keys', () => {
  it('records key.created and key.revoked once, naming the member or the admin CLI', async () => {
    signedIn.cookie = owner.cookie
    const created = await createKeyAction(null, form({ type: 'api', name: 'Audited key' }))
    expect(created.ok).toBe(true)
    const fromDashboard = (await entries('key.created')).filter((e) => e.actorId === owner.id)
    expect(fromDashboard).toHaveLength(1)
    const keyId = fromDashboard[0]!.targetId!
    expect(fromDashboard[0]).toMatchObject({ actorType: 'user', targetType: 'credential' })

    expect((await revokeKeyAction(keyId)).ok).toBe(true)
    expect((await revokeKeyAction(keyId)).ok).toBe(true) // revoking again records nothing
    expect(await entries('key.revoked', keyId)).toMatchObject([{ actorType: 'user', actorId: owner.id }])

    const viaCli = await cli('key:create', '--org', orgId, '--type', 'ingest')
    expect(viaCli.code).toBe(0)
    const cliKeyId = JSON.parse(viaCli.stdout).id as string
    expect(await entries('key.created', cliKeyId)).toMatchObject([{ actorType: 'system', actorId: 'cli' }])
    expect((await cli('key:revoke', '--id', cliKeyId)).code).toBe(0)
    expect(await entries('key.revoked', cliKeyId)).toMatchObject([{ actorType: 'system', actorId: 'cli' }])
  })
})

describe('retention', () => {
  it('reads and sets retention over the Data API within the bounds, recording each change once', async () => {
    const read = await getRetention(call(readKey.key, '/api/v1/retention'))
    expect(read.status).toBe(200)
    expect((await read.json()).retention).toMatchObject({ id: orgId, retentionDays: 30, pinnedMaxDays: 365 })

    const patch = (token: string, body: unknown) =>
      patchRetention(call(token, '/api/v1/retention', { method: 'PATCH', body: JSON.stringify(body) }))
    expect((await patch(readKey.key, { days: 60 })).status).toBe(403)
    expect(await (await patch(readKey.key, { days: 60 })).json()).toEqual({
      error: 'Missing required scope: write:privacy',
    })
    for (const bad of [{ days: 0 }, { days: 3651 }, { days: 1.5 }, { days: '60' }, {}, []]) {
      const answer = await patch(privacyKey.key, bad)
      expect(answer.status, JSON.stringify(bad)).toBe(400)
      expect(typeof (await answer.json()).error).toBe('string')
    }
    expect(await entries('retention.changed')).toHaveLength(0)

    const set = await patch(privacyKey.key, { days: 3650 })
    expect(set.status).toBe(200)
    expect((await set.json()).retention).toMatchObject({ retentionDays: 3650, pinnedMaxDays: 3650 })
    expect((await patch(privacyKey.key, { days: 3650 })).status).toBe(200) // unchanged: nothing recorded
    expect(await entries('retention.changed')).toMatchObject([
      { actorType: 'credential', actorId: privacyKey.id, targetId: orgId, metadata: { from: 30, to: 3650 } },
    ])
  })

  it('lets owners change it in the dashboard, members only see it, and the CLI records as the operator', async () => {
    signedIn.cookie = member.cookie
    expect(await changeRetentionAction(null, form({ days: '90' }))).toEqual({
      ok: false,
      error: 'Only organization owners can change how long recordings are kept.',
    })
    signedIn.cookie = owner.cookie
    for (const bad of ['0', '3651', 'ten', '', '1e2'])
      expect((await changeRetentionAction(null, form({ days: bad }))).ok, bad).toBe(false)
    expect(await changeRetentionAction(null, form({ days: '90' }))).toMatchObject({ ok: true })
    expect((await entries('retention.changed')).at(-1)).toMatchObject({
      actorType: 'user',
      actorId: owner.id,
      metadata: { from: 3650, to: 90 },
    })

    expect((await cli('org:retention', '--org', orgId, '--days', '30')).code).toBe(0)
    const all = await entries('retention.changed')
    expect(all).toHaveLength(3)
    expect(all.at(-1)).toMatchObject({ actorType: 'system', actorId: 'cli', metadata: { from: 90, to: 30 } })
  })
})

describe('masking', () => {
  it('records the network details policy change once, with before and after', async () => {
    signedIn.cookie = owner.cookie
    const changed = await changeNetworkPolicyAction(null, form({ policy: 'drop', redactKeys: 'iban' }))
    expect(changed.ok).toBe(true)
    expect(await entries('masking.changed')).toMatchObject([
      {
        actorType: 'user',
        actorId: owner.id,
        metadata: {
          from: { policy: 'redact', redactKeys: [] },
          to: { policy: 'drop', redactKeys: ['iban'] },
        },
      },
    ])
  })
})

describe('replay views', () => {
  it('records one entry per viewer and session within the window: dashboard, Data API and MCP', async () => {
    const session = await seedSession(database.db, orgId)
    const replay = () =>
      getReplayEvents(
        new Request(`${BASE}/api/dashboard/sessions/${session.id}/events`, {
          headers: { cookie: member.cookie },
        }),
        sessionParams(session.id),
      )
    expect((await replay()).status).toBe(200)
    expect((await replay()).status).toBe(200)
    const timeline = () =>
      getTimeline(call(readKey.key, `/api/v1/sessions/${session.id}/timeline`), sessionParams(session.id))
    expect((await timeline()).status).toBe(200)
    expect((await timeline()).status).toBe(200)
    // Another organization's or a missing session is not found and records nothing.
    const missing = randomUUID()
    expect(
      (await getTimeline(call(readKey.key, `/api/v1/sessions/${missing}/timeline`), sessionParams(missing)))
        .status,
    ).toBe(404)

    const mcpKey = await createKey(database.db, { organizationId: orgId, type: 'mcp' })
    const server = await startMcpServer()
    try {
      const client = await connectClient(server.url, mcpKey.key)
      const result = await client.callTool({ name: 'get_session', arguments: { sessionId: session.id } })
      expect(result.isError).toBeFalsy()
      await client.close()
    } finally {
      await server.close()
    }

    const viewed = await entries('replay.viewed', session.id)
    expect(viewed.map((e) => [e.actorType, e.actorId, e.metadata])).toEqual([
      ['user', member.id, { via: 'dashboard' }],
      ['credential', readKey.id, { via: 'api' }],
      ['credential', mcpKey.id, { via: 'mcp' }],
    ])
    expect(await entries('replay.viewed', missing)).toHaveLength(0)
  })
})

describe('pins', () => {
  it('pins and unpins over the Data API (write:issues) and in the dashboard, recording each change once', async () => {
    const session = await seedSession(database.db, orgId)
    const put = (token: string) =>
      pin(call(token, `/api/v1/sessions/${session.id}/pin`, { method: 'PUT' }), sessionParams(session.id))
    const del = (token: string) =>
      unpin(
        call(token, `/api/v1/sessions/${session.id}/pin`, { method: 'DELETE' }),
        sessionParams(session.id),
      )
    expect(await (await put(readKey.key)).json()).toEqual({ error: 'Missing required scope: write:issues' })
    const pinned = await put(writeKey.key)
    expect(pinned.status).toBe(200)
    const body = (await pinned.json()).pin
    expect(body).toMatchObject({ sessionId: session.id, pinnedBy: `credential:${writeKey.id}` })
    expect(body.keptUntil).toBe(new Date(session.startedAt.getTime() + 365 * 86_400_000).toISOString())
    expect((await put(writeKey.key)).status).toBe(200) // already pinned: nothing recorded

    const details = await (
      await getSession(call(readKey.key, `/api/v1/sessions/${session.id}`), sessionParams(session.id))
    ).json()
    expect(details.session.pinnedAt).toBe(body.pinnedAt)

    expect((await del(writeKey.key)).status).toBe(200)
    const missing = randomUUID()
    expect(
      (
        await pin(
          call(writeKey.key, `/api/v1/sessions/${missing}/pin`, { method: 'PUT' }),
          sessionParams(missing),
        )
      ).status,
    ).toBe(404)

    signedIn.cookie = member.cookie
    expect(await setSessionPinAction(session.id, true)).toMatchObject({ ok: true })
    expect(await entries('session.pinned', session.id)).toMatchObject([
      { actorType: 'credential', actorId: writeKey.id, targetType: 'session' },
      { actorType: 'user', actorId: member.id, targetType: 'session' },
    ])
    expect(await entries('session.unpinned', session.id)).toMatchObject([
      { actorType: 'credential', actorId: writeKey.id },
    ])
  })

  it('keeps pinned sessions past retention until the maximum, then the sweep deletes them', async () => {
    const org = await createOrganization(database.db, { name: 'Sweep' })
    const now = Date.parse('2027-06-01T00:00:00.000Z')
    const daysAgo = (days: number) => new Date(now - days * 86_400_000)
    const plain = await seedSession(database.db, org.id, { startedAt: daysAgo(40) })
    const kept = await seedSession(database.db, org.id, {
      startedAt: daysAgo(40),
      pinnedAt: daysAgo(35),
      pinnedBy: 'system:cli',
    })
    const tooOld = await seedSession(database.db, org.id, {
      startedAt: daysAgo(366),
      pinnedAt: daysAgo(300),
      pinnedBy: 'system:cli',
    })
    await sweepRetention(database.db, getBlobStore(), { now })
    const left = await database.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(eq(replaySessions.organizationId, org.id))
    expect(left.map((s) => s.id)).toEqual([kept.id])
    expect([plain.id, tooOld.id].some((id) => left.some((s) => s.id === id))).toBe(false)
    // Past the maximum it goes like any other.
    await sweepRetention(database.db, getBlobStore(), { now: now + 330 * 86_400_000 })
    expect(
      await database.db.select().from(replaySessions).where(eq(replaySessions.organizationId, org.id)),
    ).toEqual([])
  })
})

describe('reading the trail', () => {
  it('pages GET /api/v1/audit-events with filters, and answers 403 without write:privacy', async () => {
    const denied = await getAuditEvents(call(readKey.key, '/api/v1/audit-events'))
    expect(denied.status).toBe(403)
    expect(await denied.json()).toEqual({ error: 'Missing required scope: write:privacy' })

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query: string = `limit=2&action=retention.changed${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
      const answer = await getAuditEvents(call(privacyKey.key, `/api/v1/audit-events?${query}`))
      expect(answer.status).toBe(200)
      const page = (await answer.json()) as {
        events: { id: string; action: string; actor: { name: string } }[]
        nextCursor: string | null
      }
      expect(page.events.length).toBeLessThanOrEqual(2)
      for (const event of page.events) expect(event.action).toBe('retention.changed')
      seen.push(...page.events.map((e) => e.actor.name))
      cursor = page.nextCursor
    } while (cursor)
    // Newest first, actors named as they are now.
    expect(seen).toEqual(['Admin CLI', 'The owner', expect.stringContaining('Data API key')])

    const all = await (await getAuditEvents(call(privacyKey.key, '/api/v1/audit-events?limit=200'))).json()
    expect(all.events.length).toBeGreaterThan(8)
    const future = await (
      await getAuditEvents(call(privacyKey.key, '/api/v1/audit-events?since=2999-01-01T00:00:00Z'))
    ).json()
    expect(future).toEqual({ events: [], nextCursor: null })
    for (const bad of ['action=replay.deleted', 'since=yesterday', 'limit=0', 'cursor=forged'])
      expect((await getAuditEvents(call(privacyKey.key, `/api/v1/audit-events?${bad}`))).status, bad).toBe(
        400,
      )
  })

  it('shows the entries to owners only in the dashboard', async () => {
    signedIn.cookie = owner.cookie
    const html = renderToStaticMarkup(await AuditPage({ searchParams: Promise.resolve({}) }))
    expect(html).toContain('data-testid="audit-entries"')
    expect(html).toContain('retention.changed')
    expect(html).toContain('The member')

    signedIn.cookie = member.cookie
    const denied = renderToStaticMarkup(await AuditPage({ searchParams: Promise.resolve({}) }))
    expect(denied).toContain('Only organization owners can see the audit log.')
    expect(denied).not.toContain('audit-entry')
  })

  it('refuses to update an entry, and the retention sweep deletes entries past 400 days', async () => {
    // The trigger's message, whichever driver wrapped the error.
    const refused = await database.db
      .update(auditEvents)
      .set({ action: 'key.created' })
      .where(eq(auditEvents.organizationId, orgId))
      .then(
        () => 'updated',
        (error: Error) => `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`,
      )
    expect(refused).toContain('audit_events is append-only')
    const org = await createOrganization(database.db, { name: 'Old trail' })
    const old = new Date(Date.now() - 401 * 86_400_000)
    await database.db.insert(auditEvents).values([
      {
        organizationId: org.id,
        actorType: 'system',
        actorId: 'cli',
        action: 'retention.changed',
        createdAt: old,
      },
      { organizationId: org.id, actorType: 'system', actorId: 'cli', action: 'retention.changed' },
    ])
    expect((await pruneAuditTrail(database.db)).entries).toBeGreaterThanOrEqual(1)
    const left = await database.db.select().from(auditEvents).where(eq(auditEvents.organizationId, org.id))
    expect(left).toHaveLength(1)
    expect(left[0]!.createdAt.getTime()).toBeGreaterThan(old.getTime())
  })
})
