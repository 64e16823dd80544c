import { asc } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { POST } from '@/app/api/mcp/route'
import { ISSUE_STATUSES, issues } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { useRateLimiter } from '@/lib/ratelimit'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  type Answer,
  allowAllRateLimiter,
  answerOf,
  assertPrototypesClean,
  deeplyNested,
  endlessBody,
  forbidErrorLogs,
  fuzzRuns,
  headerValue,
  hostileBytes,
  hostileJson,
  hostileKey,
  hostileString,
  jsonOf,
  ownEntries,
  pollutionPayload,
  rowCounts,
  spliceBytes,
  streamingInit,
  utf8Damage,
} from '../helpers/fuzz'
import { seedInsight, seedIssue, seedIssues, seedSignal } from '../helpers/seed'
import { linkIssue, seedSession, seedTrail, target } from '../helpers/sessions'

/**
 * Hostile input at POST /api/mcp through the real route handler: arbitrary arguments for every
 * tool, arbitrary JSON-RPC envelopes and batches, broken bodies and credentials. The answer
 * is always JSON-RPC (a result, a tool error the model can act on, or a protocol error),
 * never an internal error, a 500 or a hang; refused calls change nothing.
 */

const MCP_URL = 'http://localhost:3000/api/mcp'
const ACCEPT = 'application/json, text/event-stream'

let database: TestDatabase
let writeKey: string
let issueId: string
let foreignIssueId: string
let sessionId: string
let foreignSessionId: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const org = (await createOrganization(database.db, { name: 'Fuzz' })).id
  const other = (await createOrganization(database.db, { name: 'Other' })).id
  writeKey = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
  issueId = (await seedIssue(database.db, org)).id
  foreignIssueId = (await seedIssue(database.db, other)).id
  await seedIssues(database.db, org, 3)
  await seedSignal(database.db, org)
  await seedInsight(database.db, org)
  // A session with a stored trail and an issue in it, and one of another organization (issue 18).
  const at = Date.parse('2026-03-01T10:00:00Z')
  const session = await seedSession(database.db, org, { startedAt: new Date(at), trailTruncated: false })
  await seedTrail(database.db, session, [
    { kind: 'click', at, pageUrl: 'https://x.example/', target: target(), count: 1 },
    {
      kind: 'error',
      at: at + 5,
      pageUrl: 'https://x.example/',
      message: 'boom',
      stack: null,
      source: 'uncaught',
    },
  ])
  await linkIssue(database.db, session, issueId, new Date(at + 5))
  sessionId = session.id
  foreignSessionId = (await seedSession(database.db, other)).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
forbidErrorLogs()
beforeEach(() => {
  useRateLimiter(allowAllRateLimiter)
})
afterEach(() => {
  useRateLimiter(undefined)
  assertPrototypesClean()
})

function send(
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  token: string | null = writeKey,
): Promise<Answer> {
  const merged = new Headers({ 'content-type': 'application/json', accept: ACCEPT })
  if (token) merged.set('authorization', `Bearer ${token}`)
  for (const [name, value] of Object.entries(headers)) merged.set(name, value)
  return answerOf('POST /api/mcp', () =>
    POST(new Request(MCP_URL, { method: 'POST', headers: merged, body: new Uint8Array(Buffer.from(body)) })),
  )
}

interface RpcError {
  code: number
  message: string
}
interface RpcMessage {
  jsonrpc: string
  id: unknown
  result?: { content?: { type: string; text?: string }[]; isError?: boolean }
  error?: RpcError
}

/** JSON-RPC's own codes a client can cause; -32603 (internal error) is ours and never allowed. */
const CLIENT_ERROR_CODES = [-32700, -32600, -32601, -32602, -32000]

function expectRpcMessage(message: RpcMessage): void {
  expect(message.jsonrpc).toBe('2.0')
  if (message.error) {
    expect(CLIENT_ERROR_CODES, JSON.stringify(message.error)).toContain(message.error.code)
    expect(typeof message.error.message).toBe('string')
    return
  }
  const result = message.result
  expect(result, JSON.stringify(message).slice(0, 300)).toBeDefined()
  if (result?.isError) {
    const text = (result.content ?? []).map((c) => c.text ?? '').join('\n')
    expect(text, text).not.toMatch(/^Internal error/)
  }
}

/**
 * The HTTP answer to anything at all: 200 with JSON-RPC, 202 for notifications only, or a
 * 4xx with a JSON-RPC error; never a 5xx.
 */
function expectProtocolAnswer(answer: Answer): RpcMessage[] {
  expect([200, 202, 400, 406, 413, 415], answer.text.slice(0, 300)).toContain(answer.status)
  expect(answer.headers.get('access-control-allow-origin')).toBe('*')
  if (answer.status === 202) {
    expect(answer.text).toBe('')
    return []
  }
  const body = jsonOf(answer) as RpcMessage | RpcMessage[]
  const messages = Array.isArray(body) ? body : [body]
  for (const message of messages) expectRpcMessage(message)
  if (answer.status >= 400) {
    expect(messages).toHaveLength(1)
    expect(messages[0]!.id).toBeNull()
    expect(messages[0]!.error).toBeDefined()
  }
  return messages
}

async function issueState(): Promise<string> {
  const rows = await database.db
    .select({ id: issues.id, status: issues.status, updatedAt: issues.updatedAt })
    .from(issues)
    .orderBy(asc(issues.id))
  return JSON.stringify(rows)
}

const TOOL_FIELDS: Record<string, string[]> = {
  list_issues: ['limit', 'cursor', 'status'],
  get_issue: ['issueId'],
  update_issue: ['issueId', 'status', 'inRelease', 'inNextRelease'],
  list_signals: ['limit', 'cursor'],
  list_insights: ['limit', 'cursor'],
  list_saved_searches: ['limit', 'cursor'],
  add_issue_note: ['issueId', 'text'],
  link_issue_ticket: ['issueId', 'provider', 'url', 'identifier'],
  report_reproduction_result: ['issueId', 'status', 'baseUrl', 'release', 'summary', 'durationMs'],
}

/** The tables a successful call of a write tool may add rows to: its history and its event. */
const WRITES: Record<string, string[]> = {
  update_issue: ['issueActivities', 'outbox'],
  add_issue_note: ['issueActivities'],
  link_issue_ticket: ['issueActivities', 'outbox'],
  report_reproduction_result: ['issueVerifications', 'issueActivities', 'outbox'],
}

/**
 * The session tools and the reproduction (issue 18), read-only, fuzzed in a property of their
 * own so each stays within its time. The reproduction builds a test from the seeded trail.
 */
const SESSION_TOOL_FIELDS: Record<string, string[]> = {
  list_sessions: [
    'limit',
    'cursor',
    'userId',
    'userEmail',
    'url',
    'hasErrors',
    'issueId',
    'signalId',
    'from',
    'to',
    'automation',
    'q',
  ],
  get_session: ['sessionId', 'around', 'windowMs', 'limit', 'cursor', 'kinds'],
  get_issue_reproduction: ['issueId'],
}

/** Values for a tool's own fields: right and wrong types, edges, ids of ours and not. */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  fc.integer({ min: -3, max: 300 }),
  fc.constantFrom(0.5, 1e300, -0, 2 ** 53 + 2, '5', 'resolved', 'Resolved', ...ISSUE_STATUSES),
  fc.uuid(),
  fc.constant(null).map(() => issueId),
  fc.constant(null).map(() => issueId.toUpperCase()),
  fc.constant(null).map(() => foreignIssueId),
  fc.constant(null).map(() => `${issueId}\u0000`),
  fc.string({ unit: 'binary', minLength: 500, maxLength: 2000 }),
  // Sessions (issue 18): ids, times, kinds.
  fc.constant(null).map(() => sessionId),
  fc.constant(null).map(() => foreignSessionId),
  fc.constantFrom(true, false, '2026-03-01T10:00:00Z', '1740823200000', 'a\u0000b', '\ud800'),
  fc.constantFrom(['error', 'click'], ['bogus'], [], ['error', 'error'], 60_000, 600_001),
  // Search (issue 37): queries that parse, and ones that do not.
  fc.constantFrom(
    'click.text = Pay then error within 60s',
    'event[name = x and prop.a > 1] or not page.path = "/"',
    'user.id = 1 and (',
    'click[colour = red]',
  ),
  // Notes and tickets: values that pass, and the note limit's edge.
  fc.constantFrom('GitHub', 'https://github.com/acme/shop/issues/1', 'x'.repeat(5000), 'x'.repeat(5001)),
)

/** Tool arguments are an object by definition (MCP); any keys, any values. */
const anyObject = fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 4 }).map(ownEntries)

const toolArguments = (tool: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc
            .subarray(TOOL_FIELDS[tool] ?? SESSION_TOOL_FIELDS[tool]!)
            .chain((fields) =>
              fc.tuple(...fields.map((f) => fieldValue.map((v) => [f, v] as [string, unknown]))),
            ),
          fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 2 }),
        )
        .map(([own, extra]) => ownEntries([...own, ...extra])),
    },
    { weight: 1, arbitrary: anyObject },
    { weight: 1, arbitrary: pollutionPayload },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )

let nextId = 1

describe('tools/call with arbitrary arguments', () => {
  it('answers every call of every tool with a result or a tool/protocol error, never an internal one', async () => {
    const call = fc
      .constantFrom(...Object.keys(TOOL_FIELDS))
      .chain((tool) => fc.tuple(fc.constant(tool), toolArguments(tool)))
    await fc.assert(
      fc.asyncProperty(call, async ([tool, args]) => {
        const before = await issueState()
        const counts = await rowCounts(database.db)
        const id = nextId++
        const params = args === undefined ? { name: tool } : { name: tool, arguments: args }
        const answer = await send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }))
        expect(answer.status, answer.text.slice(0, 300)).toBe(200)
        const [message] = expectProtocolAnswer(answer)
        expect(message!.id).toBe(id)
        const succeeded = message!.result !== undefined && message!.result.isError !== true
        const changesIssues = tool === 'update_issue' || tool === 'link_issue_ticket'
        if (!(changesIssues && succeeded)) expect(await issueState()).toEqual(before)
        // A successful write adds its history and event; nothing else may create rows.
        const after = await rowCounts(database.db)
        const written = succeeded ? (WRITES[tool] ?? []) : []
        const without = (rows: Record<string, number>) =>
          Object.fromEntries(Object.entries(rows).filter(([table]) => !written.includes(table)))
        expect(without(after)).toEqual(without(counts))
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [['get_issue', { issueId: `${'a'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}\u0000` }]],
          [['list_issues', { cursor: '\u0000.\u0000' }]],
          [
            [
              'update_issue',
              ownEntries([
                ['__proto__', { status: 'resolved' }],
                ['issueId', 'x'],
              ]),
            ],
          ],
        ],
      },
    )
  })

  it('answers every call of the session and reproduction tools with a result or a tool/protocol error, and writes nothing', async () => {
    const call = fc
      .constantFrom(...Object.keys(SESSION_TOOL_FIELDS))
      .chain((tool) => fc.tuple(fc.constant(tool), toolArguments(tool)))
    await fc.assert(
      fc.asyncProperty(call, async ([tool, args]) => {
        const counts = await rowCounts(database.db)
        const id = nextId++
        const params = args === undefined ? { name: tool } : { name: tool, arguments: args }
        const answer = await send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }))
        expect(answer.status, answer.text.slice(0, 300)).toBe(200)
        const [message] = expectProtocolAnswer(answer)
        expect(message!.id).toBe(id)
        expect(await rowCounts(database.db)).toEqual(counts)
      }),
      {
        ...fuzzRuns(120),
        examples: [
          [['get_session', { sessionId, around: issueId, kinds: ['error'] }]],
          [['list_sessions', { userId: 'a\u0000b', url: '\ud800' }]],
          [['get_issue_reproduction', { issueId }]],
          [['get_issue_reproduction', { issueId: foreignIssueId }]],
        ],
      },
    )
  })

  it('calls an unknown tool or a prototype name as a tool and gets a clean error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileKey,
          hostileString,
          fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
        ),
        anyObject,
        async (name, args) => {
          const answer = await send(
            JSON.stringify({
              jsonrpc: '2.0',
              id: nextId++,
              method: 'tools/call',
              params: { name, arguments: args },
            }),
          )
          expectProtocolAnswer(answer)
        },
      ),
      fuzzRuns(80),
    )
  })
})

describe('tools/call with arguments that are not an object', () => {
  it('answers -32602 Invalid params (JSON-RPC 2.0 §5.1), not -32603 Internal error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(TOOL_FIELDS)),
        hostileJson.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
        async (tool, args) => {
          const id = nextId++
          const answer = await send(
            JSON.stringify({
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: tool, arguments: args },
            }),
          )
          expect(answer.status).toBe(200)
          const body = jsonOf(answer) as RpcMessage
          expect(body.id).toBe(id)
          expect(body.error?.code, JSON.stringify(body).slice(0, 300)).toBe(-32602)
        },
      ),
      fuzzRuns(30),
    )
  })
})

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'prompts/list',
  'logging/setLevel',
  'completion/complete',
  'notifications/initialized',
  'notifications/cancelled',
  '__proto__',
  'constructor',
  'rpc.discover',
]

/** A JSON-RPC-ish message: every member may be missing, of the wrong type or hostile. */
const envelope: fc.Arbitrary<unknown> = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), hostileJson),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), hostileJson),
      method: fc.oneof(fc.constantFrom(...METHODS), hostileString, hostileJson),
      params: fc.oneof(
        hostileJson,
        fc.record({
          name: fc.constantFrom(...Object.keys(TOOL_FIELDS)),
          arguments: hostileJson,
        }),
        fc.constant({
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'fuzz', version: '1' },
        }),
      ),
      extra: fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map(({ extra, ...fields }) => ownEntries([...Object.entries(fields), ...(extra ?? [])]))

describe('arbitrary JSON-RPC envelopes and batches', () => {
  it('answers any single message with JSON-RPC (or 202 for notifications), never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(envelope, hostileJson, pollutionPayload), async (message) => {
        const before = await issueState()
        expectProtocolAnswer(await send(JSON.stringify(message) ?? 'null'))
        // Only tools/call of a write tool with valid arguments could write; envelopes here may.
        const text = JSON.stringify(message ?? null)
        if (!['update_issue', 'link_issue_ticket'].some((tool) => text.includes(tool)))
          expect(await issueState()).toEqual(before)
      }),
      fuzzRuns(200),
    )
  })

  it('answers batches (empty, mixed, duplicate ids, over the batch limit) without a 5xx or a hang', async () => {
    const batch = fc.oneof(
      fc.array(envelope, { maxLength: 5 }),
      fc.array(fc.constant({ jsonrpc: '2.0', id: 7, method: 'ping' }), { minLength: 2, maxLength: 4 }),
      fc
        .integer({ min: 99, max: 130 })
        .map((n) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))),
      fc.array(fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
        minLength: 1,
        maxLength: 3,
      }),
    )
    await fc.assert(
      fc.asyncProperty(batch, async (messages) => {
        expectProtocolAnswer(await send(JSON.stringify(messages)))
      }),
      fuzzRuns(60),
    )
  })

  it('answers bodies that are not JSON-RPC at all (bytes, invalid UTF-8, 10,000 levels) with a JSON-RPC error', async () => {
    const valid = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_issues' },
    })
    const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
      hostileBytes,
      utf8Damage.map((damage) => spliceBytes(valid, damage)),
      fc.constantFrom(
        '',
        deeplyNested(10_000),
        deeplyNested(10_000, 'object'),
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_issues","arguments":${deeplyNested(10_000, 'object')}}}`,
        `{"jsonrpc":"2.0","id":${deeplyNested(10_000)},"method":"ping"}`,
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        expectProtocolAnswer(await send(raw))
      }),
      fuzzRuns(80),
    )
  })

  it('answers wrong Accept and Content-Type headers with a JSON-RPC error, not a 5xx', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await fc.assert(
      fc.asyncProperty(
        fc.option(headerValue, { nil: undefined }),
        fc.option(headerValue, { nil: undefined }),
        async (accept, contentType) => {
          const headers: Record<string, string> = {}
          if (accept !== undefined) headers.accept = accept
          if (contentType !== undefined) headers['content-type'] = contentType
          expectProtocolAnswer(await send(ping, headers))
        },
      ),
      fuzzRuns(60),
    )
  })

  it('stops reading a body that never ends and answers 413', async () => {
    const endless = endlessBody()
    const headers = new Headers({
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${writeKey}`,
    })
    const answer = await answerOf('endless POST /api/mcp', () =>
      POST(new Request(MCP_URL, streamingInit({ method: 'POST', headers, body: endless.stream }))),
    )
    expect(answer.status).toBe(413)
    expectProtocolAnswer(answer)
    // Bounded memory: the SDK's 4 MiB cap plus the chunks in flight.
    expect(endless.pulled()).toBeLessThanOrEqual(4 * 1024 * 1024 + 4 * 64 * 1024)
  })
})

describe('arbitrary credentials', () => {
  it('answers 401 invalid_token with the discovery challenge for any header that is not a credential', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue,
          fc.constant(null).map(() => `Bearer ${writeKey}\u0001`),
          fc.constant(null).map(() => `Basic ${writeKey}`),
        ),
        async (authorization) => {
          const answer = await send(
            JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
            { authorization },
            null,
          )
          expect(answer.status).toBe(401)
          const body = jsonOf(answer) as { error: string; error_description: string }
          expect(body).toEqual({
            error: 'invalid_token',
            error_description: 'Missing or invalid bearer token',
          })
          expect(answer.headers.get('www-authenticate')).toMatch(
            /^Bearer (error="invalid_token", )?scope="read:service write:issues", resource_metadata="http:\/\/localhost:3000\/\.well-known\/oauth-protected-resource\/api\/mcp"$/,
          )
        },
      ),
      fuzzRuns(80),
    )
  })
})
