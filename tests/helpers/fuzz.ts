import Module, { createRequire } from 'node:module'
import { sql } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import fc from 'fast-check'
import { afterEach, beforeEach, expect, type MockInstance, vi } from 'vitest'
import type { Db } from '@/db/client'
import * as schema from '@/db/schema'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'
import { logger } from '@/lib/log'
import type { RateLimiter } from '@/lib/ratelimit'

/**
 * Shared pieces of the hostile-input suites (tests/integration/fuzz.*.test.ts): seeded
 * fast-check settings, a per-request deadline, hostile strings, keys, JSON values and bytes,
 * and database snapshots to prove that a rejected request wrote nothing.
 */

/** One fixed seed for every property, so a failure replays exactly; numRuns keeps each file fast. */
export const FUZZ_SEED = 0x5eed_f00d

export function fuzzRuns(numRuns: number): { seed: number; numRuns: number } {
  return { seed: FUZZ_SEED, numRuns }
}

/**
 * Far above what any of these requests needs (a few ms on PGlite), so it only ever fires on a
 * request that never settles: it is a hang detector, not a timing assertion.
 */
const REQUEST_DEADLINE_MS = 10_000

/** Resolves with the promise, or rejects naming `label` when it has not settled in time. */
export async function withDeadline<T>(label: string, work: Promise<T>, ms = REQUEST_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not settle within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

export interface Answer {
  status: number
  headers: Headers
  text: string
}

/** Runs a handler and reads its whole answer, both within the deadline. */
export function answerOf(label: string, call: () => Promise<Response> | Response): Promise<Answer> {
  return withDeadline(
    label,
    (async () => {
      const response = await call()
      return { status: response.status, headers: response.headers, text: await response.text() }
    })(),
  )
}

/** A JSON body, or a description of why it is not one (for readable assertion failures). */
export function jsonOf(answer: Answer): unknown {
  try {
    return JSON.parse(answer.text)
  } catch {
    return { notJson: answer.text.slice(0, 200) }
  }
}

/**
 * A limiter that lets everything through: the fuzz suites send hundreds of requests per
 * credential and must reach the validation behind the limit, not the 429.
 */
export const allowAllRateLimiter: RateLimiter = {
  kind: 'memory',
  limit: async (rule) => ({
    success: true,
    limit: rule.limit,
    remaining: rule.limit,
    reset: Date.now() + rule.windowSeconds * 1000,
    retryAfterSeconds: 0,
  }),
}

/**
 * Every surface logs a failure it did not expect (the cause of a 500, an internal tool error)
 * at error level: for the tests of the calling file, none may be logged. The spy is removed
 * before the check, so one failing test does not leak into the next.
 */
export function forbidErrorLogs(): void {
  let spy: MockInstance | undefined
  beforeEach(() => {
    spy = vi.spyOn(logger, 'error')
  })
  afterEach(() => {
    const logged = (spy?.mock.calls ?? []).map((call) =>
      call
        .map((part) =>
          String(
            part instanceof Error
              ? part.message
              : typeof part === 'string'
                ? part
                : JSON.stringify(part, (_k, v) => (v instanceof Error ? v.message : v)),
          ),
        )
        .join(' '),
    )
    spy?.mockRestore()
    spy = undefined
    expect(logged).toEqual([])
  })
}

// ---------------------------------------------------------------------------------------
// Hostile strings and keys

/** Keys that pollute prototypes when code merges parsed JSON into plain objects. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const

/** Property names a pollution attempt would plant on Object.prototype. */
const POLLUTION_MARKERS = ['polluted', 'isAdmin', 'organizationId', 'scopes'] as const

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort()

/** Throws when anything was planted on Object.prototype (or Array.prototype) since start-up. */
export function assertPrototypesClean(): void {
  const now = Object.getOwnPropertyNames(Object.prototype).sort()
  if (JSON.stringify(now) !== JSON.stringify(PROTOTYPE_NAMES))
    throw new Error(`Object.prototype was polluted: ${now.filter((n) => !PROTOTYPE_NAMES.includes(n))}`)
  const probe: Record<string, unknown> = {}
  for (const marker of POLLUTION_MARKERS)
    if (marker in probe || marker in []) throw new Error(`a prototype now carries "${marker}"`)
}

/** C0 controls and DEL: never in a URI, a header value we build, or a redirect target. */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

/** Strings that broke parsers, databases, headers or HTML somewhere before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\r\n',
  'x\r\nSet-Cookie: pwned=1',
  '\t',
  '\u2028\u2029',
  '\ufeff',
  '\uffff',
  '\ud83d\ude00',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '0x1f',
  '[]',
  '{}',
  '"',
  "'",
  '\\',
  '%',
  '%00',
  '%0d%0a',
  '%ff',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR '1'='1' --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, literally.
  '${7*7}',
  '{{7*7}}',
  'javascript:alert(1)',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
] as const

/** Unpaired UTF-16 halves: JSON can carry them (`"\ud800"`), UTF-8 cannot. */
const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800'] as const

/** A string from anywhere in Unicode, biased towards the nasty ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 20 }) },
  // Long and incompressible: past any index size limit (Postgres compresses repetitive keys).
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 2_000, maxLength: 6_000 })
      .map((bytes) => Buffer.from(bytes).toString('base64')),
  },
  // Long enough to pass any column limit that is not enforced in code.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '\u{1F600}', 'x\u0000'), fc.integer({ min: 256, max: 12_000 }))
      .map(([unit, times]) => unit.repeat(times)),
  },
)

/** An object key: a prototype key or a marker often, otherwise any string. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, ...POLLUTION_MARKERS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
)

/**
 * An object built with CreateDataProperty (Object.fromEntries), so a `__proto__` entry is an
 * own property and JSON.stringify writes it as a key: what JSON.parse hands the server.
 */
export function ownEntries(entries: [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(entries)
}

/** A pollution payload: `{"__proto__": {"polluted": ...}}` and its `constructor.prototype` twin. */
export const pollutionPayload: fc.Arbitrary<Record<string, unknown>> = fc
  .constantFrom(...POLLUTION_MARKERS)
  .chain((marker) =>
    fc.constantFrom(
      ownEntries([['__proto__', ownEntries([[marker, 'yes']])]]),
      ownEntries([['constructor', ownEntries([['prototype', ownEntries([[marker, 'yes']])]])]]),
      ownEntries([['prototype', ownEntries([[marker, 'yes']])]]),
    ),
  )

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    -1,
    1.5,
    2 ** 31,
    2 ** 53 + 2,
    -(2 ** 63),
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
)

/** Any JSON value, small but nasty: hostile strings and keys at every level. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map(ownEntries),
    pollutionPayload,
  ),
})).value

/**
 * Deep nesting as JSON text: `[[[...]]]` or `{"a":{"a":...}}`. Built as a string, because
 * JSON.stringify of such a value would itself overflow the stack.
 */
export function deeplyNested(depth: number, kind: 'array' | 'object' = 'array', leaf = '1'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`
}

/** Byte sequences that are not UTF-8: stray continuation bytes, overlongs, surrogates, cut-offs. */
const INVALID_UTF8_SNIPPETS: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
]

export interface Utf8Damage {
  bytes: number[]
  /** Where to splice them in, as a fraction of the text's length. */
  at: number
}

/** Invalid UTF-8 and a place to put it (see spliceBytes). */
export const utf8Damage: fc.Arbitrary<Utf8Damage> = fc.record({
  bytes: fc.constantFrom(...INVALID_UTF8_SNIPPETS),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
})

/** The UTF-8 of `text` with the damage spliced in. */
export function spliceBytes(text: string, damage: Utf8Damage): Uint8Array {
  const bytes = Buffer.from(text)
  const cut = Math.floor(bytes.length * damage.at)
  return new Uint8Array(
    Buffer.concat([bytes.subarray(0, cut), Buffer.from(damage.bytes), bytes.subarray(cut)]),
  )
}

/** Arbitrary bytes, sometimes looking like gzip (magic number) to reach the decoder. */
export const hostileBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  fc.uint8Array({ maxLength: 256 }).map((b) => new Uint8Array([0x1f, 0x8b, 0x08, 0x00, ...b])),
)

/**
 * A header value `Headers` accepts: no CR, LF or NUL (the Fetch spec refuses those), but any
 * other control character, Latin-1 and leading or trailing whitespace (which it trims).
 */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(fc.integer({ min: 0x01, max: 0xff }), { maxLength: 80 })
    .map((codes) => String.fromCharCode(...codes.filter((c) => c !== 0x0a && c !== 0x0d))),
  fc.constantFrom('Bearer', 'Bearer ', 'bearer  x', 'Basic Og==', 'Bearer \u0001svc_api_x', 'Bearer a b'),
)

// ---------------------------------------------------------------------------------------
// Bodies that never end

export interface EndlessBody {
  stream: ReadableStream<Uint8Array>
  /** Bytes the reader pulled so far. */
  pulled(): number
  /** Whether the reader cancelled the stream (stopped reading on purpose). */
  cancelled(): boolean
}

/** A request body that produces `chunk` bytes for as long as anyone reads it. */
export function endlessBody(chunkBytes = 64 * 1024, fill = 0x20): EndlessBody {
  let pulled = 0
  let cancelled = false
  const chunk = new Uint8Array(chunkBytes).fill(fill)
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength
      controller.enqueue(chunk)
    },
    cancel() {
      cancelled = true
    },
  })
  return { stream, pulled: () => pulled, cancelled: () => cancelled }
}

/** RequestInit for a streamed body (Node's fetch needs `duplex: 'half'`, absent from the DOM types). */
export function streamingInit(init: RequestInit & { body: ReadableStream<Uint8Array> }): RequestInit {
  return { ...init, duplex: 'half' } as RequestInit
}

// ---------------------------------------------------------------------------------------
// Database snapshots

const TABLES = {
  organizations: schema.organizations,
  users: schema.users,
  memberships: schema.memberships,
  invitations: schema.invitations,
  credentials: schema.credentials,
  replaySessions: schema.replaySessions,
  replayBatches: schema.replayBatches,
  issues: schema.issues,
  issueSessions: schema.issueSessions,
  issueActivities: schema.issueActivities,
  signals: schema.signals,
  signalMatches: schema.signalMatches,
  insights: schema.insights,
  outbox: schema.outbox,
  jobRuns: schema.jobRuns,
  oauthClients: schema.oauthClients,
  oauthConsents: schema.oauthConsents,
  oauthAuthorizationCodes: schema.oauthAuthorizationCodes,
  oauthTokenChains: schema.oauthTokenChains,
  oauthAccessTokens: schema.oauthAccessTokens,
  oauthRefreshTokens: schema.oauthRefreshTokens,
  webhookEndpoints: schema.webhookEndpoints,
  webhookDeliveries: schema.webhookDeliveries,
  webhookDeliveryAttempts: schema.webhookDeliveryAttempts,
} satisfies Record<string, PgTable>

export type TableName = keyof typeof TABLES

/** The tables the OAuth server writes. */
export const OAUTH_TABLES: readonly TableName[] = [
  'oauthClients',
  'oauthConsents',
  'oauthAuthorizationCodes',
  'oauthTokenChains',
  'oauthAccessTokens',
  'oauthRefreshTokens',
]

/** The tables ingest writes (and processing would, were it started). */
export const INGEST_TABLES: readonly TableName[] = [
  'replaySessions',
  'replayBatches',
  'outbox',
  'jobRuns',
  'issues',
]

/**
 * Row counts of every table (or of the named ones): equal before and after a rejected
 * request means nothing was written. One statement for all of them: the fuzz suites count
 * before and after every run, and a query each was 48 round trips a run.
 */
export async function rowCounts(
  db: Db,
  tables: readonly TableName[] = Object.keys(TABLES) as TableName[],
): Promise<Record<TableName, number>> {
  const parts = tables.map(
    (name) => sql`select ${name}::text as name, count(*)::int as n from ${TABLES[name]}`,
  )
  const result = await db.execute(sql.join(parts, sql` union all `))
  // postgres.js answers the rows, PGlite an object holding them.
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    name: TableName
    n: number
  }[]
  const counts = Object.fromEntries(rows.map((row) => [row.name, Number(row.n)])) as Record<TableName, number>
  // In the order asked for, as before: a failing toEqual then lists the tables the same way.
  return Object.fromEntries(tables.map((name) => [name, counts[name]])) as Record<TableName, number>
}

/**
 * One digest per table: its row count and the newest transaction that wrote one of its rows
 * (every insert or update leaves a row version stamped with its transaction's id, `xmin`, and
 * ids only grow). Equal before and after a refused call means the call inserted, updated (even
 * to the same values) or deleted no row, which row counts alone cannot show for updates such as
 * a revocation or a rename. Reads only row headers: an md5 of every row's text read and sorted
 * every large value again on each of the thousands of calls a fuzz file makes.
 */
export async function tableDigests(
  db: Db,
  tables: readonly TableName[] = Object.keys(TABLES) as TableName[],
): Promise<Record<TableName, string>> {
  const parts = tables.map(
    (name) =>
      sql`select ${name}::text as name, count(*)::text || ':' || coalesce(max(t.xmin::text::bigint), 0)::text as digest from ${TABLES[name]} t`,
  )
  const result = await db.execute(sql.join(parts, sql` union all `))
  // postgres.js answers the rows, PGlite an object holding them.
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    name: TableName
    digest: string
  }[]
  return Object.fromEntries(rows.map((row) => [row.name, row.digest])) as Record<TableName, string>
}

// ---------------------------------------------------------------------------------------
// Server actions: arguments as Next hands them over

/**
 * Longer than Next's default 1 MB body limit for server actions: what an action meets if that
 * limit is raised. Form fields carry it to the action (React's limit on the characters in an
 * array's slots does not count them). Built by repetition, so generating one is cheap.
 */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('a', ' ', 'é', '\u{1F600}', '\u0000', '\ud800', 'a\r\n', '%'),
    fc.integer({ min: 1_048_577, max: 1_100_000 }),
  )
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)))

/**
 * Long, but two of them stay under the 1,000,000 characters React's decodeReply accepts across
 * the slots of one array (the argument list included): more than that never reaches an action,
 * decodeReply refuses the request first. Form fields are not counted (see hugeString).
 */
export const largeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', ' ', '\u{1F600}', '\u0000', '9'), fc.integer({ min: 100_000, max: 400_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)))

/** Objects that break `String(value)` and template literals: their toString/valueOf are no functions. */
const primitiveTrap: fc.Arbitrary<Record<string, unknown>> = fc
  .subarray(['toString', 'valueOf', 'toJSON'], { minLength: 1 })
  .chain((keys) =>
    fc
      .array(fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 4 })), {
        minLength: keys.length,
        maxLength: keys.length,
      })
      .map((values) => ownEntries(keys.map((key, i) => [key, values[i]]))),
  )

/** A file where text belongs: what a multipart form or an encoded FormData argument can carry. */
const hostileFile: fc.Arbitrary<File> = fc
  .tuple(fc.uint8Array({ maxLength: 64 }), fc.constantFrom('a.txt', '', '../../x', '\u0000.png', 'name'))
  .map(([bytes, name]) => new File([bytes], name, { type: 'application/octet-stream' }))

/**
 * Every kind of value React's decodeReply can hand a server action: hostile strings (huge ones
 * too), numbers far out of range, bigints, dates, arrays, objects with prototype keys or
 * toString traps, maps, sets, files and forms.
 */
export const actionArgument: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileJson },
  { weight: 1, arbitrary: largeString },
  { weight: 2, arbitrary: primitiveTrap },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -0,
      -1,
      2 ** 64,
      1e308,
      -(2n ** 200n),
      10n ** 30n,
    ),
  },
  { weight: 1, arbitrary: fc.bigInt() },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: false }) },
  { weight: 1, arbitrary: hostileFile },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }).map((values) => new Set(values)) },
  {
    weight: 1,
    arbitrary: fc.array(fc.tuple(hostileKey, hostileString), { maxLength: 3 }).map((pairs) => new Map(pairs)),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(hostileKey, fc.oneof(hostileString, hostileFile)), { maxLength: 3 })
      .map((pairs) => {
        const form = new FormData()
        for (const [key, value] of pairs) form.append(key, value)
        return form
      }),
  },
)

/**
 * Ids nobody should find: malformed, SQL-ish, almost-UUIDs, UUIDs of nothing, any of `foreign`
 * (ids that exist in another organization) and values that are not strings at all.
 */
export function hostileId(foreign: readonly string[] = []): fc.Arbitrary<unknown> {
  const almost = fc
    .uuid()
    .chain((uuid) =>
      fc.constantFrom(
        ` ${uuid}`,
        `${uuid}\u0000`,
        `${uuid}'`,
        `{${uuid}}`,
        uuid.replaceAll('-', ''),
        `${uuid}' OR '1'='1`,
        `${uuid.slice(0, -1)}g`,
        `${uuid},${uuid}`,
      ),
    )
  return fc.oneof(
    { weight: 3, arbitrary: fc.uuid() },
    ...(foreign.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...foreign) }] : []),
    { weight: 2, arbitrary: almost },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "' OR 1=1 --",
        "1'; drop table users; --",
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '*',
        '%',
        '%25',
        '_',
        '$1',
        '1e309',
        '-1',
        '9'.repeat(400),
      ),
    },
    { weight: 2, arbitrary: hostileString },
    { weight: 2, arbitrary: actionArgument },
  )
}

/** A form field as a browser or a hostile client may send it: text, absent, a file, or repeated. */
export type FormValue = string | File | (string | File)[] | undefined

export function formValue(text: fc.Arbitrary<string>): fc.Arbitrary<FormValue> {
  return fc.oneof(
    { weight: 8, arbitrary: text },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: hostileFile },
    { weight: 1, arbitrary: fc.array(fc.oneof(text, hostileFile), { minLength: 2, maxLength: 3 }) },
  )
}

/** A FormData with the given fields (absent ones left out) and hostile extra entries. */
export function formDataOf(
  fields: Record<string, FormValue>,
  extra: readonly [string, string][] = [],
): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one)
  }
  for (const [name, value] of extra) form.append(name, value)
  return form
}

/** Extra form entries no action expects: prototype keys, pollution markers, React's own prefixes. */
export const extraFormEntries: fc.Arbitrary<[string, string][]> = fc.array(
  fc.tuple(
    fc.oneof(hostileKey, fc.constantFrom('$ACTION_ID_0', '$ACTION_REF_1', '$ACTION_KEY', '_1_name', '0')),
    hostileString,
  ),
  { maxLength: 3 },
)

/** The text an action should read from a form field: a string as sent, otherwise nothing. */
export function sentText(form: unknown, name: string): string | undefined {
  if (!(form instanceof FormData)) return undefined
  const value = form.get(name)
  return value === null ? undefined : typeof value === 'string' ? value : ''
}

interface ReplyClient {
  encodeReply(value: unknown): Promise<string | FormData>
}
interface ReplyServer {
  decodeReply(body: string | FormData, manifest: Record<string, never>): Promise<unknown>
}

let replyCodec: { client: ReplyClient; server: ReplyServer } | undefined

/**
 * React's own reply codec, as Next ships it: the browser encodes a server action's arguments
 * with encodeReply, Next decodes the request body with decodeReply and calls the action with
 * the result. The server half refuses to load without React's server build (Next selects it
 * with the `react-server` condition), so `react` points there while it loads.
 */
function loadReplyCodec(): { client: ReplyClient; server: ReplyServer } {
  if (replyCodec) return replyCodec
  const require = createRequire(import.meta.url)
  const loader = Module as unknown as {
    _load(request: string, parent: unknown, isMain: boolean): unknown
  }
  const load = loader._load
  loader._load = function (request, parent, isMain) {
    const serverBuild =
      request === 'react' || request === 'next/dist/compiled/react'
        ? 'next/dist/compiled/react/react.react-server.js'
        : request === 'react-dom'
          ? 'next/dist/compiled/react-dom/react-dom.react-server.js'
          : request
    return load.call(this, serverBuild, parent, isMain)
  }
  try {
    // Production builds, as `next start` runs them (the development ones add console warnings).
    const server =
      require('next/dist/compiled/react-server-dom-webpack/cjs/react-server-dom-webpack-server.node.production.js') as ReplyServer
    loader._load = load
    const client =
      require('next/dist/compiled/react-server-dom-webpack/cjs/react-server-dom-webpack-client.node.production.js') as ReplyClient
    replyCodec = { client, server }
    return replyCodec
  } finally {
    loader._load = load
  }
}

/** The arguments exactly as a server action receives them when a client sends `args`. */
export async function asActionReceives(args: readonly unknown[]): Promise<unknown[]> {
  const { client, server } = loadReplyCodec()
  const decoded = await server.decodeReply(await client.encodeReply([...args]), {})
  if (!Array.isArray(decoded)) throw new Error('decodeReply did not answer the argument list')
  return decoded
}

// ---------------------------------------------------------------------------------------
// Next's request scope

interface AsyncStorage<T> {
  run<R>(store: T, callback: () => R): R
}

/**
 * Runs `handler` inside the request scope Next opens for a route handler, so `headers()` and
 * `cookies()` from next/headers answer this request's. For code that reaches next/headers
 * through require() (next-auth), which vi.mock cannot replace. Next's stores exist only when
 * `globalThis.AsyncLocalStorage` was set before its modules loaded (Next's server sets it at
 * start-up): the calling file does that in vi.hoisted.
 */
export function inNextRequest<T>(request: Request & { nextUrl: URL }, route: string, handler: () => T): T {
  const require = createRequire(import.meta.url)
  const { workAsyncStorage } = require('next/dist/server/app-render/work-async-storage.external.js') as {
    workAsyncStorage: AsyncStorage<object>
  }
  const { workUnitAsyncStorage } =
    require('next/dist/server/app-render/work-unit-async-storage.external.js') as {
      workUnitAsyncStorage: AsyncStorage<object>
    }
  const { createRequestStoreForAPI } = require('next/dist/server/async-storage/request-store.js') as {
    createRequestStoreForAPI(
      req: Request,
      url: URL,
      implicitTags: undefined,
      onUpdateCookies: () => void,
      previewProps: undefined,
    ): object
  }
  const workStore = { route, page: `${route}/route`, forceStatic: false, dynamicShouldError: false }
  const requestStore = createRequestStoreForAPI(request, request.nextUrl, undefined, () => {}, undefined)
  return workAsyncStorage.run(workStore, () => workUnitAsyncStorage.run(requestStore, handler))
}

/**
 * Whether Postgres stores the text as it is (the oracle of the suites, written apart from the
 * code under test): no NUL, which a text column refuses, and no unpaired UTF-16 surrogate,
 * which jsonb refuses and a text column silently turns into U+FFFD.
 */
export function storableText(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i)
    if (unit === 0) return false
    if (unit >= 0xdc00 && unit <= 0xdfff) return false
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false
      i++
    }
  }
  return true
}

// ---------------------------------------------------------------------------------------
// Redirect targets

/** Pieces open-redirect attempts combine: schemes, slashes, backslashes, dot segments, encodings, CR/LF. */
const REDIRECT_PIECES = [
  '/',
  '//',
  '\\',
  '/\\',
  '.',
  '..',
  '/../',
  '%2f',
  '%5c',
  '%2e%2e',
  '%0d%0a',
  '\r\n',
  '\t',
  ' ',
  '\uff0f',
  '@',
  ':',
  '?',
  '#',
  'evil.example',
  'javascript:',
  'data:text/html,',
  'https://evil.example',
  'http://localhost:3000',
  'http://localhost:3000.evil.example',
  'http://localhost:3000@evil.example',
  'issues',
  'Set-Cookie: pwned=1',
] as const

/** A `callbackUrl` (or any redirect target a client names): pieces glued together, or anything. */
export const hostileCallbackUrl: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.constantFrom(...REDIRECT_PIECES), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
)

/**
 * A short, printable rendering of any value an action may receive, for assertion messages:
 * JSON.stringify throws on bigints and String() on objects whose toString is no function.
 */
export function preview(value: unknown, max = 300): string {
  const seen = new WeakSet<object>()
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `${item}n`
    if (item instanceof File) return `File(${item.name}, ${item.size} bytes)`
    if (item instanceof Map) return { Map: [...item.entries()] }
    if (item instanceof Set) return { Set: [...item.values()] }
    if (item instanceof FormData) return { FormData: [...item.entries()] }
    if (typeof item === 'object' && item !== null) {
      if (seen.has(item)) return '[circular]'
      seen.add(item)
    }
    return item
  })
  return (text ?? String(typeof value)).slice(0, max)
}

// ---------------------------------------------------------------------------------------
// Long strings in replay events (issue 14)

/**
 * Repeated units that made backtracking patterns quadratic: letters with no `@`, `a.` pairs,
 * `@` signs, spaces, braces, `at (` and `:1:1` of stack lines, slashes, query marks, newlines.
 */
const PATHOLOGICAL_UNITS = [
  'a',
  'a.',
  '@',
  'a@',
  ' ',
  '\t',
  '\n',
  '{',
  '}{',
  'at (',
  ' (',
  ':1',
  ':1:1 ',
  '(',
  ':a(',
  '/',
  '?#',
  ';color:',
  'cursor: pointer;',
  'é',
  '\u{1F600}',
] as const

/** Up to about 1 MB: one unit repeated, two shapes glued, or a short hostile string. */
const longString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...PATHOLOGICAL_UNITS), fc.integer({ min: 1, max: 1_000_000 }))
      .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length))),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...PATHOLOGICAL_UNITS),
        fc.constantFrom(...PATHOLOGICAL_UNITS),
        fc.integer({ min: 1, max: 300_000 }),
      )
      .map(([a, b, times]) => `${a.repeat(times)}${b.repeat(times)}x`),
  },
  { weight: 1, arbitrary: hostileString },
)

/** The string fields the analyser reads, each long or hostile (see replayEventsWith). */
export interface ReplayStrings {
  href: string
  tag: string
  className: string
  id: string
  style: string
  ariaLabel: string
  text: string
  css: string
  rule: string
  styleProp: string
  consoleArg: string
  trace: string[]
  errorType: string
  errorMessage: string
  stack: string
  mechanism: string
  requestUrl: string
  method: string
  requestError: string
  statusText: string
}

export const replayStrings: fc.Arbitrary<ReplayStrings> = fc.record({
  href: longString,
  tag: longString,
  className: longString,
  id: longString,
  style: longString,
  ariaLabel: longString,
  text: longString,
  css: longString,
  rule: longString,
  styleProp: longString,
  consoleArg: longString,
  trace: fc.oneof(
    fc.array(longString, { maxLength: 3 }),
    fc
      .tuple(fc.constantFrom(...PATHOLOGICAL_UNITS), fc.integer({ min: 1, max: 10_000 }))
      .map(([unit, count]) => Array.from({ length: count }, (_, i) => `at ${unit}${i} (${unit}:1:1)`)),
  ),
  errorType: longString,
  errorMessage: longString,
  stack: longString,
  mechanism: longString,
  requestUrl: longString,
  method: longString,
  requestError: longString,
  statusText: longString,
})

/**
 * One session putting each string wherever the analyser reads one: page and navigation URLs,
 * tag, attributes, text and CSS of the snapshot, mutations, a StyleSheetRule insert, console
 * errors (uncaught and not), an SDK error and a failed request; clicks on the element.
 */
export function replayEventsWith(s: ReplayStrings): RrwebEvent[] {
  const element = el(10, s.tag, { class: s.className, id: s.id, style: s.style, 'aria-label': s.ariaLabel }, [
    txt(11, s.text),
  ])
  const b = new SessionBuilder()
    .load(`https://shop.example/${s.href}`, page([element], [el(5, 'style', { _cssText: s.css })]))
    .emit(3, { source: 8, id: 5, adds: [{ rule: s.rule, index: 0 }] })
    .mutation({
      adds: [{ parentId: 4, nextId: null, node: { type: 3, id: 12, textContent: s.text, isStyle: true } }],
      texts: [{ id: 11, value: s.text }],
      attributes: [{ id: 10, attributes: { style: { [s.styleProp]: s.style }, title: s.ariaLabel } }],
    })
    .click(11)
    .click(11)
    .click(11)
    .console('error', [s.consoleArg, s.errorMessage], s.trace)
    .uncaught(s.errorMessage, s.trace)
    .sdkError(s.errorType, s.errorMessage, s.stack, s.mechanism)
    .navigate(s.href)
    .request({ url: s.requestUrl, method: s.method, status: 503, error: s.requestError })
    .emit(6, {
      plugin: 'rrweb/network@1',
      payload: {
        requests: [{ name: s.requestUrl, status: 0, statusText: s.statusText, error: s.requestError }],
      },
    })
    .emit(4, { href: s.href, width: 1, height: 1 })
  return b.wait(31_000).mouseMove().events
}
