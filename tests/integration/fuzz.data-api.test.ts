import { asc, count, eq } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { GET as getAuditEvents } from '@/app/api/v1/audit-events/route'
import { GET as getErasureRoute } from '@/app/api/v1/erasures/[erasureId]/route'
import { POST as postErasureRoute } from '@/app/api/v1/erasures/route'
import { GET as getExportRoute } from '@/app/api/v1/exports/[exportId]/route'
import { POST as postExportRoute } from '@/app/api/v1/exports/route'
import { GET as getInsights } from '@/app/api/v1/insights/route'
import { GET as getNotes, POST as postNote } from '@/app/api/v1/issues/[issueId]/notes/route'
import { GET as getReproduction } from '@/app/api/v1/issues/[issueId]/reproduction/route'
import { GET as getIssue, PATCH as patchIssue } from '@/app/api/v1/issues/[issueId]/route'
import { PUT as putTicket } from '@/app/api/v1/issues/[issueId]/ticket/route'
import { POST as postVerificationRoute } from '@/app/api/v1/issues/[issueId]/verifications/route'
import { GET as getIssues } from '@/app/api/v1/issues/route'
import { GET as getReleaseRoute } from '@/app/api/v1/releases/[version]/route'
import { GET as getReleasesRoute, POST as postReleaseRoute } from '@/app/api/v1/releases/route'
import { GET as getRemaskingRoute } from '@/app/api/v1/remaskings/[remaskingId]/route'
import { POST as postRemaskingRoute } from '@/app/api/v1/remaskings/route'
import { GET as getReproductionsRoute } from '@/app/api/v1/reproductions/route'
import { GET as getRetention, PATCH as patchRetention } from '@/app/api/v1/retention/route'
import { DELETE as deletePin, PUT as putPin } from '@/app/api/v1/sessions/[sessionId]/pin/route'
import { GET as getSession } from '@/app/api/v1/sessions/[sessionId]/route'
import { GET as getSessionTimeline } from '@/app/api/v1/sessions/[sessionId]/timeline/route'
import { GET as getSessions } from '@/app/api/v1/sessions/route'
import { GET as getSignals } from '@/app/api/v1/signals/route'
import {
  dataExports,
  erasures,
  ISSUE_STATUSES,
  issueActivities,
  issues,
  issueVerifications,
  outbox,
  releases,
  remaskings,
} from '@/db/schema'
import { INVALID_STATUS } from '@/lib/api/params'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import {
  INVALID_IN_NEXT_RELEASE,
  INVALID_IN_RELEASE,
  ONE_RESOLUTION,
  RESOLVED_ONLY,
  UNSTORABLE_IN_RELEASE,
  unknownReleaseMessage,
} from '@/lib/issues/resolution'
import { createOrganization } from '@/lib/orgs/create-organization'
import { INVALID_CURSOR } from '@/lib/pagination/cursor'
import { useRateLimiter } from '@/lib/ratelimit'
import { upsertRelease } from '@/lib/releases/record-release'
import { unknownReleaseMessage as unknownBundleRelease } from '@/lib/reproduction/bundle'
import { isStorableText } from '@/lib/validation'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  type Answer,
  allowAllRateLimiter,
  answerOf,
  assertPrototypesClean,
  deeplyNested,
  forbidErrorLogs,
  fuzzRuns,
  hasControlCharacter,
  headerValue,
  hostileBytes,
  hostileJson,
  hostileString,
  jsonOf,
  NASTY_STRINGS,
  ownEntries,
  pollutionPayload,
  storableText,
} from '../helpers/fuzz'
import { seedInsight, seedIssue, seedIssues, seedOAuthToken, seedSignal } from '../helpers/seed'
import { linkIssue, seedSession, seedTrail, target } from '../helpers/sessions'

/**
 * Hostile input at the Data API through the real route handlers: arbitrary query strings,
 * path segments, PATCH bodies and Authorization headers. Every answer is the spec's status
 * with a `{error}` body from the spec's list (never a 500, never a hang), and a refused
 * request changes nothing.
 */

const BASE = 'http://localhost:3000'
const MISSING = 'Missing or invalid bearer token'
const NOT_FOUND = 'Issue not found'
const BAD_JSON = 'Request body must be valid JSON'
const TOO_LARGE = 'Request body too large: at most 64 KiB'
const limitMessage = (max: number) => `limit must be an integer between 1 and ${max}`
/** The organization's one release: resolving in it succeeds, in any other name is a 400. */
const KNOWN_RELEASE = '1.0.0'

let database: TestDatabase
let writeKey: string
let readKey: string
let oauthToken: string
let issueId: string
let foreignIssueId: string
/** A valid nextCursor per status filter ('*' = no filter). */
const cursors: Record<string, string> = {}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  const org = (await createOrganization(database.db, { name: 'Fuzz' })).id
  const other = (await createOrganization(database.db, { name: 'Other' })).id
  writeKey = (await createKey(database.db, { organizationId: org, type: 'api', write: true })).key
  readKey = (await createKey(database.db, { organizationId: org, type: 'api' })).key
  oauthToken = (await seedOAuthToken(database.db, org, { scope: 'read:service write:issues' })).token
  issueId = (await seedIssue(database.db, org)).id
  foreignIssueId = (await seedIssue(database.db, other)).id
  await upsertRelease(database.db, { organizationId: org, version: KNOWN_RELEASE })
  await seedIssues(database.db, org, 5)
  await seedSignal(database.db, org)
  await seedInsight(database.db, org)
  useRateLimiter(allowAllRateLimiter)
  for (const status of ['*', 'unresolved']) {
    const query = status === '*' ? 'limit=2' : `limit=2&status=${status}`
    const page = jsonOf(await call('GET', `/api/v1/issues?${query}`, writeKey)) as { nextCursor: string }
    cursors[status] = page.nextCursor
  }
  useRateLimiter(undefined)
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

type Method = 'GET' | 'PATCH'

/** One request through the route handler Next would pick for the path. */
function call(
  method: Method,
  pathAndQuery: string,
  token: string | null,
  options: {
    body?: string | Uint8Array
    authorization?: string
    issueId?: string
    reproduction?: boolean
  } = {},
): Promise<Answer> {
  const headers = new Headers({ 'content-type': 'application/json' })
  if (options.authorization !== undefined) headers.set('authorization', options.authorization)
  else if (token) headers.set('authorization', `Bearer ${token}`)
  const body = options.body === undefined ? undefined : new Uint8Array(Buffer.from(options.body))
  const req = new Request(`${BASE}${pathAndQuery}`, { method, headers, body })
  const pathname = new URL(req.url).pathname
  return answerOf(`${method} ${pathname}`, () => {
    if (options.issueId !== undefined) {
      const context = { params: Promise.resolve({ issueId: options.issueId }) }
      if (options.reproduction) return getReproduction(req, context)
      return method === 'GET' ? getIssue(req, context) : patchIssue(req, context)
    }
    if (pathname === '/api/v1/issues') return getIssues(req)
    if (pathname === '/api/v1/signals') return getSignals(req)
    if (pathname === '/api/v1/insights') return getInsights(req)
    throw new Error(`no route for ${pathname}`)
  })
}

/** The spec's error answer: exactly `{error}`, JSON, uncacheable. */
function expectError(answer: Answer, status: number, message: string): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status)
  expect(jsonOf(answer)).toEqual({ error: message })
  expect(answer.headers.get('cache-control')).toBe('no-store')
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
}

/** Issues as they are: status and updatedAt of each, and the history's length. */
async function issueState() {
  const rows = await database.db
    .select({ id: issues.id, status: issues.status, updatedAt: issues.updatedAt })
    .from(issues)
    .orderBy(asc(issues.id))
  const [history] = await database.db.select({ n: count() }).from(issueActivities)
  return { rows: JSON.stringify(rows), history: Number(history!.n) }
}

// ---------------------------------------------------------------------------------------

const QUERY_NAMES = ['limit', 'cursor', 'status'] as const

/** A query value: valid ones, near misses and anything at all. */
const queryValue = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    hostileString,
    fc.integer({ min: -5, max: 400 }).map(String),
    fc.constantFrom('1', '200', '201', '0', '01', '+5', '5.0', '1e2', ' 5', '5 ', '٣', '１'),
    fc.constantFrom(...ISSUE_STATUSES, 'Resolved', 'resolved ', 'open'),
    name === 'cursor'
      ? fc.oneof(
          fc.constantFrom('*', 'unresolved').map((s) => cursors[s]!),
          // One character of the signed payload changed: the signature no longer matches.
          fc.tuple(fc.constantFrom('*', 'unresolved'), fc.nat()).map(([s, n]) => {
            const cursor = cursors[s]!
            const at = n % cursor.indexOf('.')
            const swap = cursor[at] === 'A' ? 'B' : 'A'
            return `${cursor.slice(0, at)}${swap}${cursor.slice(at + 1)}`
          }),
        )
      : fc.constant('1'),
  )

/** A raw query string: known names (repeated or not), unknown names, and broken escapes. */
const rawQuery: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc
        .constantFrom(...QUERY_NAMES)
        .chain((name) => queryValue(name).map((value) => new URLSearchParams([[name, value]]).toString())),
      fc.tuple(hostileString, hostileString).map(([k, v]) => new URLSearchParams([[k, v]]).toString()),
      fc.constantFrom('limit', 'limit=', 'cursor=%zz', 'status=%ff', '%', '&&', '=', 'limit=%00', 'status'),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join('&'))

/** What GET /api/v1/issues must answer for a query: the oracle, from the spec's rules. */
function expectedListAnswer(query: string): { status: 200 } | { status: 400; message: string } {
  // Parsed as the route parses it: from the URL the Request normalized.
  const params = new URL(`${BASE}/api/v1/issues?${query}`).searchParams
  const limit = params.get('limit')
  if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 200))
    return { status: 400, message: limitMessage(200) }
  const status = params.get('status')
  const cursor = params.get('cursor')?.trim()
  if (status !== null && !(ISSUE_STATUSES as readonly string[]).includes(status))
    return { status: 400, message: INVALID_STATUS }
  if (cursor && cursor !== cursors[status ?? '*']) return { status: 400, message: INVALID_CURSOR }
  return { status: 200 }
}

describe('GET /api/v1/issues with arbitrary query strings', () => {
  it('answers 200 with a page or 400 with the spec message, as the query deserves', async () => {
    await fc.assert(
      fc.asyncProperty(rawQuery, async (query) => {
        const answer = await call('GET', `/api/v1/issues?${query}`, readKey)
        const expected = expectedListAnswer(query)
        if (expected.status === 400) expectError(answer, 400, expected.message)
        else {
          expect(answer.status, answer.text.slice(0, 300)).toBe(200)
          const body = jsonOf(answer) as { issues: unknown[]; nextCursor: unknown }
          expect(Array.isArray(body.issues)).toBe(true)
          expect(body.nextCursor === null || typeof body.nextCursor === 'string').toBe(true)
        }
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [`cursor=${encodeURIComponent(cursors['*'] ?? '')}&status=unresolved`],
          ['limit=1&limit=500'],
          ['limit=99999999999999999999999'],
          ['cursor=%20%20'],
        ],
      },
    )
  })

  it('answers the signals and insights lists with 200 or a spec 400, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/v1/signals', '/api/v1/insights'),
        rawQuery,
        async (path, query) => {
          const answer = await call('GET', `${path}?${query}`, readKey)
          const max = path.endsWith('signals') ? 200 : 100
          const params = new URL(`${BASE}${path}?${query}`).searchParams
          const limit = params.get('limit')
          const cursor = params.get('cursor')?.trim()
          const badLimit =
            limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= max)
          if (badLimit) expectError(answer, 400, limitMessage(max))
          // The issue cursors belong to another list: refused here.
          else if (cursor) expectError(answer, 400, INVALID_CURSOR)
          else expect(answer.status).toBe(200)
        },
      ),
      fuzzRuns(80),
    )
  })
})

/** Path segments: ids of ours and of another organization, near-UUIDs and anything at all. */
const issueIdSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.uuid(),
  fc.constantFrom(
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '..',
    '.',
    '%2e%2e',
    '../issues',
    "1' OR '1'='1",
  ),
  fc.constant(null).map(() => issueId),
  fc.constant(null).map(() => issueId.toUpperCase()),
  fc.constant(null).map(() => `{${issueId}}`),
  fc.constant(null).map(() => issueId.replace(/-/g, '')),
  fc.constant(null).map(() => ` ${issueId}`),
  fc.constant(null).map(() => `${issueId}\u0000`),
  fc.constant(null).map(() => foreignIssueId),
)

/** The segment as it appears in the URL (a lone surrogate cannot be percent-encoded). */
function inPath(segment: string): string {
  try {
    return encodeURIComponent(segment)
  } catch {
    return 'not-encodable'
  }
}

/** Whether a segment names the one issue of the token's organization (UUIDs compare case-blind). */
const namesOurIssue = (segment: string) => segment.toLowerCase() === issueId

describe('GET /api/v1/issues/<arbitrary segment>', () => {
  it('answers 200 for our issue only and 404 Issue not found for any other segment', async () => {
    await fc.assert(
      fc.asyncProperty(issueIdSegment, async (segment) => {
        const answer = await call('GET', `/api/v1/issues/${inPath(segment)}`, readKey, {
          issueId: segment,
        })
        if (namesOurIssue(segment)) {
          expect(answer.status).toBe(200)
          expect((jsonOf(answer) as { issue: { id: string } }).issue.id).toBe(issueId)
        } else expectError(answer, 404, NOT_FOUND)
      }),
      fuzzRuns(150),
    )
  })
})

describe('GET /api/v1/issues/<arbitrary segment>/reproduction', () => {
  it('answers 200 with a reproduction for our issue only and 404 Issue not found for any other segment', async () => {
    await fc.assert(
      fc.asyncProperty(issueIdSegment, async (segment) => {
        const answer = await call('GET', `/api/v1/issues/${inPath(segment)}/reproduction`, readKey, {
          issueId: segment,
          reproduction: true,
        })
        if (namesOurIssue(segment)) {
          expect(answer.status).toBe(200)
          expect((jsonOf(answer) as { reproduction: { issueId: string } }).reproduction.issueId).toBe(issueId)
        } else expectError(answer, 404, NOT_FOUND)
      }),
      fuzzRuns(100),
    )
  })
})

/** PATCH bodies: JSON of any shape, `{status}` with any value, pollution, bytes, deep nesting. */
const patchBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .record({ status: fc.oneof(hostileJson, fc.constantFrom(...ISSUE_STATUSES)) })
    .map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.constantFrom(...ISSUE_STATUSES), pollutionPayload)
    .map(([status, pollution]) =>
      JSON.stringify(ownEntries([['status', status], ...Object.entries(pollution)])),
    ),
  // `__proto__` carrying the status: must not count as an own `status`.
  // Resolve in a release (issue 36): the optional fields with right and wrong values.
  fc
    .record(
      {
        status: fc.constantFrom(...ISSUE_STATUSES),
        inRelease: fc.oneof(
          hostileJson,
          fc.constantFrom(
            KNOWN_RELEASE,
            '1.0.1',
            '',
            'x'.repeat(200),
            'x'.repeat(201),
            '1.0\u0000',
            '\ud800',
          ),
        ),
        inNextRelease: fc.oneof(hostileJson, fc.boolean()),
      },
      { requiredKeys: ['status'] },
    )
    .map((v) => JSON.stringify(v)),
  fc
    .constantFrom(...ISSUE_STATUSES)
    .map((status) => `{"__proto__":{"inRelease":"${status}","status":"${status}"}}`),
  fc.constantFrom(...ISSUE_STATUSES).map((status) => `{"__proto__":{"status":"${status}"}}`),
  fc.constantFrom(...ISSUE_STATUSES).map((status) => `{"constructor":{"prototype":{"status":"${status}"}}}`),
  hostileBytes,
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(deeplyNested(10_000), deeplyNested(10_000, 'object'), `{"status":${deeplyNested(10_000)}}`),
)

/** What a PATCH must answer, in the order the spec's checks apply. */
function expectedPatch(
  body: string | Uint8Array,
  segment: string,
): { status: 200; to: string } | { status: 400 | 404 | 413; message: string } {
  const bytes = Buffer.from(body)
  if (bytes.byteLength > 64 * 1024) return { status: 413, message: TOO_LARGE }
  let parsed: unknown
  try {
    parsed = JSON.parse(bytes.toString('utf8'))
  } catch {
    return { status: 400, message: BAD_JSON }
  }
  const status =
    parsed && typeof parsed === 'object' && Object.hasOwn(parsed, 'status')
      ? (parsed as { status: unknown }).status
      : undefined
  if (typeof status !== 'string' || !(ISSUE_STATUSES as readonly string[]).includes(status))
    return { status: 400, message: INVALID_STATUS }
  // The resolution's own checks come before the issue is looked up; whether its release exists, after.
  const own = (name: string) =>
    Object.hasOwn(parsed as object, name) ? (parsed as Record<string, unknown>)[name] : undefined
  const inRelease = own('inRelease')
  const inNextRelease = own('inNextRelease')
  if (inNextRelease !== undefined && typeof inNextRelease !== 'boolean')
    return { status: 400, message: INVALID_IN_NEXT_RELEASE }
  if (
    inRelease !== undefined &&
    (typeof inRelease !== 'string' || inRelease.length < 1 || inRelease.length > 200)
  )
    return { status: 400, message: INVALID_IN_RELEASE }
  if (typeof inRelease === 'string' && !isStorableText(inRelease))
    return { status: 400, message: UNSTORABLE_IN_RELEASE }
  const named = inRelease !== undefined || inNextRelease === true
  if (named && status !== 'resolved') return { status: 400, message: RESOLVED_ONLY }
  if (inRelease !== undefined && inNextRelease === true) return { status: 400, message: ONE_RESOLUTION }
  if (!namesOurIssue(segment)) return { status: 404, message: NOT_FOUND }
  if (typeof inRelease === 'string' && inRelease !== KNOWN_RELEASE)
    return { status: 400, message: unknownReleaseMessage(inRelease) }
  return { status: 200, to: status }
}

describe('PATCH /api/v1/issues/<segment> with arbitrary bodies', () => {
  it('answers exactly as the spec orders its checks, and changes nothing unless it answers 200', async () => {
    await fc.assert(
      fc.asyncProperty(patchBody, issueIdSegment, async (body, segment) => {
        const before = await issueState()
        const answer = await call('PATCH', `/api/v1/issues/${inPath(segment)}`, writeKey, {
          body,
          issueId: segment,
        })
        const expected = expectedPatch(body, segment)
        if (expected.status === 200) {
          expect(answer.status, answer.text.slice(0, 300)).toBe(200)
          expect((jsonOf(answer) as { issue: { status: string } }).issue.status).toBe(expected.to)
        } else {
          expectError(answer, expected.status, expected.message)
          expect(await issueState()).toEqual(before)
        }
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [`{"status":"resolved","pad":"${'x'.repeat(70_000)}"}`, issueId],
          ['{"status":"resolved"}', foreignIssueId],
          ['{"status":"resolved","status":"bogus"}', issueId],
        ],
      },
    )
  })
})

describe('arbitrary Authorization headers', () => {
  /** Values `Headers` accepts (any control character but CR, LF and NUL) and near-miss schemes. */
  const authorization = fc.oneof(
    headerValue,
    fc
      .tuple(
        fc.constantFrom('Bearer ', 'bearer\t', 'Bearer  ', 'Basic ', 'Token ', 'Bearer\u000b'),
        headerValue,
      )
      .map(([scheme, value]) => `${scheme}${value}`),
    fc.constant(null).map(() => `Bearer ${writeKey}\u0001`),
    fc.constant(null).map(() => `Bearer ${writeKey.slice(0, -1)}`),
    fc.constant(null).map(() => `Bearer ${writeKey} ${writeKey}`),
    fc.constant(null).map(() => `Bearer ${'svc_api_'.padEnd(5000, 'A')}`),
    fc.constant(null).map(() => `Basic ${Buffer.from(`x:${writeKey}`).toString('base64')}`),
    fc.constant(null).map(() => `Bearer ${oauthToken}\u007f`),
  )

  it('answers 401 with the challenge for every header that is not a valid credential', async () => {
    const routes: [Method, string, string, string | undefined][] = [
      ['GET', '/api/v1/issues', 'read:service', undefined],
      ['GET', '/api/v1/signals', 'read:service', undefined],
      ['GET', `/api/v1/issues/${issueId}`, 'read:service', issueId],
      ['PATCH', `/api/v1/issues/${issueId}`, 'write:issues', issueId],
    ]
    await fc.assert(
      fc.asyncProperty(
        authorization,
        fc.constantFrom(...routes),
        async (header, [method, path, scope, id]) => {
          const before = await issueState()
          const answer = await call(method, path, null, {
            authorization: header,
            issueId: id,
            body: method === 'PATCH' ? '{"status":"transient"}' : undefined,
          })
          expectError(answer, 401, MISSING)
          expect(answer.headers.get('www-authenticate')).toBe(`Bearer scope="${scope}"`)
          expect(answer.headers.get('x-ratelimit-limit')).toBeNull()
          expect(await issueState()).toEqual(before)
        },
      ),
      fuzzRuns(150),
    )
  })

  it('answers 403, not a write, when a read-only key sends any PATCH body', async () => {
    await fc.assert(
      fc.asyncProperty(patchBody, async (body) => {
        const before = await issueState()
        const answer = await call('PATCH', `/api/v1/issues/${issueId}`, readKey, { body, issueId })
        expectError(answer, 403, 'Missing required scope: write:issues')
        expect(await issueState()).toEqual(before)
      }),
      fuzzRuns(40),
    )
  })
})

// ---------------------------------------------------------------------------------------
// Notes and the ticket link (issue 18)

const ENTER_NOTE = 'Enter the text of the note.'
const NOTE_TOO_LONG = 'A note is limited to 5,000 characters.'
const NOTE_NOT_STORABLE = 'The note must not contain NUL characters or broken (unpaired) Unicode surrogates'
const TICKET_MESSAGES = [
  'Enter the ticket provider, e.g. GitHub, Linear or Jira.',
  'The provider is limited to 64 characters.',
  'The provider must not contain NUL characters or broken (unpaired) Unicode surrogates',
  'Enter the ticket URL.',
  'The ticket URL is limited to 2048 characters.',
  'The ticket URL must not contain NUL characters or broken (unpaired) Unicode surrogates',
  'The ticket URL must be a full http:// or https:// address, e.g. https://github.com/acme/shop/issues/12.',
  'The identifier must be text, e.g. #12 or ENG-42.',
  'The identifier is limited to 128 characters.',
  'The identifier must not contain NUL characters or broken (unpaired) Unicode surrogates',
]

/** One request to the notes or ticket route of `segment`, with a raw body or none. */
function callIssueWrite(
  route: 'notes' | 'ticket',
  method: 'GET' | 'POST' | 'PUT',
  segment: string,
  token: string | null,
  options: { body?: string | Uint8Array; query?: string; authorization?: string } = {},
): Promise<Answer> {
  const headers = new Headers({ 'content-type': 'application/json' })
  if (options.authorization !== undefined) headers.set('authorization', options.authorization)
  else if (token) headers.set('authorization', `Bearer ${token}`)
  const body = options.body === undefined ? undefined : new Uint8Array(Buffer.from(options.body))
  const path = `/api/v1/issues/${inPath(segment)}/${route}${options.query ? `?${options.query}` : ''}`
  const req = new Request(`${BASE}${path}`, { method, headers, body })
  const context = { params: Promise.resolve({ issueId: segment }) }
  return answerOf(`${method} ${route}`, () =>
    route === 'ticket'
      ? putTicket(req, context)
      : method === 'GET'
        ? getNotes(req, context)
        : postNote(req, context),
  )
}

/** A note body: `{text}` with any value, texts at and past the limit, pollution, bytes. */
const noteBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc.record({ text: fc.oneof(hostileJson, hostileString) }).map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.constantFrom('x', ' ', '😀', 'é\n'), fc.integer({ min: 4990, max: 5010 }))
    .map(([unit, n]) => JSON.stringify({ text: unit.repeat(n) })),
  fc
    .tuple(hostileString, pollutionPayload)
    .map(([text, pollution]) => JSON.stringify(ownEntries([['text', text], ...Object.entries(pollution)]))),
  fc.constant('{"__proto__":{"text":"hidden"}}'),
  hostileBytes,
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(deeplyNested(10_000), `{"text":${deeplyNested(10_000)}}`),
)

/** What POST .../notes must answer, written apart from the code: the checks in their order. */
function expectedNote(
  body: string | Uint8Array,
  segment: string,
): { status: 201 } | { status: number; message: string } {
  const bytes = Buffer.from(body)
  if (bytes.byteLength > 64 * 1024) return { status: 413, message: TOO_LARGE }
  let parsed: unknown
  try {
    parsed = JSON.parse(bytes.toString('utf8'))
  } catch {
    return { status: 400, message: BAD_JSON }
  }
  const text =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.hasOwn(parsed, 'text')
      ? (parsed as { text: unknown }).text
      : undefined
  if (typeof text !== 'string' || text.trim() === '') return { status: 400, message: ENTER_NOTE }
  if ([...text.trim()].length > 5000) return { status: 400, message: NOTE_TOO_LONG }
  if (!storableText(text.trim())) return { status: 400, message: NOTE_NOT_STORABLE }
  if (!namesOurIssue(segment)) return { status: 404, message: NOT_FOUND }
  return { status: 201 }
}

describe('POST /api/v1/issues/<segment>/notes with arbitrary bodies', () => {
  it('answers 201 or the spec error the checks give, and stores a note only with 201', async () => {
    await fc.assert(
      fc.asyncProperty(noteBody, issueIdSegment, async (body, segment) => {
        const before = await issueState()
        const answer = await callIssueWrite('notes', 'POST', segment, writeKey, { body })
        const expected = expectedNote(body, segment)
        if (expected.status === 201) {
          expect(answer.status, answer.text.slice(0, 300)).toBe(201)
          const { note } = jsonOf(answer) as { note: { issueId: string; text: string } }
          expect(note.issueId).toBe(issueId)
          expect(await issueState()).toEqual({ ...before, history: before.history + 1 })
        } else {
          expectError(answer, expected.status, (expected as { message: string }).message)
          expect(await issueState()).toEqual(before)
        }
      }),
      {
        ...fuzzRuns(150),
        examples: [
          [JSON.stringify({ text: 'x'.repeat(5001) }), issueId],
          [JSON.stringify({ text: '\ud800' }), issueId],
          ['{"text":"ok","text":""}', issueId],
          ['{"text":"ok"}', foreignIssueId],
        ],
      },
    )
  })
})

describe('GET /api/v1/issues/<segment>/notes with arbitrary queries', () => {
  it('answers a page, the spec 400 or 404, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(rawQuery, issueIdSegment, async (query, segment) => {
        const answer = await callIssueWrite('notes', 'GET', segment, readKey, { query })
        const params = new URL(`${BASE}/x?${query}`).searchParams
        const limit = params.get('limit')
        const cursor = params.get('cursor')?.trim()
        if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 100))
          expectError(answer, 400, limitMessage(100))
        else if (!namesOurIssue(segment)) expectError(answer, 404, NOT_FOUND)
        // The issue list's cursors belong to another list: refused here.
        else if (cursor) expectError(answer, 400, INVALID_CURSOR)
        else {
          expect(answer.status, answer.text.slice(0, 300)).toBe(200)
          expect(Array.isArray((jsonOf(answer) as { notes: unknown }).notes)).toBe(true)
        }
      }),
      fuzzRuns(100),
    )
  })
})

/** Ticket bodies: the fields with any values, near-miss URLs, pollution, bytes. */
const ticketBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .record(
      {
        provider: fc.oneof(hostileJson, hostileString, fc.constantFrom('GitHub', 'Linear')),
        url: fc.oneof(
          hostileJson,
          hostileString,
          fc.webUrl({ validSchemes: ['https', 'http'] }),
          fc.constantFrom('ftp://x.example/1', 'https://', 'javascript:alert(1)', 'github.com/a/b'),
        ),
        identifier: fc.oneof(hostileJson, hostileString, fc.constant(null)),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.constant('{"__proto__":{"provider":"GitHub","url":"https://github.com/a/b/issues/1"}}'),
  hostileBytes,
  fc.constantFrom(...NASTY_STRINGS),
)

describe('PUT /api/v1/issues/<segment>/ticket with arbitrary bodies', () => {
  it('answers 200 with the issue or one of the spec errors, and changes nothing unless 200', async () => {
    await fc.assert(
      fc.asyncProperty(ticketBody, issueIdSegment, async (body, segment) => {
        const before = await issueState()
        const answer = await callIssueWrite('ticket', 'PUT', segment, writeKey, { body })
        if (answer.status === 200) {
          expect(namesOurIssue(segment)).toBe(true)
          expect((jsonOf(answer) as { issue: { id: string } }).issue.id).toBe(issueId)
          return
        }
        const { error } = jsonOf(answer) as { error: string }
        const allowed: Record<number, string[]> = {
          400: [BAD_JSON, ...TICKET_MESSAGES],
          404: [NOT_FOUND],
          413: [TOO_LARGE],
        }
        expect(allowed[answer.status], `${answer.status} ${answer.text.slice(0, 300)}`).toContain(error)
        expectError(answer, answer.status, error)
        if (answer.status === 404) expect(namesOurIssue(segment)).toBe(false)
        expect(await issueState()).toEqual(before)
      }),
      {
        ...fuzzRuns(150),
        examples: [
          ['{"provider":"GitHub","url":"https://github.com/a/b/issues/1"}', foreignIssueId],
          ['{"provider":"GitHub","url":"https://github.com/a/b/issues/1","identifier":7}', issueId],
        ],
      },
    )
  })
})

describe('notes and ticket routes with arbitrary Authorization headers, and read-only keys', () => {
  it('answers 401 with the route’s challenge and writes nothing', async () => {
    const routes = [
      ['notes', 'GET', 'read:service'],
      ['notes', 'POST', 'write:issues'],
      ['ticket', 'PUT', 'write:issues'],
    ] as const
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue,
          fc.constant(null).map(() => `Bearer ${writeKey}\u0001`),
          fc.constant(null).map(() => `Basic ${writeKey}`),
        ),
        fc.constantFrom(...routes),
        async (authorization, [route, method, scope]) => {
          const before = await issueState()
          const answer = await callIssueWrite(route, method, issueId, null, {
            authorization,
            body:
              method === 'GET'
                ? undefined
                : '{"text":"x","provider":"GitHub","url":"https://github.com/a/b/issues/1"}',
          })
          expectError(answer, 401, MISSING)
          expect(answer.headers.get('www-authenticate')).toBe(`Bearer scope="${scope}"`)
          expect(await issueState()).toEqual(before)
        },
      ),
      fuzzRuns(60),
    )
  })

  it('answers 403 to a read-only key whatever the body, and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(noteBody, ticketBody),
        fc.constantFrom('notes', 'ticket'),
        async (body, route) => {
          const before = await issueState()
          const answer = await callIssueWrite(route, route === 'notes' ? 'POST' : 'PUT', issueId, readKey, {
            body,
          })
          expectError(answer, 403, 'Missing required scope: write:issues')
          expect(await issueState()).toEqual(before)
        },
      ),
      fuzzRuns(40),
    )
  })
})

// ---------------------------------------------------------------------------------------
// Sessions (issue 18): the list, one session and its timeline, with hostile queries and ids.

describe('the sessions endpoints with arbitrary queries, ids and credentials', () => {
  let key: string
  let sessionId: string
  let sessionIssueId: string
  let foreignSessionId: string
  const sessionCursors: string[] = []

  beforeAll(async () => {
    const db = database.db
    const org = (await createOrganization(db, { name: 'Fuzz sessions' })).id
    const other = (await createOrganization(db, { name: 'Fuzz sessions other' })).id
    key = (await createKey(db, { organizationId: org, type: 'api' })).key
    const at = Date.parse('2026-03-01T10:00:00Z')
    const session = await seedSession(db, org, {
      startedAt: new Date(at),
      trailTruncated: false,
      errorCount: 1,
    })
    await seedSession(db, org, { userId: 'u-1', digest: { pages: [{ url: 'https://x.example/a', at }] } })
    await seedTrail(db, session, [
      { kind: 'navigation', at, pageUrl: 'https://x.example/', url: 'https://x.example/', change: 'load' },
      { kind: 'click', at: at + 10, pageUrl: 'https://x.example/', target: target(), count: 1 },
      {
        kind: 'error',
        at: at + 20,
        pageUrl: 'https://x.example/',
        message: 'boom',
        stack: null,
        source: 'uncaught',
      },
    ])
    sessionId = session.id
    const issue = await seedIssue(db, org)
    sessionIssueId = issue.id
    await linkIssue(db, session, issue.id, new Date(at + 20))
    foreignSessionId = (await seedSession(db, other, { trailTruncated: false })).id
    const page = jsonOf(await sessionCall(`/api/v1/sessions?limit=1`, key)) as { nextCursor: string }
    sessionCursors.push(page.nextCursor)
    const timeline = jsonOf(
      await sessionCall(`/api/v1/sessions/${sessionId}/timeline?limit=1`, key, sessionId),
    ) as {
      nextCursor: string
    }
    sessionCursors.push(timeline.nextCursor)
  })

  function sessionCall(pathAndQuery: string, token: string | null, id?: string, authorization?: string) {
    const headers = new Headers()
    if (authorization !== undefined) headers.set('authorization', authorization)
    else if (token) headers.set('authorization', `Bearer ${token}`)
    const req = new Request(`${BASE}${pathAndQuery}`, { headers })
    const pathname = new URL(req.url).pathname
    return answerOf(`GET ${pathname}`, () => {
      if (id === undefined) return getSessions(req)
      const context = { params: Promise.resolve({ sessionId: id }) }
      return pathname.endsWith('/timeline') ? getSessionTimeline(req, context) : getSession(req, context)
    })
  }

  const LIST_NAMES = [
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
  ]
  const TIMELINE_NAMES = ['limit', 'cursor', 'around', 'windowMs', 'kinds']
  const sessionValue: fc.Arbitrary<string> = fc.oneof(
    hostileString,
    fc.integer({ min: -5, max: 700_000 }).map(String),
    fc.constantFrom('true', 'false', 'TRUE', '1', '0', '100', '101', '200', '201', '600000', '1e3'),
    fc.constantFrom(
      '2026-03-01T10:00:00Z',
      '2026-03-01',
      '2026-13-45T99:99:99Z',
      '2026-03-01T10:00:00',
      '1740823200000',
    ),
    fc.constantFrom('error,request', 'navigation', 'error,,bogus', ' click ', 'ERROR', '\u0000', 'a\u0000b'),
    fc.uuid(),
    fc.constant(null).map(() => sessionIssueId),
    fc.constant(null).map(() => sessionCursors[0]!),
    fc.constant(null).map(() => sessionCursors[1]!),
    fc.string({ unit: 'binary', minLength: 400, maxLength: 1200 }),
  )
  const sessionQuery = (names: string[]) =>
    fc
      .array(
        fc.oneof(
          fc
            .constantFrom(...names)
            .chain((name) => sessionValue.map((v) => new URLSearchParams([[name, v]]).toString())),
          fc.constantFrom('limit', 'cursor=%zz', '%', '&&', 'url=%00', 'userId=%ff'),
        ),
        { maxLength: 5 },
      )
      .map((parts) => parts.join('&'))

  const LIST_ERRORS = [
    /^limit must be an integer between 1 and 100$/,
    /^cursor is invalid: /,
    /^hasErrors must be true or false$/,
    /^(issueId|signalId) must be a UUID$/,
    /^(from|to) must be an ISO 8601 time with a time zone, e\.g\. 2026-01-31T12:00:00Z$/,
    /^from must not be after to$/,
    /^(userId|userEmail|url) must be at most 500 characters$/,
    /^(userId|userEmail|url) must not contain NUL characters/,
  ]
  const TIMELINE_ERRORS = [
    /^limit must be an integer between 1 and 200$/,
    /^cursor is invalid: /,
    /^windowMs must be an integer between 1 and 600000$/,
    /^kinds must be a comma-separated list of: /,
    /^around must be an ISO 8601 time with a time zone, epoch milliseconds or the id of an issue of this session$/,
    /^around: issue [0-9a-fA-F-]{36} did not occur in this session$/,
  ]

  function expectPageOr400(answer: Answer, errors: RegExp[], check: (body: Record<string, unknown>) => void) {
    expect([200, 400], answer.text.slice(0, 300)).toContain(answer.status)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    const body = jsonOf(answer) as Record<string, unknown>
    if (answer.status === 400) {
      expect(Object.keys(body)).toEqual(['error'])
      expect(
        errors.some((pattern) => pattern.test(String(body.error))),
        String(body.error),
      ).toBe(true)
    } else check(body)
  }

  it('GET /api/v1/sessions answers a page of our sessions or a 400 naming the parameter', async () => {
    await fc.assert(
      fc.asyncProperty(sessionQuery(LIST_NAMES), async (query) => {
        const answer = await sessionCall(`/api/v1/sessions?${query}`, key)
        expectPageOr400(answer, LIST_ERRORS, (body) => {
          const ids = (body.sessions as { id: string }[]).map((item) => item.id)
          expect(ids).not.toContain(foreignSessionId)
          expect(body.nextCursor === null || typeof body.nextCursor === 'string').toBe(true)
        })
      }),
      { ...fuzzRuns(150), examples: [['url=%25_%5C&userEmail=%C3%A9'], ['from=2026-03-02&to=2026-03-01']] },
    )
  })

  /** Search text (docs/search.md): pieces of the language put together at random, and hostile text. */
  const searchText: fc.Arbitrary<string> = fc.oneof(
    fc
      .array(
        fc.oneof(
          fc.constantFrom(
            ...['click', 'input', 'page', 'console', 'error', 'request', 'rage_click', 'dead_click', 'event'],
            ...[
              'click.text',
              'page.path',
              'request.status',
              'request.duration',
              'request.failed',
              'event.prop.x',
            ],
            ...[
              'user.id',
              'user.plan',
              'release',
              'browser',
              'device',
              'country',
              'duration',
              'pages',
              'errors',
            ],
            ...[
              'and',
              'or',
              'not',
              'then',
              'within',
              '(',
              ')',
              '[',
              ']',
              '=',
              '!=',
              '~',
              '!~',
              '>',
              '>=',
              '<',
            ],
            ...['5', '-1.5', '500ms', '30s', '2h', 'true', 'mobile', '"a \\" b"', '"', '\\', '%', '_', "'"],
          ),
          hostileString.map((text) => JSON.stringify(text)),
        ),
        { maxLength: 40 },
      )
      .map((parts) => parts.join(' ')),
    hostileString,
    fc.string({ unit: 'binary', minLength: 990, maxLength: 1100 }),
  )

  it('GET /api/v1/sessions?q= answers our matching sessions or a 400 with the position, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(searchText, async (q) => {
        const answer = await sessionCall(`/api/v1/sessions?${new URLSearchParams({ q, limit: '5' })}`, key)
        expect([200, 400], `${q}\n${answer.text.slice(0, 300)}`).toContain(answer.status)
        const body = jsonOf(answer) as Record<string, unknown>
        if (answer.status === 400) {
          expect(Object.keys(body).sort()).toEqual(['error', 'position'])
          expect(body.position).toBeGreaterThanOrEqual(0)
          expect(body.position).toBeLessThanOrEqual(q.length)
        } else {
          const items = body.sessions as { id: string; moments: unknown[] }[]
          expect(items.map((item) => item.id)).not.toContain(foreignSessionId)
          for (const item of items) expect(item.moments.length).toBeLessThanOrEqual(5)
        }
      }),
      {
        ...fuzzRuns(150),
        examples: [
          ['click.text = "%_\\" then error within 1ms or event.prop.x > 1 and user.x <= -1'],
          ['event.prop.constructor = 1 or user.__proto__ ~ x'],
          ['page.path = /x/ and request[url ~ "%" and status >= 100 and duration < 1h and failed = FALSE]'],
        ],
      },
    )
  })

  it('GET /api/v1/sessions/{id}/timeline answers a window of our session or a 400', async () => {
    await fc.assert(
      fc.asyncProperty(sessionQuery(TIMELINE_NAMES), async (query) => {
        const answer = await sessionCall(`/api/v1/sessions/${sessionId}/timeline?${query}`, key, sessionId)
        expectPageOr400(answer, TIMELINE_ERRORS, (body) => {
          expect(body.sessionId).toBe(sessionId)
          expect(Array.isArray(body.entries)).toBe(true)
        })
      }),
      {
        ...fuzzRuns(150),
        examples: [[`around=${'9'.repeat(15)}&windowMs=600000`], ['kinds=error&kinds=click']],
      },
    )
  })

  it('GET /api/v1/sessions/<segment>[/timeline] is 200 for our session only, else 404 Session not found', async () => {
    const segment = fc.oneof(
      hostileString,
      fc.uuid(),
      fc.constantFrom('..', '%2e%2e', "1' OR '1'='1", '00000000-0000-0000-0000-000000000000'),
      fc.constant(null).map(() => sessionId),
      fc.constant(null).map(() => sessionId.toUpperCase()),
      fc.constant(null).map(() => `${sessionId}\u0000`),
      fc.constant(null).map(() => foreignSessionId),
      fc.constant(null).map(() => sessionIssueId),
    )
    await fc.assert(
      fc.asyncProperty(segment, fc.boolean(), async (id, timeline) => {
        const path = `/api/v1/sessions/${inPath(id)}${timeline ? '/timeline' : ''}`
        const answer = await sessionCall(path, key, id)
        if (id.toLowerCase() === sessionId) expect(answer.status, answer.text.slice(0, 300)).toBe(200)
        else expectError(answer, 404, 'Session not found')
      }),
      fuzzRuns(120),
    )
  })

  it('answers 401 with the challenge to any Authorization header that is not a credential', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue,
          fc.constant(null).map(() => `Bearer ${key}\u0001`),
        ),
        fc.constantFrom<[string, string | undefined]>(
          ['/api/v1/sessions', undefined],
          ['/api/v1/sessions/x', 'x'],
          ['/api/v1/sessions/x/timeline', 'x'],
        ),
        async (header, [path, id]) => {
          const answer = await sessionCall(path, null, id, header)
          expectError(answer, 401, MISSING)
          expect(answer.headers.get('www-authenticate')).toBe('Bearer scope="read:service"')
        },
      ),
      fuzzRuns(60),
    )
  })
})

// Erasures and exports (issue 33): POST takes exactly one of userId, email, anonymousId; any
// other body is a 400 that stores nothing. GET of any segment that is not ours is a 404.
const PERSON_ROUTES = [
  {
    path: 'exports',
    post: postExportRoute,
    get: (request: Request, id: string) =>
      getExportRoute(request, { params: Promise.resolve({ exportId: id }) }),
    table: dataExports,
    notFound: 'Export not found',
  },
  {
    path: 'erasures',
    post: postErasureRoute,
    get: (request: Request, id: string) =>
      getErasureRoute(request, { params: Promise.resolve({ erasureId: id }) }),
    table: erasures,
    notFound: 'Erasure not found',
  },
] as const

describe.each(PERSON_ROUTES)('$path with hostile bodies and ids', (route) => {
  let privacyKey: string
  const PERSON_FIELDS = ['userId', 'email', 'anonymousId']
  const rowCount = async () => (await database.db.select({ n: count() }).from(route.table))[0]!.n

  beforeAll(async () => {
    const fuzzOrg = (await createOrganization(database.db, { name: `Fuzz ${route.path}` })).id
    privacyKey = (await createKey(database.db, { organizationId: fuzzOrg, type: 'api', privacy: true })).key
  })

  const postPerson = (body: string | Uint8Array) =>
    answerOf(`POST /api/v1/${route.path}`, () =>
      route.post(
        new Request(`${BASE}/api/v1/${route.path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${privacyKey}`, 'content-type': 'application/json' },
          body: typeof body === 'string' ? body : new Uint8Array(body),
        }),
      ),
    )

  const personBody = fc.oneof(
    hostileJson,
    pollutionPayload,
    fc.record(
      { userId: hostileString, email: hostileString, anonymousId: hostileString, extra: hostileString },
      { requiredKeys: [] },
    ),
    fc
      .constantFrom(...PERSON_FIELDS)
      .chain((field) => fc.record({ [field]: fc.stringMatching(/^[a-z0-9@.]{1,60}$/) })),
  )

  it('POST answers 202 for one person, else 400 {error} with nothing stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          personBody.map((b) => JSON.stringify(b) ?? 'null'),
          hostileBytes,
        ),
        async (body) => {
          const before = await rowCount()
          const answer = await postPerson(body)
          if (answer.status === 202) {
            const sent = JSON.parse(typeof body === 'string' ? body : '') as Record<string, unknown>
            expect(Object.keys(sent).filter((key) => PERSON_FIELDS.includes(key))).toHaveLength(1)
            expect(Object.keys(sent)).toHaveLength(1)
            expect(await rowCount()).toBe(before + 1)
            return
          }
          if (answer.status === 413) {
            expect(jsonOf(answer)).toEqual({ error: TOO_LARGE })
            expect(await rowCount()).toBe(before)
            return
          }
          expect(answer.status, answer.text.slice(0, 200)).toBe(400)
          expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
          expect(await rowCount()).toBe(before)
        },
      ),
      fuzzRuns(120),
    )
  })

  it('GET /api/v1/<path>/<segment> is 404 for anything not ours', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileString, fc.uuid()), fc.boolean(), async (id, download) => {
        const answer = await answerOf(`GET /api/v1/${route.path}/{id}`, () =>
          route.get(
            new Request(`${BASE}/api/v1/${route.path}/${inPath(id)}${download ? '?download=1' : ''}`, {
              headers: { authorization: `Bearer ${privacyKey}` },
            }),
            id,
          ),
        )
        expect(answer.status).toBe(404)
        expect(jsonOf(answer)).toEqual({ error: route.notFound })
      }),
      fuzzRuns(80),
    )
  })
})

// Audit trail, retention and pins (issue 33): hostile queries, bodies and ids answer 400 or 404
// with {error} and change nothing.
describe('audit trail, retention and pins with hostile input', () => {
  let privacyKey: string
  let orgSessionId: string
  const auth = (token: string) => ({ authorization: `Bearer ${token}` })
  const days = async () =>
    (
      jsonOf(
        await answerOf('GET /api/v1/retention', () =>
          getRetention(new Request(`${BASE}/api/v1/retention`, { headers: auth(privacyKey) })),
        ),
      ) as {
        retention: { retentionDays: number }
      }
    ).retention.retentionDays

  beforeAll(async () => {
    const org = (await createOrganization(database.db, { name: 'Fuzz audit' })).id
    privacyKey = (
      await createKey(database.db, { organizationId: org, type: 'api', write: true, privacy: true })
    ).key
    orgSessionId = (await seedSession(database.db, org)).id
  })

  it('GET /api/v1/audit-events answers 200 or 400 {error} to any query', async () => {
    const param = fc.constantFrom('limit', 'cursor', 'action', 'since', 'other')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, hostileString), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams()
        for (const [name, value] of pairs) query.append(name, value)
        const answer = await answerOf('GET /api/v1/audit-events', () =>
          getAuditEvents(new Request(`${BASE}/api/v1/audit-events?${query}`, { headers: auth(privacyKey) })),
        )
        if (answer.status === 200) expect(jsonOf(answer)).toMatchObject({ events: expect.any(Array) })
        else expect(answer.status, answer.text.slice(0, 300)).toBe(400)
        expect(jsonOf(answer)).not.toHaveProperty('stack')
      }),
      fuzzRuns(120),
    )
  })

  it('PATCH /api/v1/retention changes it only for a whole number of days within bounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileJson.map((b) => JSON.stringify(b) ?? 'null'),
          pollutionPayload.map((b) => JSON.stringify(b)),
          fc
            .oneof(fc.integer({ min: -10, max: 4000 }), fc.double(), hostileString)
            .map((d) => JSON.stringify({ days: d })),
          hostileBytes,
        ),
        async (body) => {
          const before = await days()
          const answer = await answerOf('PATCH /api/v1/retention', () =>
            patchRetention(
              new Request(`${BASE}/api/v1/retention`, {
                method: 'PATCH',
                headers: { ...auth(privacyKey), 'content-type': 'application/json' },
                body: new Uint8Array(Buffer.from(body)),
              }),
            ),
          )
          if (answer.status === 200) {
            const sent = JSON.parse(typeof body === 'string' ? body : '') as { days: number }
            expect(Number.isInteger(sent.days) && sent.days >= 1 && sent.days <= 3650).toBe(true)
            expect(await days()).toBe(sent.days)
            return
          }
          expect(answer.status, answer.text.slice(0, 300)).toBe(400)
          expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
          expect(await days()).toBe(before)
        },
      ),
      fuzzRuns(120),
    )
  })

  it('PUT and DELETE /api/v1/sessions/<segment>/pin are 404 Session not found for anything not ours', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileString, fc.uuid()), fc.boolean(), async (id, pinIt) => {
        fc.pre(id.toLowerCase() !== orgSessionId)
        const answer = await answerOf('PUT/DELETE /api/v1/sessions/{id}/pin', () =>
          (pinIt ? putPin : deletePin)(
            new Request(`${BASE}/api/v1/sessions/${inPath(id)}/pin`, {
              method: pinIt ? 'PUT' : 'DELETE',
              headers: auth(privacyKey),
            }),
            { params: Promise.resolve({ sessionId: id }) },
          ),
        )
        expectError(answer, 404, 'Session not found')
      }),
      fuzzRuns(80),
    )
  })
})

// Re-masking (issue 33): hostile bodies answer 202 only for valid rules, else 400 {error}
// with nothing stored; hostile ids are 404.
describe('re-maskings with hostile input', () => {
  let privacyKey: string
  let org: string
  const remaskingCount = async () =>
    (await database.db.select({ n: count() }).from(remaskings).where(eq(remaskings.organizationId, org)))[0]!
      .n
  const postRemasking = (body: string | Uint8Array) =>
    answerOf('POST /api/v1/remaskings', () =>
      postRemaskingRoute(
        new Request(`${BASE}/api/v1/remaskings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${privacyKey}`, 'content-type': 'application/json' },
          body: typeof body === 'string' ? body : new Uint8Array(body),
        }),
      ),
    )

  beforeAll(async () => {
    org = (await createOrganization(database.db, { name: 'Fuzz remask' })).id
    privacyKey = (await createKey(database.db, { organizationId: org, type: 'api', privacy: true })).key
  })

  it('POST answers 202 for valid rules, else 400 {error} with nothing stored', async () => {
    const rule = fc.oneof(
      hostileString,
      fc.constantFrom('.a', 'form > input[type=password]', '@email', '~Secret', 'a:hover', '@nope', '[x^=y]'),
    )
    const remaskBody = fc.record(
      {
        selectors: fc.oneof(fc.array(rule, { maxLength: 25 }), hostileJson),
        patterns: fc.oneof(fc.array(rule, { maxLength: 25 }), hostileJson),
        from: fc.oneof(hostileString, fc.constant('2026-01-01T00:00:00Z')),
        to: hostileString,
        updateRecorder: fc.oneof(fc.boolean(), hostileJson),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          remaskBody.map((b) => JSON.stringify(b)),
          pollutionPayload.map((b) => JSON.stringify(b)),
          hostileBytes,
        ),
        async (body) => {
          const before = await remaskingCount()
          const answer = await postRemasking(body)
          if (answer.status === 202) {
            expect(jsonOf(answer)).toMatchObject({ remasking: { status: 'pending' } })
            expect(await remaskingCount()).toBe(before + 1)
            return
          }
          if (answer.status === 413) {
            expect(jsonOf(answer)).toEqual({ error: TOO_LARGE })
          } else {
            expect(answer.status, answer.text.slice(0, 200)).toBe(400)
            expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
          }
          expect(await remaskingCount()).toBe(before)
        },
      ),
      fuzzRuns(120),
    )
  })

  it('GET /api/v1/remaskings/<segment> is 404 Re-masking not found for anything not ours', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileString, fc.uuid()), async (id) => {
        const answer = await answerOf('GET /api/v1/remaskings/{id}', () =>
          getRemaskingRoute(
            new Request(`${BASE}/api/v1/remaskings/${inPath(id)}`, {
              headers: { authorization: `Bearer ${privacyKey}` },
            }),
            { params: Promise.resolve({ remaskingId: id }) },
          ),
        )
        expect(answer.status).toBe(404)
        expect(jsonOf(answer)).toEqual({ error: 'Re-masking not found' })
      }),
      fuzzRuns(80),
    )
  })
})

// Releases (issue 36): hostile queries, path segments and declarations answer 200/201, a spec
// 400 or 404, and a refused declaration stores nothing.
describe('releases with hostile input', () => {
  let org: string
  let readToken: string
  let releaseKey: string
  const OURS = ['1.0.0', 'build 7/main', 'é-\u{1F600}']
  const auth = (token: string) => ({ authorization: `Bearer ${token}` })
  const releaseRows = async () =>
    (
      await database.db
        .select({ version: releases.version, deployedAt: releases.deployedAt })
        .from(releases)
        .where(eq(releases.organizationId, org))
        .orderBy(asc(releases.version))
    ).map((row) => `${row.version}@${row.deployedAt?.toISOString()}`)

  beforeAll(async () => {
    org = (await createOrganization(database.db, { name: 'Fuzz releases' })).id
    readToken = (await createKey(database.db, { organizationId: org, type: 'api' })).key
    releaseKey = (await createKey(database.db, { organizationId: org, type: 'api', sourcemaps: true })).key
    for (const version of OURS)
      await database.db.insert(releases).values({ organizationId: org, version, semver: false })
    await seedSession(database.db, org, { release: '1.0.0', errorCount: 1 })
  })

  it('GET /api/v1/releases answers a page or 400 {error} to any query', async () => {
    const param = fc.constantFrom('limit', 'cursor', 'other')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, hostileString), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams()
        for (const [name, value] of pairs) query.append(name, value)
        const answer = await answerOf('GET /api/v1/releases', () =>
          getReleasesRoute(new Request(`${BASE}/api/v1/releases?${query}`, { headers: auth(readToken) })),
        )
        if (answer.status === 200) {
          const page = jsonOf(answer) as { releases: { version: string }[]; order: string }
          for (const release of page.releases) expect(OURS).toContain(release.version)
          expect(page.order).toBe('seen')
        } else {
          expect(answer.status, answer.text.slice(0, 300)).toBe(400)
          expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
        }
      }),
      fuzzRuns(120),
    )
  })

  it('GET /api/v1/releases/<segment> is 200 for our releases only, else 404 or 400 for a name no release can have', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileString, fc.constantFrom(...OURS)), async (version) => {
        const answer = await answerOf('GET /api/v1/releases/{version}', () =>
          getReleaseRoute(
            new Request(`${BASE}/api/v1/releases/${inPath(version)}`, { headers: auth(readToken) }),
            { params: Promise.resolve({ version }) },
          ),
        )
        if (OURS.includes(version)) {
          expect(answer.status).toBe(200)
          expect(jsonOf(answer)).toMatchObject({ release: { version } })
        } else if (version.length === 0 || version.length > 200 || !storableText(version)) {
          expect(answer.status, answer.text.slice(0, 300)).toBe(400)
          expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
        } else expectError(answer, 404, 'Release not found')
      }),
      fuzzRuns(120),
    )
  })

  it('POST /api/v1/releases declares only a valid name and deploy time; anything else is 400 and stores nothing', async () => {
    const soon = () => new Date(Date.now() + 60_000).toISOString()
    const declaration = fc.record(
      {
        version: fc.oneof(hostileString, fc.constantFrom('2.0.0', 'main-abc123', '1.0.0'), hostileJson),
        deployedAt: fc.oneof(
          hostileString,
          hostileJson,
          fc.constantFrom('2026-01-01T00:00:00Z', '1999-12-31T23:59:59Z', '2999-01-01T00:00:00Z', 'now'),
          fc.constant(null).map(() => soon()),
        ),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          declaration.map((b) => JSON.stringify(b)),
          pollutionPayload.map((b) => JSON.stringify(b)),
          hostileBytes,
        ),
        async (body) => {
          const before = await releaseRows()
          const answer = await answerOf('POST /api/v1/releases', () =>
            postReleaseRoute(
              new Request(`${BASE}/api/v1/releases`, {
                method: 'POST',
                headers: { ...auth(releaseKey), 'content-type': 'application/json' },
                body: typeof body === 'string' ? body : new Uint8Array(body),
              }),
            ),
          )
          if (answer.status === 200 || answer.status === 201) {
            const sent = JSON.parse(body as string) as { version: string; deployedAt?: string | null }
            expect(typeof sent.version).toBe('string')
            expect(sent.version.length >= 1 && sent.version.length <= 200).toBe(true)
            expect(storableText(sent.version) && !hasControlCharacter(sent.version)).toBe(true)
            expect(jsonOf(answer)).toMatchObject({ release: { version: sent.version } })
            expect(answer.status === 201).toBe(!before.some((row) => row.startsWith(`${sent.version}@`)))
            return
          }
          if (answer.status === 413) expect(jsonOf(answer)).toEqual({ error: TOO_LARGE })
          else {
            expect(answer.status, answer.text.slice(0, 200)).toBe(400)
            expect(jsonOf(answer)).toEqual({ error: expect.any(String) })
          }
          expect(await releaseRows()).toEqual(before)
        },
      ),
      fuzzRuns(120),
    )
  })
})

// Verification by reproduction (issue 36): a run's body and the suite's query, each answered by
// the documented 400 or 404 (never a 500), and nothing stored but a valid run on our issue.
describe('verifications and the reproduction suite with hostile input', () => {
  let verificationKey: string
  const RUN_OBJECT = 'The body must be a JSON object'
  const RUN_STATUS = 'status must be one of: passed, failed'
  const RUN_URL = 'baseUrl must be the http(s) address the reproduction ran against'
  const RUN_URL_LONG = 'baseUrl must be at most 2048 characters'
  const RUN_URL_SCHEME = 'baseUrl must be an http or https address'
  const RUN_URL_CREDENTIALS = 'baseUrl must not contain a user name or password'
  const RUN_RELEASE = 'release must be a string'
  const RUN_RELEASE_EMPTY = 'release must not be empty'
  const RUN_RELEASE_LONG = 'release must be at most 200 characters'
  const RUN_RELEASE_UNSTORABLE =
    'release must not contain NUL characters or broken (unpaired) Unicode surrogates'
  const RUN_SUMMARY = 'summary must be a string'
  const RUN_SUMMARY_LONG = 'summary must be at most 4000 characters'
  const RUN_SUMMARY_UNSTORABLE = 'summary must not contain broken (unpaired) Unicode surrogates'
  const RUN_DURATION = 'durationMs must be an integer from 0 to 86400000'
  const RUN_RUNNER = 'runner must be one of: playwright, agent'
  const SCOPE = 'Missing required scope: write:verifications'

  const runState = async () => {
    const [runs] = await database.db.select({ n: count() }).from(issueVerifications)
    const [events] = await database.db.select({ n: count() }).from(outbox)
    return { ...(await issueState()), runs: Number(runs!.n), events: Number(events!.n) }
  }

  beforeAll(async () => {
    const [issue] = await database.db
      .select({ organizationId: issues.organizationId })
      .from(issues)
      .where(eq(issues.id, issueId))
    verificationKey = (
      await createKey(database.db, {
        organizationId: issue!.organizationId,
        type: 'api',
        verifications: true,
      })
    ).key
  })

  function postRun(segment: string, token: string, body: string | Uint8Array): Promise<Answer> {
    const req = new Request(`${BASE}/api/v1/issues/${inPath(segment)}/verifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Uint8Array(Buffer.from(body)),
    })
    return answerOf('POST verifications', () =>
      postVerificationRoute(req, { params: Promise.resolve({ issueId: segment }) }),
    )
  }

  /** The summary as the issue page shows it: control characters but newline and tab dropped, trimmed. */
  function shownSummary(text: string): string {
    return [...text]
      .filter((ch) => {
        const code = ch.codePointAt(0)!
        return ch === '\n' || ch === '\t' || !(code < 0x20 || (code >= 0x7f && code <= 0x9f))
      })
      .join('')
  }

  type Stored = {
    status: string
    baseUrl: string
    release: string | null
    summary: string | null
    durationMs: number | null
    runner: string
  }

  /** What POST .../verifications must answer: its checks in their order, written apart from the code. */
  function expectedRun(
    body: string | Uint8Array,
    segment: string,
  ): { status: 201; stored: Stored } | { status: number; message: string } {
    const bytes = Buffer.from(body)
    if (bytes.byteLength > 64 * 1024) return { status: 413, message: TOO_LARGE }
    let parsed: unknown
    try {
      parsed = JSON.parse(bytes.toString('utf8'))
    } catch {
      return { status: 400, message: BAD_JSON }
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { status: 400, message: RUN_OBJECT }
    const own = (name: string) =>
      Object.hasOwn(parsed as object, name) ? (parsed as Record<string, unknown>)[name] : undefined
    const [status, baseUrl, release, summary, durationMs] = [
      own('status'),
      own('baseUrl'),
      own('release'),
      own('summary'),
      own('durationMs'),
    ]
    const runner = own('runner') ?? 'playwright'
    const refuse = (message: string) => ({ status: 400, message })
    if (status !== 'passed' && status !== 'failed') return refuse(RUN_STATUS)
    if (typeof baseUrl !== 'string') return refuse(RUN_URL)
    if (baseUrl.length > 2048) return refuse(RUN_URL_LONG)
    let url: URL | null = null
    try {
      url = new URL(baseUrl)
    } catch {}
    if (!url || !['http:', 'https:'].includes(url.protocol)) return refuse(RUN_URL_SCHEME)
    if (url.username || url.password) return refuse(RUN_URL_CREDENTIALS)
    if (release !== undefined && release !== null) {
      if (typeof release !== 'string') return refuse(RUN_RELEASE)
      if (release === '') return refuse(RUN_RELEASE_EMPTY)
      if (release.length > 200) return refuse(RUN_RELEASE_LONG)
      if (!storableText(release)) return refuse(RUN_RELEASE_UNSTORABLE)
    }
    if (summary !== undefined && summary !== null) {
      if (typeof summary !== 'string') return refuse(RUN_SUMMARY)
      if ([...summary].length > 4000) return refuse(RUN_SUMMARY_LONG)
      if (!storableText(shownSummary(summary))) return refuse(RUN_SUMMARY_UNSTORABLE)
    }
    if (
      durationMs !== undefined &&
      durationMs !== null &&
      !(
        typeof durationMs === 'number' &&
        Number.isInteger(durationMs) &&
        durationMs >= 0 &&
        durationMs <= 86_400_000
      )
    )
      return refuse(RUN_DURATION)
    if (runner !== 'playwright' && runner !== 'agent') return refuse(RUN_RUNNER)
    if (!namesOurIssue(segment)) return { status: 404, message: NOT_FOUND }
    const shown = typeof summary === 'string' ? shownSummary(summary).trim() : ''
    return {
      status: 201,
      stored: {
        status,
        baseUrl,
        release: (release as string | null | undefined) ?? null,
        summary: shown === '' ? null : shown,
        durationMs: (durationMs as number | null | undefined) ?? null,
        runner,
      },
    }
  }

  const runBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
    hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
    fc
      .record(
        {
          status: fc.oneof(fc.constantFrom('passed', 'failed', 'PASSED', 'ok'), hostileJson),
          baseUrl: fc.oneof(
            fc.constantFrom(
              'https://preview.example.com',
              'http://127.0.0.1:3000/app?x=1#y',
              'https://user:secret@preview.example.com',
              'https://:secret@preview.example.com',
              'javascript:alert(1)',
              'ftp://preview.example.com',
              '//preview.example.com',
              'preview.example.com',
              `https://example.com/${'a'.repeat(2030)}`,
              `https://example.com/${'a'.repeat(2029)}`,
              'https://exa\u0000mple.com',
            ),
            hostileString,
            hostileJson,
          ),
          release: fc.oneof(
            fc.constantFrom(
              KNOWN_RELEASE,
              '9.9.9',
              '',
              'x'.repeat(200),
              'x'.repeat(201),
              '1.0\u0000',
              '\ud800',
            ),
            hostileString,
            hostileJson,
          ),
          summary: fc.oneof(
            hostileString,
            hostileJson,
            fc.constantFrom(
              '\u001b[31mError\u001b[0m: expected\r\n\tline 2\u0000',
              '\u0085\u009f  ',
              '\ud800 after',
              '<img src=x onerror=alert(1)> https://evil.example.com',
            ),
            fc
              .tuple(fc.constantFrom('x', '😀', '\u0000', '\u001b'), fc.integer({ min: 3995, max: 4005 }))
              .map(([unit, n]) => unit.repeat(n)),
          ),
          durationMs: fc.oneof(fc.constantFrom(0, -0, 1, 86_400_000, 86_400_001, -1, 1.5, 1e21), hostileJson),
          runner: fc.oneof(fc.constantFrom('playwright', 'agent', 'cypress', null), hostileJson),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .tuple(fc.constantFrom('passed', 'failed'), pollutionPayload)
      .map(([status, pollution]) =>
        JSON.stringify(
          ownEntries([
            ['status', status],
            ['baseUrl', 'https://preview.example.com'],
            ...Object.entries(pollution),
          ]),
        ),
      ),
    fc.constant('{"__proto__":{"status":"passed","baseUrl":"https://preview.example.com"}}'),
    hostileBytes,
    fc.constantFrom(...NASTY_STRINGS),
    fc.constantFrom(deeplyNested(10_000), `{"status":"passed","baseUrl":${deeplyNested(10_000)}}`),
  )

  it('POST /api/v1/issues/<segment>/verifications: 201 for a valid run on our issue, else the check that fails, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(runBody, issueIdSegment, async (body, segment) => {
        const before = await runState()
        const answer = await postRun(segment, verificationKey, body)
        const expected = expectedRun(body, segment)
        if (expected.status === 201) {
          const { stored } = expected as { stored: Stored }
          expect(answer.status, answer.text.slice(0, 300)).toBe(201)
          expect((jsonOf(answer) as { verification: Stored }).verification).toMatchObject(stored)
          expect(await runState()).toEqual({
            ...before,
            history: before.history + 1,
            runs: before.runs + 1,
            events: before.events + (stored.status === 'passed' ? 1 : 0),
          })
        } else {
          expectError(answer, expected.status, (expected as { message: string }).message)
          expect(await runState()).toEqual(before)
        }
      }),
      {
        ...fuzzRuns(200),
        examples: [
          [JSON.stringify({ status: 'passed', baseUrl: 'https://preview.example.com' }), issueId],
          [JSON.stringify({ status: 'failed', baseUrl: 'https://preview.example.com' }), foreignIssueId],
          [
            JSON.stringify({ status: 'failed', baseUrl: 'https://a.example', summary: '\u0000\ud800' }),
            issueId,
          ],
          [`{"status":"passed","baseUrl":"https://a.example","summary":"${'x'.repeat(70_000)}"}`, issueId],
        ],
      },
    )
  })

  it('keys without write:verifications are refused whatever the body, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        runBody,
        issueIdSegment,
        fc.constantFrom(
          () => readKey,
          () => writeKey,
          () => oauthToken,
        ),
        async (body, segment, token) => {
          const before = await runState()
          const answer = await postRun(segment, token(), body)
          expectError(answer, 403, SCOPE)
          expect(await runState()).toEqual(before)
        },
      ),
      fuzzRuns(60),
    )
  })

  const BUNDLE_NAMES = ['status', 'release', 'limit', 'format'] as const
  const bundleValue = (name: (typeof BUNDLE_NAMES)[number]): fc.Arbitrary<string> =>
    fc.oneof(
      hostileString,
      name === 'status'
        ? fc.constantFrom(...ISSUE_STATUSES, 'Resolved', 'open')
        : name === 'release'
          ? fc.constantFrom(KNOWN_RELEASE, '9.9.9', '', 'x'.repeat(201), '1.0.0\u0000', '%00')
          : name === 'limit'
            ? fc.constantFrom('1', '100', '101', '0', '01', '5.0', ' 5', '١')
            : fc.constantFrom('json', 'tgz', 'JSON', 'zip', ''),
    )
  const bundleQuery: fc.Arbitrary<string> = fc
    .array(
      fc.oneof(
        fc
          .constantFrom(...BUNDLE_NAMES)
          .chain((name) => bundleValue(name).map((value) => new URLSearchParams([[name, value]]).toString())),
        fc.constantFrom('release=%00', 'release=%ff', 'format', '%', '&&', 'limit=%00', 'status=%zz'),
      ),
      { maxLength: 5 },
    )
    .map((parts) => parts.join('&'))

  /** What GET /api/v1/reproductions must answer: format, then status, release, limit, then whether the release exists. */
  function expectedBundle(query: string): { status: 200; format: string } | { status: 400; message: string } {
    const params = new URL(`${BASE}/api/v1/reproductions?${query}`).searchParams
    const format = params.get('format') ?? 'json'
    if (format !== 'json' && format !== 'tgz')
      return { status: 400, message: 'format must be one of: json, tgz' }
    const status = params.get('status')
    if (status !== null && !(ISSUE_STATUSES as readonly string[]).includes(status))
      return { status: 400, message: INVALID_STATUS }
    const release = params.get('release')
    if (release !== null && (release.length < 1 || release.length > 200))
      return { status: 400, message: 'release must be 1 to 200 characters' }
    if (release !== null && !storableText(release)) return { status: 400, message: RUN_RELEASE_UNSTORABLE }
    const limit = params.get('limit')
    if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 100))
      return { status: 400, message: limitMessage(100) }
    if (release !== null && release !== KNOWN_RELEASE)
      return { status: 400, message: unknownBundleRelease(release) }
    return { status: 200, format }
  }

  it('GET /api/v1/reproductions answers our suite or the 400 its checks give, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(bundleQuery, async (query) => {
        const answer = await answerOf('GET /api/v1/reproductions', () =>
          getReproductionsRoute(
            new Request(`${BASE}/api/v1/reproductions?${query}`, {
              headers: { authorization: `Bearer ${readKey}` },
            }),
          ),
        )
        const expected = expectedBundle(query)
        if (expected.status === 400) {
          expectError(answer, 400, expected.message)
          return
        }
        expect(answer.status, answer.text.slice(0, 300)).toBe(200)
        if (expected.format === 'tgz') {
          expect(answer.headers.get('content-type')).toBe('application/gzip')
          return
        }
        const { bundle } = jsonOf(answer) as { bundle: { issues: { issueId: string; status: string }[] } }
        const status = new URL(`${BASE}/x?${query}`).searchParams.get('status') ?? 'resolved'
        for (const issue of bundle.issues) {
          expect(issue.issueId).not.toBe(foreignIssueId)
          expect(issue.status).toBe(status)
        }
      }),
      {
        ...fuzzRuns(150),
        examples: [['release=%00'], ['release=1.0.0%00'], ['status=resolved&release=1.0.0&format=tgz']],
      },
    )
  })
})
