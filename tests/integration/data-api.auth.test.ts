import { eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { credentials, oauthAccessTokens, oauthTokenChains } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { seedInsight, seedIssue, seedOAuthToken, seedSignal } from '../helpers/seed'

let database: TestDatabase
let orgA: string
let orgB: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  orgA = (await createOrganization(database.db, { name: 'A' })).id
  orgB = (await createOrganization(database.db, { name: 'B' })).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

type Body = Record<string, unknown>
const MISSING = { error: 'Missing or invalid bearer token' }

describe('Data API credentials', () => {
  it('accepts a svc_api_ key, a legacy svc_mcp_ key and a svc_oat_ OAuth access token', async () => {
    const issue = await seedIssue(database.db, orgA)
    const tokens = [
      (await createKey(database.db, { organizationId: orgA, type: 'api' })).key,
      (await createKey(database.db, { organizationId: orgA, type: 'mcp' })).key,
      (await seedOAuthToken(database.db, orgA)).token,
    ]
    for (const token of tokens) {
      const list = await api.listIssues(token)
      expect(list.status, token.slice(0, 8)).toBe(200)
      expect(((await list.json()) as Body).issues).toBeInstanceOf(Array)
      expect((await api.getIssue(token, issue.id)).status).toBe(200)
      expect((await api.listSignals(token)).status).toBe(200)
      expect((await api.listInsights(token)).status).toBe(200)
    }
  })

  const unauthenticated: [string, () => Promise<string | null | Record<string, string>>][] = [
    ['no Authorization header', async () => null],
    ['an unknown svc_api_ key', async () => 'svc_api_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['an unknown svc_oat_ token', async () => 'svc_oat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    [
      'an ingest key',
      async () => (await createKey(database.db, { organizationId: orgA, type: 'ingest' })).key,
    ],
    ['a token without a known prefix', async () => 'hello-world'],
    [
      'a revoked svc_api_ key',
      async () => {
        const key = await createKey(database.db, { organizationId: orgA, type: 'api' })
        await revokeKey(database.db, { id: key.id })
        return key.key
      },
    ],
    [
      'a revoked svc_mcp_ key',
      async () => {
        const key = await createKey(database.db, { organizationId: orgA, type: 'mcp' })
        await revokeKey(database.db, { id: key.id })
        return key.key
      },
    ],
    [
      'an expired OAuth access token',
      async () => (await seedOAuthToken(database.db, orgA, { expiresInSeconds: -1 })).token,
    ],
    [
      'a revoked OAuth access token',
      async () => {
        const seeded = await seedOAuthToken(database.db, orgA)
        await database.db
          .update(oauthAccessTokens)
          .set({ revokedAt: new Date() })
          .where(eq(oauthAccessTokens.id, seeded.tokenId))
        return seeded.token
      },
    ],
    [
      'an OAuth token of a revoked chain',
      async () => {
        const seeded = await seedOAuthToken(database.db, orgA)
        await database.db
          .update(oauthTokenChains)
          .set({ revokedAt: new Date() })
          .where(eq(oauthTokenChains.id, seeded.chainId))
        return seeded.token
      },
    ],
    ['a Basic scheme', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    [
      'a bare key without Bearer',
      async () => ({
        authorization: (await createKey(database.db, { organizationId: orgA, type: 'api' })).key,
      }),
    ],
    ['Bearer with nothing after it', async () => ({ authorization: 'Bearer ' })],
  ]

  it.each(unauthenticated)('401 for %s, with the read scope challenge', async (_label, make) => {
    const made = await make()
    const response =
      made && typeof made === 'object' ? await api.listIssues(null, {}, made) : await api.listIssues(made)
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual(MISSING)
    expect(response.headers.get('www-authenticate')).toBe('Bearer scope="read:service"')
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('401 on PATCH challenges for write:issues', async () => {
    const issue = await seedIssue(database.db, orgA)
    const response = await api.patchIssue(null, issue.id, { status: 'resolved' })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual(MISSING)
    expect(response.headers.get('www-authenticate')).toBe('Bearer scope="write:issues"')
  })

  it('does not accept a signed-in dashboard session cookie', async () => {
    const session = await encode({ token: { sub: 'user', email: 'a@b.c' }, secret: process.env.AUTH_SECRET! })
    const response = await api.listIssues(null, {}, { cookie: `next-auth.session-token=${session}` })
    expect(response.status).toBe(401)
  })

  it('a key without write:issues cannot PATCH, whatever its kind', async () => {
    const issue = await seedIssue(database.db, orgA)
    for (const token of [
      (await createKey(database.db, { organizationId: orgA, type: 'api' })).key,
      (await createKey(database.db, { organizationId: orgA, type: 'mcp' })).key,
      (await seedOAuthToken(database.db, orgA, { scope: 'read:service' })).token,
    ]) {
      const response = await api.patchIssue(token, issue.id, { status: 'resolved' })
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ error: 'Missing required scope: write:issues' })
    }
    const writer = await seedOAuthToken(database.db, orgA, { scope: 'read:service write:issues' })
    expect((await api.patchIssue(writer.token, issue.id, { status: 'resolved' })).status).toBe(200)
  })

  it('updates lastUsedAt of a key without writing on every request', async () => {
    const key = await createKey(database.db, { organizationId: orgA, type: 'api' })
    await api.listIssues(key.key)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const [first] = await database.db.select().from(credentials).where(eq(credentials.id, key.id))
    expect(first!.lastUsedAt).toBeInstanceOf(Date)
    await api.listIssues(key.key)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const [second] = await database.db.select().from(credentials).where(eq(credentials.id, key.id))
    expect(second!.lastUsedAt!.getTime()).toBe(first!.lastUsedAt!.getTime())
  })
})

describe('organization isolation', () => {
  it('answers every endpoint with the token’s organization only', async () => {
    const keyA = (await createKey(database.db, { organizationId: orgA, type: 'api', write: true })).key
    const oauthB = (await seedOAuthToken(database.db, orgB, { scope: 'read:service write:issues' })).token
    const issueB = await seedIssue(database.db, orgB, { title: 'B only' })
    const signalB = await seedSignal(database.db, orgB, { name: 'B signal' })
    const insightB = await seedInsight(database.db, orgB)
    const issueA = await seedIssue(database.db, orgA, { title: 'A only' })

    const issuesA = ((await (await api.listIssues(keyA, { limit: 200 })).json()) as { issues: Body[] }).issues
    expect(issuesA.some((i) => i.id === issueB.id)).toBe(false)
    expect(issuesA.some((i) => i.id === issueA.id)).toBe(true)
    const signalsA = ((await (await api.listSignals(keyA, { limit: 200 })).json()) as { signals: Body[] })
      .signals
    expect(signalsA.some((s) => s.id === signalB.id)).toBe(false)
    const insightsA = ((await (await api.listInsights(keyA, { limit: 100 })).json()) as { insights: Body[] })
      .insights
    expect(insightsA.some((s) => s.id === insightB.id)).toBe(false)
    expect((await api.getIssue(keyA, issueB.id)).status).toBe(404)
    expect((await api.patchIssue(keyA, issueB.id, { status: 'resolved' })).status).toBe(404)

    const issuesB = ((await (await api.listIssues(oauthB, { limit: 200 })).json()) as { issues: Body[] })
      .issues
    expect(issuesB.map((i) => i.id)).toEqual([issueB.id])
    expect((await api.getIssue(oauthB, issueA.id)).status).toBe(404)
    expect((await api.patchIssue(oauthB, issueA.id, { status: 'resolved' })).status).toBe(404)
    expect((await api.patchIssue(oauthB, issueB.id, { status: 'resolved' })).status).toBe(200)
  })
})

describe('signals and insights', () => {
  it('lists signals in the spec shape, newest first, with limit 1..200', async () => {
    const org = (await createOrganization(database.db, { name: 'Signals' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const older = await seedSignal(database.db, org, { createdAt: new Date('2026-01-01T00:00:00Z') })
    const newer = await seedSignal(database.db, org, {
      status: 'paused',
      backfillStatus: 'completed',
      matchCount: 3,
      lastMatchAt: new Date('2026-03-01T00:00:00Z'),
    })
    const response = await api.listSignals(key, { limit: 1 })
    const page = (await response.json()) as { signals: Body[]; nextCursor: string }
    expect(page.signals).toEqual([
      {
        id: newer.id,
        name: newer.name,
        prompt: newer.prompt,
        status: 'paused',
        backfillStatus: 'completed',
        createdAt: newer.createdAt.toISOString(),
        matchCount: 3,
        lastMatchAt: '2026-03-01T00:00:00.000Z',
        savedSearchId: null,
      },
    ])
    const next = (await (await api.listSignals(key, { limit: 1, cursor: page.nextCursor })).json()) as {
      signals: Body[]
      nextCursor: string | null
    }
    expect(next.signals[0]).toMatchObject({
      id: older.id,
      status: 'active',
      backfillStatus: 'pending',
      lastMatchAt: null,
      matchCount: 0,
    })
    expect(next.nextCursor).toBeNull()
    expect(((await (await api.listSignals(key)).json()) as { signals: Body[] }).signals).toHaveLength(2)
    for (const limit of ['0', '201', 'x']) {
      const bad = await api.listSignals(key, { limit })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toEqual({ error: 'limit must be an integer between 1 and 200' })
    }
    expect((await api.listSignals(key, { limit: 200 })).status).toBe(200)
  })

  it('lists insights in the spec shape with limit 1..100', async () => {
    const org = (await createOrganization(database.db, { name: 'Insights' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    const insight = await seedInsight(database.db, org)
    const page = (await (await api.listInsights(key)).json()) as { insights: Body[]; nextCursor: null }
    expect(page).toEqual({
      insights: [
        {
          id: insight.id,
          createdAt: insight.createdAt.toISOString(),
          intervalStart: insight.intervalStart.toISOString(),
          intervalEnd: insight.intervalEnd.toISOString(),
          sessionsCount: 42,
          contentPreview: insight.contentPreview,
          // Additive beside the spec's fields (docs/privacy.md#erasure).
          redactedAt: null,
        },
      ],
      nextCursor: null,
    })
    const bad = await api.listInsights(key, { limit: 101 })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ error: 'limit must be an integer between 1 and 100' })
    expect((await api.listInsights(key, { limit: 100 })).status).toBe(200)
  })

  it('refuses a cursor of one list on another', async () => {
    const org = (await createOrganization(database.db, { name: 'Cross' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    await seedSignal(database.db, org)
    await seedSignal(database.db, org)
    await seedIssue(database.db, org)
    await seedIssue(database.db, org)
    const signalCursor = ((await (await api.listSignals(key, { limit: 1 })).json()) as { nextCursor: string })
      .nextCursor
    expect((await api.listIssues(key, { limit: 1, cursor: signalCursor })).status).toBe(400)
    expect((await api.listInsights(key, { limit: 1, cursor: signalCursor })).status).toBe(400)
  })
})

describe('rate limits', () => {
  const clock = freezeRateLimitClock()
  it('reads: 300 a minute per token, with headers on every answer and 429 after', async () => {
    const token = (await createKey(database.db, { organizationId: orgA, type: 'api' })).key
    let last: Response | undefined
    for (let i = 0; i < 300; i++) {
      last = await api.listInsights(token, { limit: 1 })
      expect(last.status).toBe(200)
    }
    expect(last!.headers.get('x-ratelimit-limit')).toBe('300')
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0')
    const reset = Number(last!.headers.get('x-ratelimit-reset'))
    expect(reset).toBeGreaterThan(clock.now() / 1000)
    expect(reset).toBeLessThanOrEqual(clock.now() / 1000 + 61)
    const refused = await api.listIssues(token)
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({ error: 'Rate limit exceeded' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(refused.headers.get('cache-control')).toBe('no-store')
    // another token has its own budget
    const other = (await createKey(database.db, { organizationId: orgA, type: 'api' })).key
    expect((await api.listIssues(other)).status).toBe(200)
  })

  it('writes: 60 a minute per token, separate from reads', async () => {
    const token = (await createKey(database.db, { organizationId: orgA, type: 'api', write: true })).key
    const issue = await seedIssue(database.db, orgA)
    for (let i = 0; i < 60; i++) {
      const response = await api.patchIssue(token, issue.id, { status: i % 2 ? 'resolved' : 'unresolved' })
      expect(response.status).toBe(200)
      expect(response.headers.get('x-ratelimit-limit')).toBe('60')
    }
    const refused = await api.patchIssue(token, issue.id, { status: 'transient' })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await api.getIssue(token, issue.id)).status).toBe(200)
  })

  it('OAuth tokens of one client share the client’s budget', async () => {
    const first = await seedOAuthToken(database.db, orgA)
    const second = await seedOAuthToken(database.db, orgA, { clientId: first.clientId })
    for (let i = 0; i < 150; i++) {
      expect((await api.listInsights(first.token, { limit: 1 })).status).toBe(200)
      expect((await api.listInsights(second.token, { limit: 1 })).status).toBe(200)
    }
    expect((await api.listInsights(second.token)).status).toBe(429)
    expect((await api.listInsights(first.token)).status).toBe(429)
  })

  it('one public client used by two organizations has a budget in each', async () => {
    const inA = await seedOAuthToken(database.db, orgA, { scope: 'read:service write:issues' })
    const inB = await seedOAuthToken(database.db, orgB, {
      clientId: inA.clientId,
      scope: 'read:service write:issues',
    })
    for (let i = 0; i < 300; i++) expect((await api.listInsights(inA.token, { limit: 1 })).status).toBe(200)
    const spent = await api.listInsights(inA.token)
    expect(spent.status).toBe(429)
    expect(await spent.json()).toEqual({ error: 'Rate limit exceeded' })
    const fresh = await api.listInsights(inB.token, { limit: 1 })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('x-ratelimit-limit')).toBe('300')
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('299')
    // writes too: A spends its 60, B keeps its own
    const issueA = await seedIssue(database.db, orgA)
    const issueB = await seedIssue(database.db, orgB)
    for (let i = 0; i < 60; i++)
      expect((await api.patchIssue(inA.token, issueA.id, { status: 'resolved' })).status).toBe(200)
    expect((await api.patchIssue(inA.token, issueA.id, { status: 'resolved' })).status).toBe(429)
    const write = await api.patchIssue(inB.token, issueB.id, { status: 'resolved' })
    expect(write.status).toBe(200)
    expect(write.headers.get('x-ratelimit-remaining')).toBe('59')
  })
})
