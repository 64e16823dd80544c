/**
 * Search over a corpus of real sessions (tests/fixtures/search-corpus, recorded in Chromium on
 * a demo shop by `npm run fixtures:search-corpus`): each query of the table answers exactly the
 * expected sessions, with the expected moments, through GET /api/v1/sessions?q=, MCP
 * list_sessions and the reader of the dashboard's sessions page alike (docs/search.md). The
 * sessions go through the real ingest route and the real processing; a copy of one in another
 * organization is never found.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import type { TrailKind } from '@/lib/analysis/trail'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { parseQuery } from '@/lib/search/parse'
import { searchSessions } from '@/lib/sessions/search-sessions'
import type { CorpusRecording } from '@/tests/fixtures/record/search-corpus'
import { recorderBatches } from '../helpers/batches'
import { waitForProcessed } from '../helpers/dashboard-session'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'

const DIR = path.resolve(import.meta.dirname, '../fixtures/search-corpus')
const corpus = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as CorpusRecording)
const recording = (scenario: string) => corpus.find((r) => r.scenario === scenario)!

/** A moment as expected: its trail kind, and the scenario step (a mark) it happened in. */
type Moment = [kind: TrailKind, mark: string]

interface Row {
  q: string
  sessions: string[]
  /** The moments of every session found (an array), or per session; unset: not checked. */
  moments?: Moment[] | Record<string, Moment[]>
}

const PAY: Moment[] = [['click', 'pay']]
const CRASH: Moment[] = [
  ['click', 'pay'],
  ['error', 'pay'],
]

/**
 * The corpus (see each file's `description`): browse-only, buy-card and paypal-declined (both
 * Ada, u-101), buy-big ($320), pay-crash and unlucky (Pay throws), cart-500, rage-size-guide,
 * dead-size-guide, newsletter, coupon-buy ($319.50 with a coupon) and quick-bounce.
 */
const TABLE: Row[] = [
  // Moments of every kind, one condition.
  {
    q: 'click.text = Pay',
    sessions: ['buy-card', 'buy-big', 'pay-crash', 'paypal-declined', 'coupon-buy', 'unlucky'],
    moments: PAY,
  },
  {
    q: 'click[text ~ pay]',
    sessions: ['buy-card', 'buy-big', 'pay-crash', 'paypal-declined', 'coupon-buy', 'unlucky'],
    moments: {
      'buy-card': PAY,
      'buy-big': PAY,
      'pay-crash': PAY,
      'paypal-declined': [
        ['click', 'paypal'],
        ['click', 'pay'],
      ],
      'coupon-buy': PAY,
      unlucky: PAY,
    },
  },
  { q: 'click.testid = pay-paypal', sessions: ['paypal-declined'], moments: [['click', 'paypal']] },
  {
    q: 'click[role = button and testid = apply-coupon]',
    sessions: ['coupon-buy'],
    moments: [['click', 'coupon']],
  },
  {
    q: 'click[testid = size-guide and count >= 5]',
    sessions: ['rage-size-guide'],
    moments: [['click', 'rage']],
  },
  { q: 'input[name = "Coupon code"]', sessions: ['coupon-buy'], moments: [['input', 'coupon']] },
  { q: 'input', sessions: ['browse-only', 'newsletter', 'coupon-buy'] },
  {
    q: 'page.path = /checkout',
    sessions: ['buy-card', 'buy-big', 'pay-crash', 'paypal-declined', 'coupon-buy', 'unlucky'],
    moments: [['navigation', 'checkout']],
  },
  {
    q: 'page.url ~ /products/12',
    sessions: ['browse-only', 'buy-big', 'rage-size-guide', 'coupon-buy'],
    moments: {
      'browse-only': [['navigation', 'tent']],
      'buy-big': [['navigation', 'product']],
      'rage-size-guide': [['navigation', 'product']],
      'coupon-buy': [['navigation', 'tent']],
    },
  },
  {
    q: 'console.level = warn',
    sessions: ['browse-only', 'buy-big', 'rage-size-guide', 'coupon-buy'],
    moments: {
      'browse-only': [['console', 'tent']],
      'buy-big': [['console', 'product']],
      'rage-size-guide': [['console', 'product']],
      'coupon-buy': [['console', 'tent']],
    },
  },
  {
    q: 'console[level = error and message ~ "PAYMENT DECLINED"]',
    sessions: ['paypal-declined'],
    moments: [['console', 'paypal']],
  },
  { q: 'error', sessions: ['pay-crash', 'unlucky'], moments: [['error', 'pay']] },
  {
    q: `error[message ~ "reading 'days'" and source = uncaught]`,
    sessions: ['pay-crash', 'unlucky'],
    moments: [['error', 'pay']],
  },
  {
    q: 'request[url ~ /api/cart and status = 500]',
    sessions: ['cart-500', 'unlucky'],
    moments: [['request', 'add-chair']],
  },
  { q: 'request.status >= 500', sessions: ['cart-500', 'unlucky'], moments: [['request', 'add-chair']] },
  {
    q: 'request[method = post and failed = true]',
    sessions: ['cart-500', 'paypal-declined', 'unlucky'],
    moments: {
      'cart-500': [['request', 'add-chair']],
      'paypal-declined': [['request', 'paypal']],
      unlucky: [['request', 'add-chair']],
    },
  },
  {
    q: 'request[url ~ /api/pay and duration < 1m]',
    sessions: ['buy-card', 'buy-big', 'paypal-declined', 'coupon-buy'],
  },
  { q: 'rage_click', sessions: ['rage-size-guide'], moments: [['rage_click', 'rage']] },
  { q: 'dead_click[testid = size-guide]', sessions: ['dead-size-guide'], moments: [['dead_click', 'dead']] },
  // Custom events and their properties.
  { q: 'event.name = purchase', sessions: ['buy-card', 'buy-big', 'paypal-declined', 'coupon-buy'] },
  {
    q: 'event[name = purchase and prop.amount > 100]',
    sessions: ['buy-big', 'coupon-buy'],
    moments: [['custom', 'pay']],
  },
  {
    q: 'event[name = purchase and prop.coupon = true]',
    sessions: ['coupon-buy'],
    moments: [['custom', 'pay']],
  },
  {
    q: 'event[name = search and prop.query = tent]',
    sessions: ['browse-only'],
    moments: [['custom', 'search']],
  },
  { q: 'event.prop.source = home', sessions: ['newsletter'], moments: [['custom', 'subscribe']] },
  // Session fields: no moments.
  { q: 'user.id = u-101', sessions: ['buy-card', 'paypal-declined'], moments: [] },
  { q: 'user.email = ADA@EXAMPLE.COM', sessions: ['buy-card', 'paypal-declined'], moments: [] },
  { q: 'user.plan = team', sessions: ['buy-big', 'dead-size-guide'], moments: [] },
  {
    q: 'release = 2.4.0',
    sessions: ['buy-big', 'pay-crash', 'rage-size-guide', 'dead-size-guide', 'paypal-declined'],
    moments: [],
  },
  {
    q: 'release ~ beta or release = 2.3.0',
    sessions: ['browse-only', 'buy-card', 'cart-500', 'coupon-buy', 'unlucky', 'quick-bounce'],
    moments: [],
  },
  { q: 'browser = firefox', sessions: ['pay-crash', 'coupon-buy'], moments: [] },
  { q: 'os ~ windows and browser ~ edge', sessions: ['paypal-declined'], moments: [] },
  { q: 'device = mobile', sessions: ['cart-500', 'rage-size-guide', 'quick-bounce'], moments: [] },
  { q: 'device = tablet', sessions: ['dead-size-guide'], moments: [] },
  { q: 'device = desktop and os ~ mac', sessions: ['buy-big'], moments: [] },
  { q: 'duration > 20s', sessions: ['dead-size-guide'], moments: [] },
  { q: 'duration < 1s', sessions: ['quick-bounce'], moments: [] },
  {
    q: 'pages >= 3',
    sessions: ['browse-only', 'buy-card', 'pay-crash', 'cart-500', 'coupon-buy', 'unlucky'],
    moments: [],
  },
  { q: 'rage_clicks >= 1', sessions: ['rage-size-guide'], moments: [] },
  // Combinations and negation.
  {
    q: 'not error and pages >= 3',
    sessions: ['browse-only', 'buy-card', 'cart-500', 'coupon-buy'],
    moments: [],
  },
  { q: 'not click', sessions: ['quick-bounce'], moments: [] },
  {
    q: 'user.email ~ example.com and not user.plan = free',
    sessions: ['buy-card', 'buy-big', 'cart-500', 'dead-size-guide', 'paypal-declined', 'coupon-buy'],
    moments: [],
  },
  {
    q: '(click.text = Pay or rage_click) and not event.name = purchase',
    sessions: ['pay-crash', 'rage-size-guide', 'unlucky'],
    moments: { 'pay-crash': PAY, 'rage-size-guide': [['rage_click', 'rage']], unlucky: PAY },
  },
  {
    q: 'not (user.id = u-101 or user.id = u-102) and event.name = purchase',
    sessions: ['coupon-buy'],
    moments: [['custom', 'pay']],
  },
  {
    q: 'click.text = PAY AND NOT error',
    sessions: ['buy-card', 'buy-big', 'paypal-declined', 'coupon-buy'],
    moments: PAY,
  },
  {
    q: 'page.path = /checkout click.testid = apply-coupon',
    sessions: ['coupon-buy'],
    moments: [
      ['navigation', 'checkout'],
      ['click', 'coupon'],
    ],
  },
  // A bracket is one moment; separate conditions may be met by different moments.
  { q: 'request[url ~ /api/cart and status = 402]', sessions: [] },
  {
    q: 'request.url ~ /api/cart and request.status = 402',
    sessions: ['paypal-declined'],
    moments: [
      ['request', 'add'],
      ['request', 'paypal'],
    ],
  },
  // Sequences.
  { q: 'click.text = Pay then error within 5s', sessions: ['pay-crash', 'unlucky'], moments: CRASH },
  {
    q: 'request[status = 500] then error',
    sessions: ['unlucky'],
    moments: [
      ['request', 'add-chair'],
      ['error', 'pay'],
    ],
  },
  { q: 'request[status = 500] then error within 2s', sessions: [] },
  { q: 'error then request[status = 500]', sessions: [] },
  {
    q: 'click.testid = add-to-cart then click.testid = add-to-cart',
    sessions: ['cart-500', 'coupon-buy', 'unlucky'],
    moments: {
      'cart-500': [
        ['click', 'add-chair'],
        ['click', 'add-lantern'],
      ],
      'coupon-buy': [
        ['click', 'add-tent'],
        ['click', 'add-lantern'],
      ],
      unlucky: [
        ['click', 'add-chair'],
        ['click', 'add-gift'],
      ],
    },
  },
  {
    q: 'page.path = /checkout then click.text = "Pay with PayPal" then event.name = purchase within 30s',
    sessions: ['paypal-declined'],
    moments: [
      ['navigation', 'checkout'],
      ['click', 'paypal'],
      ['custom', 'pay'],
    ],
  },
]

/** Malformed queries: 400 with the 0-based offset of the error. */
const MALFORMED: [q: string, position: number][] = [
  ['clik.text = Pay', 0],
  ['click.colour = red', 6],
  ['click[text = Pay', 16],
  ['request.status ~ 50', 15],
  ['click then error within soon', 24],
  ['error then error then error then error then error then error', 55],
  ['user.id = "u-101', 10],
  ['pages >= many', 9],
  ['device = phone', 9],
  ['error then then click', 11],
  ['click.text = Pay )', 17],
  ['(click.text = Pay or error', 26],
]

type Json = Record<string, unknown>
interface SearchMoment {
  at: number
  offsetMs: number
  kind: TrailKind
  position: number
  label: string
}
interface ListBody {
  sessions: { id: string; moments?: SearchMoment[] }[]
  nextCursor: string | null
}

let database: TestDatabase
let jobs: JobsEngine
let mcp: McpTestServer
let client: Client
let apiKey: string
let organizationId: string
/** Session id → scenario. */
const scenarioOf = new Map<string, string>()

async function ingest(key: string, externalId: string, rec: CorpusRecording, endsAgoMs: number) {
  // Moved in time as a whole so the corpus ends in the recent past, newest last.
  const shift = Date.now() - endsAgoMs - rec.events.at(-1)!.timestamp
  const events = rec.events.map((event) => ({ ...event, timestamp: event.timestamp + shift }))
  const batches = recorderBatches({
    sessionId: externalId,
    events,
    perBatch: 40,
    user: {
      anonymousId: `anon-${externalId}`,
      id: rec.identity.userId,
      properties: rec.identity.properties,
    },
    userAgent: rec.identity.userAgent,
    language: rec.identity.language,
    release: rec.identity.release ?? undefined,
  })
  for (const batch of batches) {
    const response = await sendBatch(batch, { key })
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
  }
}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  jobs = getJobsEngine()
  await jobs.start()
  const db = database.db
  const org = (await createOrganization(db, { name: 'Pinecone' })).id
  organizationId = org
  const other = (await createOrganization(db, { name: 'Other' })).id
  const ingestKey = (await createKey(db, { organizationId: org, type: 'ingest' })).key
  const otherKey = (await createKey(db, { organizationId: other, type: 'ingest' })).key
  apiKey = (await createKey(db, { organizationId: org, type: 'api' })).key
  const mcpKey = (await createKey(db, { organizationId: org, type: 'mcp' })).key
  for (const [i, rec] of corpus.entries())
    await ingest(ingestKey, rec.scenario, rec, (corpus.length - i) * 60_000)
  // The same session in another organization: no query of this one may find it.
  await ingest(otherKey, 'pay-crash', recording('pay-crash'), 30_000)
  const rows = await db
    .select({
      id: replaySessions.id,
      externalId: replaySessions.externalId,
      org: replaySessions.organizationId,
    })
    .from(replaySessions)
    .where(inArray(replaySessions.organizationId, [org, other]))
  for (const row of rows) {
    await waitForProcessed(db, row.id, 60_000)
    scenarioOf.set(row.id, row.org === org ? row.externalId : `other:${row.externalId}`)
  }
  mcp = await startMcpServer()
  client = await connectClient(mcp.url, mcpKey)
}, 180_000)

afterAll(async () => {
  await client?.close()
  await mcp?.close()
  await jobs?.stop()
  useDatabase(undefined)
  await database?.close()
})

async function search(q: string): Promise<ListBody> {
  const response = await api.listSessions(apiKey, { q, limit: 100 })
  const body = (await response.json()) as ListBody
  expect(response.status, `${q}: ${JSON.stringify(body)}`).toBe(200)
  const result = (await client.callTool({
    name: 'list_sessions',
    arguments: { q, limit: 100 },
  })) as CallToolResult
  expect(result.isError, `${q}: ${textOf(result)}`).toBeFalsy()
  // Both surfaces answer the same body.
  expect(result.structuredContent, q).toEqual(body)
  // The dashboard's sessions page lists what its own reader answers: the same sessions and moments.
  const parsed = parseQuery(q)
  if (!parsed.ok) throw new Error(`${q}: ${parsed.error}`)
  const dashboard = await searchSessions(database.db, organizationId, { limit: 100 }, parsed.query)
  expect(
    dashboard.page.items.map((item) => ({ id: item.id, moments: dashboard.moments.get(item.id) ?? [] })),
    q,
  ).toEqual(body.sessions.map((session) => ({ id: session.id, moments: session.moments ?? [] })))
  return body
}

/** The moments a row expects of one session it finds; each must lie in its mark's time span. */
function expectedMoments(row: Row, scenario: string): Moment[] | undefined {
  if (row.moments === undefined) return undefined
  return Array.isArray(row.moments) ? row.moments : row.moments[scenario]
}

describe('search over the recorded corpus', () => {
  it('has the corpus', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(10)
    expect(TABLE.length).toBeGreaterThanOrEqual(25)
    expect(scenarioOf.size).toBe(corpus.length + 1)
  })

  it.each(TABLE)('$q', async (row) => {
    const body = await search(row.q)
    const found = body.sessions.map((s) => scenarioOf.get(s.id) ?? s.id)
    expect([...found].sort(), row.q).toEqual([...row.sessions].sort())
    for (const session of body.sessions) {
      const scenario = scenarioOf.get(session.id)!
      const wanted = expectedMoments(row, scenario)
      if (!wanted) continue
      const moments = session.moments ?? []
      const marks = recording(scenario).marks
      expect(
        moments.map((m) => m.kind),
        `${row.q} / ${scenario}: ${JSON.stringify(moments)}`,
      ).toEqual(wanted.map(([kind]) => kind))
      for (const [i, [, mark]] of wanted.entries()) {
        const [from, to] = marks[mark]!
        const { offsetMs } = moments[i]!
        expect(
          offsetMs >= from && offsetMs <= to,
          `${row.q} / ${scenario}: ${offsetMs} in ${mark} [${from}, ${to}]`,
        ).toBe(true)
      }
      for (let i = 1; i < moments.length; i++)
        expect(moments[i]!.offsetMs).toBeGreaterThanOrEqual(moments[i - 1]!.offsetMs)
    }
  })

  it.each(MALFORMED)('refuses %j at %i, on both surfaces', async (q, position) => {
    const response = await api.listSessions(apiKey, { q })
    const body = (await response.json()) as Json
    expect(response.status, JSON.stringify(body)).toBe(400)
    expect(body, q).toMatchObject({ error: expect.any(String), position })
    const result = (await client.callTool({ name: 'list_sessions', arguments: { q } })) as CallToolResult
    expect(result.isError, q).toBe(true)
    expect(textOf(result)).toContain(body.error as string)
  })
})
