import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TrailEntry } from '@/lib/analysis/trail'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import {
  matchingSessionIds,
  parseQuery,
  type QueryNode,
  sessionMoments,
  setSearchTimeoutForTests,
} from '@/lib/search'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, type McpTestServer, startMcpServer, textOf } from '../helpers/mcp'
import { seedOAuthToken } from '../helpers/seed'
import { seedSession, seedTrail, target } from '../helpers/sessions'

type Json = Record<string, unknown>
type Moment = { at: number; offsetMs: number; kind: string; position: number; label: string }
type Item = { id: string; moments?: Moment[] }

let database: TestDatabase
let server: McpTestServer
let client: Client
let orgA: string
let orgB: string
let key: string
const T0 = Date.parse('2026-03-01T10:00:00.000Z')
const page = 'https://shop.example/checkout'
const s: Record<string, string> = {}

const nav = (at: number, url: string): TrailEntry => ({
  kind: 'navigation',
  at,
  pageUrl: url,
  url,
  change: 'load',
})
const click = (at: number, text = 'Pay now'): TrailEntry => ({
  kind: 'click',
  at,
  pageUrl: page,
  target: target({ text, name: text }),
  count: 1,
})
const error = (at: number, message = 'TypeError: boom'): TrailEntry => ({
  kind: 'error',
  at,
  pageUrl: page,
  message,
  stack: null,
  source: 'uncaught',
})
const request = (at: number, method: string, status: number): TrailEntry => ({
  kind: 'request',
  at,
  pageUrl: page,
  method,
  url: 'https://shop.example/api/cart?x=1',
  status,
  durationMs: 1200,
  failed: status >= 500,
})

/** The checkout that failed: its trail and the session's fields most queries look at. */
const CHECKOUT: TrailEntry[] = [
  nav(T0 + 1000, 'https://shop.example/checkout?step=2#pay'),
  click(T0 + 5000),
  request(T0 + 6000, 'POST', 500),
  request(T0 + 6500, 'GET', 200),
  error(T0 + 7000),
  { kind: 'custom', at: T0 + 8000, pageUrl: page, tag: 'purchase', payload: '{"amount":150,"plan":"Pro"}' },
  { kind: 'console', at: T0 + 9000, pageUrl: page, level: 'warn', message: 'Slow cart' },
]

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  server = await startMcpServer()
  const db = database.db
  orgA = (await createOrganization(db, { name: 'Shop' })).id
  orgB = (await createOrganization(db, { name: 'Other' })).id
  key = (await createKey(db, { organizationId: orgA, type: 'api' })).key
  client = await connectClient(server.url, (await seedOAuthToken(db, orgA)).token)
  let n = 0
  const session = async (organizationId: string, name: string, fields: Json, trail: TrailEntry[]) => {
    const row = await seedSession(db, organizationId, {
      createdAt: new Date(T0 + ++n * 1000),
      startedAt: new Date(T0),
      trailTruncated: false,
      ...fields,
    })
    await seedTrail(db, row, trail)
    s[name] = row.id
  }
  const checkout = {
    userId: 'u-1',
    userEmail: 'buyer@shop.example',
    userProperties: { plan: 'pro', seats: 12 },
    release: '2.0.0',
    browser: 'Chrome',
    os: 'macOS',
    device: 'desktop',
    pageCount: 3,
    errorCount: 1,
  }
  await session(orgA, 'checkout', checkout, CHECKOUT)
  await session(
    orgA,
    'reversed',
    { userId: 'u-2', browser: 'Firefox', os: 'Windows', device: 'mobile', pageCount: 1, errorCount: 1 },
    [error(T0 + 1000), click(T0 + 5000)],
  )
  await session(orgA, 'browsing', { userId: 'U-3', pageCount: 5, errorCount: 0 }, [
    nav(T0 + 1000, 'https://shop.example/'),
    click(T0 + 2000, 'Learn more'),
    {
      kind: 'input',
      at: T0 + 3000,
      pageUrl: page,
      target: target({ tag: 'input', role: 'textbox', name: 'E-mail', text: '' }),
      control: 'text',
      value: 'hunter2-typed',
      masked: false,
      length: 13,
      checked: null,
    },
    { kind: 'rage_click', at: T0 + 4000, pageUrl: page, target: target({ text: 'Next' }), count: 4 },
    { kind: 'dead_click', at: T0 + 5000, pageUrl: page, target: target({ text: 'Logo', role: 'img' }) },
    // A payload cut at its limit is not JSON: it has no properties, and fails no query.
    {
      kind: 'custom',
      at: T0 + 6000,
      pageUrl: page,
      tag: 'cut',
      payload: '{"amount":999,"note":"x …[truncated]',
    },
  ])
  await session(orgA, 'slow', { errorCount: 1 }, [click(T0 + 1000), error(T0 + 120_000)])
  await session(
    orgA,
    'many',
    { errorCount: 7 },
    Array.from({ length: 7 }, (_, i) => error(T0 + (7 - i) * 100, `boom ${i}`)),
  )
  await session(orgA, 'bot', { automation: 'bot', errorCount: 1 }, [click(T0 + 1000), error(T0 + 2000)])
  await session(orgB, 'foreign', checkout, CHECKOUT)
})

afterAll(async () => {
  await client?.close()
  await server?.close()
  useDatabase(undefined)
  await database.close()
})

async function search(q: string, extra: Json = {}): Promise<{ status: number; body: Json; items: Item[] }> {
  const response = await api.listSessions(key, { q, limit: 50, ...(extra as Record<string, string>) })
  const body = (await response.json()) as Json
  return { status: response.status, body, items: (body.sessions as Item[] | undefined) ?? [] }
}
const names = (items: Item[]) =>
  items.map((item) => Object.entries(s).find(([, id]) => id === item.id)?.[0] ?? item.id).sort()

describe('GET /api/v1/sessions?q=', () => {
  it.each([
    // Sequences: order by time, `within` from first to last.
    ['click.text = "Pay now" then error within 60s', ['checkout']],
    ['click.text ~ pay then error', ['checkout', 'slow']],
    ['error then click.text = "pay now"', ['reversed']],
    // A bracket is one moment; `and` between moments is the session.
    ['page.path = /checkout and request[url ~ /api/cart and status = 500]', ['checkout']],
    ['request[method = GET and status = 500]', []],
    ['request.method = GET and request.status >= 500 and request.duration > 1s', ['checkout']],
    ['request[failed = true and duration <= 1200]', ['checkout']],
    ['event[name = purchase and prop.amount > 100] and event.prop.plan = pro', ['checkout']],
    ['event.prop.amount > 200', []],
    ['event[name = cut] and not event.prop.amount != 5', []],
    // Session fields, case-insensitive text, traits, not/or.
    ['user.id = u-3 or user.email = BUYER@shop.example', ['browsing', 'checkout']],
    ['user.plan = PRO and user.seats > 10 and release = 2.0.0', ['checkout']],
    ['browser = firefox or (device = desktop and os ~ mac)', ['checkout', 'reversed']],
    ['not error and pages >= 3', ['browsing']],
    ['rage_click.count >= 3 and dead_click[role = img] and input.name = E-mail', ['browsing']],
    ['console[level = warn and message ~ "slow"] error.source = uncaught', ['checkout']],
    ['country = NL', []],
    ['errors > 5 or release != 2.0.0 and duration >= 2m', ['browsing', 'many', 'reversed', 'slow']],
    // Under `not`, a session without the field is one the condition does not match.
    ['not user.id = u-1', ['browsing', 'many', 'reversed', 'slow']],
    ['not (release = 2.0.0 or user.id = U-2)', ['browsing', 'many', 'slow']],
    ['not not release = 2.0.0', ['checkout']],
  ])('%s', async (q, expected) => {
    const { status, items } = await search(q)
    expect(status).toBe(200)
    expect(names(items)).toEqual(expected)
  })

  it('gives each item the first 5 moments that matched, with offsets into the replay', async () => {
    const { items } = await search('click.text = "Pay now" then error within 60s')
    expect(items[0]!.moments).toEqual([
      { at: T0 + 5000, offsetMs: 5000, kind: 'click', position: 1, label: 'button "Pay now"' },
      { at: T0 + 7000, offsetMs: 7000, kind: 'error', position: 4, label: 'TypeError: boom' },
    ])
    const many = (await search('error.message ~ boom')).items.find((item) => item.id === s.many)!
    expect(many.moments!.map((m) => m.offsetMs)).toEqual([100, 200, 300, 400, 500])
    const input = (await search('input')).items[0]!
    expect(JSON.stringify(input.moments)).not.toContain('hunter2')
    // Session conditions alone have no moments; without q, items have no `moments` at all.
    expect((await search('pages >= 5')).items[0]!.moments).toEqual([])
    const plain = (await (await api.listSessions(key, { limit: 5 })).json()) as { sessions: Item[] }
    expect(plain.sessions.every((item) => !('moments' in item))).toBe(true)
  })

  it('adds to the other filters, leaves automation out unless asked, and pages with the same cursor', async () => {
    expect(names((await search('error', { userId: 'u-2' })).items)).toEqual(['reversed'])
    expect(names((await search('click then error')).items)).not.toContain('bot')
    expect(names((await search('click then error', { automation: 'include' })).items)).toContain('bot')
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const response = await api.listSessions(key, { q: 'errors >= 0', limit: 2, cursor })
      const body = (await response.json()) as { sessions: Item[]; nextCursor: string | null }
      seen.push(...body.sessions.map((item) => item.id))
      cursor = body.nextCursor ?? undefined
    } while (cursor)
    expect(seen).toEqual([s.many, s.slow, s.browsing, s.reversed, s.checkout])
    // A cursor belongs to its query.
    const first = (await (await api.listSessions(key, { q: 'errors >= 0', limit: 1 })).json()) as Json
    const other = await api.listSessions(key, {
      q: 'errors >= 1',
      limit: 1,
      cursor: first.nextCursor as string,
    })
    expect(other.status).toBe(400)
  })

  it('answers 400 with the position of what does not parse', async () => {
    expect(await search('click.colour = red')).toMatchObject({
      status: 400,
      body: { error: 'Unknown field "colour" for click', position: 6 },
    })
    expect((await search('(error')).body).toEqual({
      error: 'Expected ")" but found the end of the query',
      position: 6,
    })
    expect((await search('x'.repeat(1001))).body).toMatchObject({ position: 1000 })
    // A blank q is no query.
    expect((await search('  ')).items).toHaveLength(5)
  })
})

describe('the library', () => {
  const query = (text: string): QueryNode => {
    const parsed = parseQuery(text)
    if (!parsed.ok) throw new Error(parsed.error)
    return parsed.query
  }
  it('matchingSessionIds and sessionMoments never cross the organization', async () => {
    const db = database.db
    const ids = await matchingSessionIds(db, { organizationId: orgA, query: query('click then error') })
    expect(ids).toEqual([s.slow, s.checkout])
    expect(
      await matchingSessionIds(db, { organizationId: orgA, query: query('error'), sessionIds: [s.foreign!] }),
    ).toEqual([])
    const moments = await sessionMoments(db, {
      organizationId: orgA,
      query: query('error'),
      sessionIds: [s.checkout!, s.foreign!],
    })
    expect([...moments.keys()]).toEqual([s.checkout])
  })
})

// Postgres only: PGlite cannot interrupt a statement (docs/search.md#limits). Another
// transaction holds the sessions table, so the search waits on its lock until the timeout.
describe.skipIf(!process.env.DATABASE_URL?.trim())('a search past its statement timeout', () => {
  it('answers 422 on the Data API and a tool error on MCP', async () => {
    setSearchTimeoutForTests(50)
    try {
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`lock table replay_sessions in access exclusive mode`)
        const message = 'The search took too long; add a time range or a narrower condition'
        expect(await search('error')).toMatchObject({ status: 422, body: { error: message } })
        const result = (await client.callTool({
          name: 'list_sessions',
          arguments: { q: 'error' },
        })) as CallToolResult
        expect(result.isError).toBe(true)
        expect(textOf(result)).toBe(message)
      })
    } finally {
      setSearchTimeoutForTests(undefined)
    }
  })
})

describe('MCP list_sessions q', () => {
  const call = async (args: Json) =>
    (await client.callTool({ name: 'list_sessions', arguments: args })) as CallToolResult

  it('lists the matching sessions with their moments, and answers a bad query as a tool error', async () => {
    const result = await call({ q: 'click.text = "Pay now" then error within 60s' })
    expect(result.isError).toBeFalsy()
    const structured = result.structuredContent as { sessions: Item[] }
    expect(structured.sessions.map((item) => item.id)).toEqual([s.checkout])
    const text = textOf(result)
    expect(text).toContain('matched +5.0s #1 click')
    expect(text).toContain(`/sessions/${s.checkout}?t=7000`)
    const bad = await call({ q: 'click.colour = red' })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toBe('Unknown field "colour" for click')
  })
})
