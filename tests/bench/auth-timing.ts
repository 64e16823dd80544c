import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { memberships, oauthAccessTokens, oauthClients, oauthTokenChains, users } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { SCOPES } from '@/lib/credentials/scopes'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createCleanup } from './harness/cleanup'
import { createScratchDatabase } from './harness/database'
import { otherNextProcesses, postgresCpuMs, treeCpuMs } from './harness/machine'
import { hasProductionBuild, startServer } from './harness/server'

/**
 * `npm run bench:auth-timing [-- --per-class=2000] [-- --rate=150] [-- --margin-ms=0.1] [-- --json]`
 *
 * Does the time of a 401 tell whether a credential exists? Against the production build
 * (`next start`) on a fresh Postgres database (bench_auth_timing_<timestamp> next to
 * DATABASE_URL's, dropped at the end), it sends, for the Data API, MCP and ingest, requests
 * with credentials of every class: unknown but well-formed, revoked, expired (OAuth access
 * tokens; static keys do not expire), malformed, and valid ones as a control. All classes are
 * interleaved in one shuffled order and paced at a fixed rate, so drift and other work on the
 * machine fall on every class alike; every class draws from a pool of distinct credentials
 * (the ingest limiter counts per presented string, so no class meets a rate limit). Loopback
 * only. It reports per class the median, p90 and p99 latency, and compares each "revoked" or
 * "expired" class with the "unknown" class of the same credential kind and surface: the
 * difference of medians with a bootstrap 95% interval, a Mann-Whitney U test and the
 * Kolmogorov-Smirnov distance. Nothing statistical is installed, so the tests are implemented
 * here (and checked against SciPy's figures in tests/unit/bench.auth-timing-stats.test.ts).
 *
 * Verdict per comparison: "same" when no difference is detected (Mann-Whitney p at or above
 * 0.01, Bonferroni-corrected over the existence comparisons), or when one is but the whole
 * 95% interval of the difference of medians lies within ±margin; otherwise "DIFFERENT". The
 * valid-key control must come out different, or the run could not have seen a difference.
 */

const argv = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const raw = argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  const value = Number(raw ?? fallback)
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const PER_CLASS = Math.floor(option('per-class', 2000))
const RATE = option('rate', 150)
const MARGIN_MS = option('margin-ms', 0.1)
const asJson = argv.includes('--json')
/** Distinct credentials per class: ~20 uses each at the defaults, far below any limit. */
const POOL = 100
const OAUTH_CLIENTS = 20
const MAX_IN_FLIGHT = 8
const WARMUP = 400
const ALPHA = 0.01
const BOOTSTRAP_RESAMPLES = 2000

// --- statistics (exported for their unit test) -------------------------------------------

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  if (n === 0) return Number.NaN
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
}

/** erfc(x), Numerical Recipes' Chebyshev fit: relative error below 1.2e-7 everywhere. */
export function erfc(x: number): number {
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
  const r = t * Math.exp(poly)
  return x >= 0 ? r : 2 - r
}

export interface MannWhitney {
  /** U of the first sample: how often one of its values exceeds one of the second's (ties half). */
  u: number
  z: number
  /** Two-sided, normal approximation with tie and continuity corrections (SciPy's 'asymptotic'). */
  p: number
  /** U / (n1 n2): the probability that a value of the first sample exceeds one of the second. */
  probabilityGreater: number
}

export function mannWhitneyU(a: readonly number[], b: readonly number[]): MannWhitney {
  const n1 = a.length
  const n2 = b.length
  const all = [...a.map((v) => [v, 0] as const), ...b.map((v) => [v, 1] as const)].sort((x, y) => x[0] - y[0])
  let rankSumA = 0
  let ties = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j < all.length && all[j]![0] === all[i]![0]) j++
    const rank = (i + 1 + j) / 2
    const count = j - i
    ties += count ** 3 - count
    for (let k = i; k < j; k++) if (all[k]![1] === 0) rankSumA += rank
    i = j
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2
  const n = n1 + n2
  const mean = (n1 * n2) / 2
  const variance = ((n1 * n2) / 12) * (n + 1 - ties / (n * (n - 1)))
  const shift = u - mean
  const z = variance > 0 ? (shift - 0.5 * Math.sign(shift)) / Math.sqrt(variance) : 0
  return { u, z, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)), probabilityGreater: u / (n1 * n2) }
}

/** Two-sample Kolmogorov-Smirnov: the largest gap between the empirical CDFs, asymptotic p. */
export function kolmogorovSmirnov(a: readonly number[], b: readonly number[]): { d: number; p: number } {
  const x = Float64Array.from(a).sort()
  const y = Float64Array.from(b).sort()
  let i = 0
  let j = 0
  let d = 0
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!)
    while (i < x.length && x[i] === v) i++
    while (j < y.length && y[j] === v) j++
    d = Math.max(d, Math.abs(i / x.length - j / y.length))
  }
  const en = (x.length * y.length) / (x.length + y.length)
  const lambda = (Math.sqrt(en) + 0.12 + 0.11 / Math.sqrt(en)) * d
  let sum = 0
  for (let k = 1; k <= 100; k++) sum += 2 * (-1) ** (k - 1) * Math.exp(-2 * k * k * lambda * lambda)
  return { d, p: Math.max(0, Math.min(1, sum)) }
}

/** A small seeded generator (mulberry32): the same run gives the same interval. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Percentile-bootstrap 95% interval of median(b) - median(a). */
export function bootstrapMedianDifference(
  a: readonly number[],
  b: readonly number[],
  resamples = BOOTSTRAP_RESAMPLES,
  seed = 1,
): { estimate: number; low: number; high: number } {
  const random = generator(seed)
  const resample = (values: readonly number[], into: Float64Array) => {
    for (let i = 0; i < into.length; i++) into[i] = values[Math.floor(random() * values.length)]!
    return median(into)
  }
  const bufferA = new Float64Array(a.length)
  const bufferB = new Float64Array(b.length)
  const differences = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) differences[r] = resample(b, bufferB) - resample(a, bufferA)
  differences.sort()
  return {
    estimate: median(b) - median(a),
    low: percentile(differences, 2.5),
    high: percentile(differences, 97.5),
  }
}

export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}

// --- the credentials ---------------------------------------------------------------------

type Surface = 'data' | 'mcp' | 'ingest'

interface CredentialClass {
  surface: Surface
  name: string
  /** The status every answer must have; anything else makes the run invalid. */
  expect: number
  tokens: string[]
}

interface Comparison {
  surface: Surface
  kind: 'existence' | 'control' | 'format'
  /** The reference, always an unknown credential of the same kind. */
  a: string
  b: string
}

const fresh = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`
const pool = (make: () => string) => Array.from({ length: POOL }, make)

async function staticKeys(db: Db, organizationId: string, type: 'api' | 'mcp' | 'ingest') {
  const valid: string[] = []
  const revoked: string[] = []
  for (let i = 0; i < POOL * 2; i++) {
    const key = await createKey(db, { organizationId, type, name: `timing ${i}` })
    if (i % 2 === 0) valid.push(key.key)
    else {
      await revokeKey(db, { id: key.id })
      revoked.push(key.key)
    }
  }
  return { valid, revoked }
}

/** Access tokens as lib/oauth/issue-tokens.ts stores them, bound to this server's MCP resource. */
async function accessTokens(db: Db, organizationId: string, resource: string) {
  const [user] = await db
    .insert(users)
    .values({ email: `timing-${randomBytes(4).toString('hex')}@example.com`, passwordHash: 'bench-no-login' })
    .returning({ id: users.id })
  // Access tokens are honoured only while their user is a member of the organization.
  await db.insert(memberships).values({ organizationId, userId: user!.id })
  const clients = Array.from({ length: OAUTH_CLIENTS }, () => generateToken(TOKEN_PREFIXES.oauthClient))
  await db.insert(oauthClients).values(
    clients.map((clientId) => ({
      clientId,
      clientName: 'Timing bench',
      redirectUris: ['http://127.0.0.1:7777/callback'],
      tokenEndpointAuthMethod: 'none' as const,
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: SCOPES.read,
    })),
  )
  const chains = await db
    .insert(oauthTokenChains)
    .values(
      clients.map((clientId) => ({
        clientId,
        userId: user!.id,
        organizationId,
        scope: SCOPES.read,
        resource,
      })),
    )
    .returning({ id: oauthTokenChains.id, clientId: oauthTokenChains.clientId })
  const make = async (state: 'valid' | 'revoked' | 'expired') => {
    const tokens = pool(() => generateToken(TOKEN_PREFIXES.oauthAccess))
    await db.insert(oauthAccessTokens).values(
      tokens.map((token, i) => {
        // Valid tokens spread over the clients: OAuth callers are rate-limited per client.
        const chain = chains[i % chains.length]!
        return {
          tokenHash: hashToken(token),
          chainId: chain.id,
          clientId: chain.clientId,
          organizationId,
          scope: SCOPES.read,
          resource,
          expiresAt: state === 'expired' ? sql`now() - interval '1 hour'` : sql`now() + interval '1 day'`,
          revokedAt: state === 'revoked' ? sql`now()` : null,
        }
      }),
    )
    return tokens
  }
  return { valid: await make('valid'), revoked: await make('revoked'), expired: await make('expired') }
}

async function seed(databaseUrl: string, baseUrl: string): Promise<CredentialClass[]> {
  const handle = await openMigratedDatabase({ kind: 'postgres', url: databaseUrl }, { maxConnections: 2 })
  try {
    const db = handle.db
    const org = await createOrganization(db, { name: 'Auth timing' })
    const api = await staticKeys(db, org.id, 'api')
    const mcp = await staticKeys(db, org.id, 'mcp')
    const ingest = await staticKeys(db, org.id, 'ingest')
    const oat = await accessTokens(db, org.id, `${baseUrl}/api/mcp`)
    const bearer = (
      surface: 'data' | 'mcp',
      valid: { name: string; tokens: string[] },
    ): CredentialClass[] => [
      { surface, name: 'unknown svc_api_', expect: 401, tokens: pool(() => fresh(TOKEN_PREFIXES.api)) },
      { surface, name: 'revoked svc_api_', expect: 401, tokens: api.revoked },
      { surface, name: 'unknown svc_mcp_', expect: 401, tokens: pool(() => fresh(TOKEN_PREFIXES.mcp)) },
      { surface, name: 'revoked svc_mcp_', expect: 401, tokens: mcp.revoked },
      {
        surface,
        name: 'unknown svc_oat_',
        expect: 401,
        tokens: pool(() => fresh(TOKEN_PREFIXES.oauthAccess)),
      },
      { surface, name: 'revoked svc_oat_', expect: 401, tokens: oat.revoked },
      { surface, name: 'expired svc_oat_', expect: 401, tokens: oat.expired },
      { surface, name: 'malformed', expect: 401, tokens: pool(() => fresh('svc_xyz_')) },
      { surface, name: valid.name, expect: 200, tokens: valid.tokens },
    ]
    return [
      ...bearer('data', { name: 'valid svc_api_ (control)', tokens: api.valid }),
      ...bearer('mcp', { name: 'valid svc_oat_ (control)', tokens: oat.valid }),
      {
        surface: 'ingest',
        name: 'unknown svc_pk_',
        expect: 401,
        tokens: pool(() => fresh(TOKEN_PREFIXES.ingest)),
      },
      { surface: 'ingest', name: 'revoked svc_pk_', expect: 401, tokens: ingest.revoked },
      { surface: 'ingest', name: 'malformed', expect: 401, tokens: pool(() => fresh('svc_xyz_')) },
      // The body is not a valid batch: a found key answers 400 after reading and validating
      // it, and nothing is stored, so the control costs the same on every run.
      { surface: 'ingest', name: 'valid svc_pk_ (control, 400)', expect: 400, tokens: ingest.valid },
    ]
  } finally {
    await handle.close()
  }
}

function comparisons(): Comparison[] {
  const list: Comparison[] = []
  for (const surface of ['data', 'mcp'] as const) {
    list.push(
      { surface, kind: 'existence', a: 'unknown svc_api_', b: 'revoked svc_api_' },
      { surface, kind: 'existence', a: 'unknown svc_mcp_', b: 'revoked svc_mcp_' },
      { surface, kind: 'existence', a: 'unknown svc_oat_', b: 'revoked svc_oat_' },
      { surface, kind: 'existence', a: 'unknown svc_oat_', b: 'expired svc_oat_' },
      { surface, kind: 'format', a: 'unknown svc_api_', b: 'malformed' },
    )
  }
  list.push(
    { surface: 'data', kind: 'control', a: 'unknown svc_api_', b: 'valid svc_api_ (control)' },
    { surface: 'mcp', kind: 'control', a: 'unknown svc_oat_', b: 'valid svc_oat_ (control)' },
    { surface: 'ingest', kind: 'existence', a: 'unknown svc_pk_', b: 'revoked svc_pk_' },
    { surface: 'ingest', kind: 'format', a: 'unknown svc_pk_', b: 'malformed' },
    { surface: 'ingest', kind: 'control', a: 'unknown svc_pk_', b: 'valid svc_pk_ (control, 400)' },
  )
  return list
}

// --- the requests ------------------------------------------------------------------------

const MCP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'timing', version: '1' } },
})

interface Sent {
  status: number
  ms: number
  /** SHA-256 of the body and the headers a client could compare (request id and clock-bound ones left out). */
  fingerprint: string
}

// Per request or per clock tick by design; the rest of a 401 must not vary with the credential.
const VOLATILE = new Set([
  'x-request-id',
  'date',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'connection',
  'keep-alive',
])

function send(agent: Agent, baseUrl: string, surface: Surface, token: string): Promise<Sent> {
  const target = new URL(baseUrl)
  const spec: { method: string; path: string; headers: Record<string, string>; body?: string } =
    surface === 'data'
      ? { method: 'GET', path: '/api/v1/issues?limit=1', headers: { authorization: `Bearer ${token}` } }
      : surface === 'mcp'
        ? {
            method: 'POST',
            path: '/api/mcp',
            body: MCP_BODY,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          }
        : {
            method: 'POST',
            path: '/api/sdk/replay',
            body: '{}',
            headers: { 'x-service-api-key': token, 'content-type': 'application/json' },
          }
  const { body, ...options } = spec
  return new Promise((resolve, reject) => {
    const began = performance.now()
    const req = request(
      { host: target.hostname, port: target.port, agent, timeout: 30_000, ...options },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const ms = performance.now() - began
          const hash = createHash('sha256').update(Buffer.concat(chunks))
          for (const [name, value] of Object.entries(res.headers).sort(([x], [y]) => x.localeCompare(y)))
            if (!VOLATILE.has(name)) hash.update(`\n${name}: ${String(value)}`)
          resolve({ status: res.statusCode ?? 0, ms, fingerprint: hash.digest('hex').slice(0, 16) })
        })
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end(body)
  })
}

interface Planned {
  index: number
  cls: CredentialClass
  token: string
}

/**
 * Starts one request every 1/rate seconds in the planned order, at most MAX_IN_FLIGHT at a time
 * (a request due while that many are outstanding starts as soon as one ends). Latency runs from
 * the moment a request is sent, so a backlog is not charged to the class that happened to wait.
 */
async function run(
  agent: Agent,
  baseUrl: string,
  plan: Planned[],
  record: (planned: Planned, sent: Sent) => void,
  onProgress?: (done: number) => void,
): Promise<{ seconds: number; errors: number }> {
  const interval = 1000 / RATE
  const started = performance.now()
  let next = 0
  let inFlight = 0
  let done = 0
  let errors = 0
  let timer: NodeJS.Timeout | undefined
  await new Promise<void>((resolve) => {
    const pump = () => {
      if (timer) clearTimeout(timer)
      timer = undefined
      const now = performance.now()
      while (next < plan.length && inFlight < MAX_IN_FLIGHT && started + next * interval <= now) {
        const planned = plan[next++]!
        inFlight++
        send(agent, baseUrl, planned.cls.surface, planned.token).then(
          (sent) => finish(() => record(planned, sent)),
          () => finish(() => errors++),
        )
      }
      // Woken by the clock for the next request due, or by an answer when all slots are busy.
      if (next < plan.length && inFlight < MAX_IN_FLIGHT)
        timer = setTimeout(pump, Math.max(0, started + next * interval - performance.now()))
    }
    const finish = (account: () => void) => {
      account()
      inFlight--
      done++
      if (onProgress && done % Math.max(1, Math.floor(plan.length / 10)) === 0) onProgress(done)
      if (done === plan.length) resolve()
      else pump()
    }
    pump()
  })
  if (timer) clearTimeout(timer)
  return { seconds: (performance.now() - started) / 1000, errors }
}

// --- the report --------------------------------------------------------------------------

interface ClassResult {
  surface: Surface
  name: string
  count: number
  statuses: Record<string, number>
  unexpected: number
  fingerprints: string[]
  ms: { median: number; p90: number; p99: number; mean: number }
}

interface ComparisonResult extends Comparison {
  medianDifferenceMs: { estimate: number; low: number; high: number }
  mannWhitney: MannWhitney
  ks: { d: number; p: number }
  verdict: string
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits
const SURFACE_NAMES: Record<Surface, string> = { data: 'Data API', mcp: 'MCP', ingest: 'ingest' }

function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)]
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

const out = (line = '') => (asJson ? process.stderr : process.stdout).write(`${line}\n`)
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`)

const cleanup = createCleanup((line) => progress(line))

async function main(): Promise<void> {
  if (!hasProductionBuild()) fail('No production build found (.next/BUILD_ID): run npm run build first')
  const othersAtStart = otherNextProcesses()
  const loadAtStart = os.loadavg()
  if (othersAtStart.length > 0)
    progress(
      `WARNING: other builds, servers or test runs share the machine:\n  ${othersAtStart.join('\n  ')}`,
    )

  const scratch = await createScratchDatabase('bench_auth_timing')
  const dbName = scratch.name
  cleanup.add(async () => {
    progress(`dropping database ${dbName}`)
    await scratch.drop()
  })
  const databaseUrl = new URL(scratch.url)

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-auth-timing-'))
  cleanup.add(() => rm(dataDir, { recursive: true, force: true }))
  progress(`starting next start on ${dbName}`)
  const server = await startServer({
    databaseUrl: databaseUrl.toString(),
    dataDir,
    // A warning per request would cost the server time the benchmark would then measure.
    env: { LOG_LEVEL: 'warn' },
    // The first 401 for a request without a token means the Data API is ready to serve.
    ready: { path: '/api/v1/issues', status: 401 },
    killAfterMs: 10_000,
  })
  cleanup.add(() => server.stop())

  progress('seeding valid, revoked and expired credentials of every kind')
  const classes = await seed(databaseUrl.toString(), server.baseUrl)
  const random = generator(Date.now() & 0xffffffff)
  const planFor = (count: number) =>
    shuffle(
      classes.flatMap((cls) =>
        Array.from({ length: count }, (_, i) => ({
          index: i,
          cls,
          token: cls.tokens[i % cls.tokens.length]!,
        })),
      ),
      random,
    )

  const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT })
  cleanup.add(async () => agent.destroy())
  progress(`warming up with ${WARMUP} requests`)
  await run(agent, server.baseUrl, planFor(Math.ceil(WARMUP / classes.length)), () => {})

  const total = PER_CLASS * classes.length
  progress(
    `measuring ${classes.length} classes x ${PER_CLASS} = ${total} requests at ${RATE}/s (~${Math.ceil(total / RATE)} s)`,
  )
  const latencies = new Map<CredentialClass, number[]>(classes.map((c) => [c, []]))
  const statuses = new Map<CredentialClass, Record<string, number>>(classes.map((c) => [c, {}]))
  const fingerprints = new Map<CredentialClass, Set<string>>(classes.map((c) => [c, new Set()]))
  const cpuBefore = { server: treeCpuMs(server.pid), postgres: postgresCpuMs() }
  const measured = await run(
    agent,
    server.baseUrl,
    planFor(PER_CLASS),
    (planned, sent) => {
      latencies.get(planned.cls)!.push(sent.ms)
      const byStatus = statuses.get(planned.cls)!
      byStatus[sent.status] = (byStatus[sent.status] ?? 0) + 1
      if (sent.status === 401) fingerprints.get(planned.cls)!.add(sent.fingerprint)
    },
    (done) => progress(`${done} / ${total}`),
  )
  const cpuAfter = { server: treeCpuMs(server.pid), postgres: postgresCpuMs() }
  const othersAtEnd = otherNextProcesses()
  const loadAtEnd = os.loadavg()

  const results: ClassResult[] = classes.map((cls) => {
    const values = latencies.get(cls)!
    const sorted = Float64Array.from(values).sort()
    const byStatus = statuses.get(cls)!
    return {
      surface: cls.surface,
      name: cls.name,
      count: values.length,
      statuses: byStatus,
      unexpected: values.length - (byStatus[cls.expect] ?? 0),
      fingerprints: [...fingerprints.get(cls)!],
      ms: {
        median: round(median(sorted)),
        p90: round(percentile(sorted, 90)),
        p99: round(percentile(sorted, 99)),
        mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
      },
    }
  })

  const planned = comparisons()
  const existenceTests = planned.filter((c) => c.kind === 'existence').length
  const alpha = ALPHA / existenceTests
  const lookup = (surface: Surface, name: string) => {
    const cls = classes.find((c) => c.surface === surface && c.name === name)
    if (!cls) throw new Error(`no class ${surface}/${name}`)
    return latencies.get(cls)!
  }
  const compared: ComparisonResult[] = planned.map((comparison, i) => {
    const a = lookup(comparison.surface, comparison.a)
    const b = lookup(comparison.surface, comparison.b)
    const mw = mannWhitneyU(b, a)
    const ks = kolmogorovSmirnov(a, b)
    const difference = bootstrapMedianDifference(a, b, BOOTSTRAP_RESAMPLES, i + 1)
    const detected = mw.p < (comparison.kind === 'existence' ? alpha : ALPHA)
    const withinMargin = difference.low >= -MARGIN_MS && difference.high <= MARGIN_MS
    const verdict =
      comparison.kind === 'control'
        ? detected
          ? 'different, as it must be'
          : 'NOT detected: this run could not see a difference'
        : !detected
          ? 'same (no difference detected)'
          : withinMargin
            ? `same (difference within ±${MARGIN_MS} ms)`
            : comparison.kind === 'format'
              ? 'different (format is public: no lookup for it)'
              : 'DIFFERENT'
    return {
      ...comparison,
      medianDifferenceMs: {
        estimate: round(difference.estimate),
        low: round(difference.low),
        high: round(difference.high),
      },
      mannWhitney: { ...mw, z: round(mw.z, 2), probabilityGreater: round(mw.probabilityGreater) },
      ks: { d: round(ks.d), p: ks.p },
      verdict,
    }
  })

  // Correctness: the expected status on every answer, and one 401 answer per surface.
  const problems: string[] = []
  for (const r of results)
    if (r.unexpected > 0)
      problems.push(`${SURFACE_NAMES[r.surface]} / ${r.name}: statuses ${JSON.stringify(r.statuses)}`)
  if (measured.errors > 0) problems.push(`${measured.errors} requests failed without an answer`)
  const identity: Record<Surface, { distinct: number; identical: boolean }> = {
    data: { distinct: 0, identical: false },
    mcp: { distinct: 0, identical: false },
    ingest: { distinct: 0, identical: false },
  }
  for (const surface of ['data', 'mcp', 'ingest'] as const) {
    const prints = new Set(results.filter((r) => r.surface === surface).flatMap((r) => r.fingerprints))
    identity[surface] = { distinct: prints.size, identical: prints.size === 1 }
    if (prints.size !== 1) problems.push(`${SURFACE_NAMES[surface]}: ${prints.size} different 401 answers`)
  }
  const existenceFailures = compared.filter((c) => c.kind === 'existence' && c.verdict === 'DIFFERENT')
  const blindControls = compared.filter((c) => c.kind === 'control' && !c.verdict.startsWith('different'))
  const existence = compared.filter((c) => c.kind === 'existence')
  const widest = Math.max(
    ...existence.map((c) =>
      Math.max(Math.abs(c.medianDifferenceMs.low), Math.abs(c.medianDifferenceMs.high)),
    ),
  )
  const controls = compared.filter((c) => c.kind === 'control').map((c) => c.medianDifferenceMs.estimate)
  const verdict =
    existenceFailures.length > 0
      ? `DIFFERENCE FOUND: ${existenceFailures.map((c) => `${SURFACE_NAMES[c.surface]} ${c.b} vs ${c.a}`).join('; ')}`
      : blindControls.length > 0
        ? 'INCONCLUSIVE: the valid-key control was not told apart either'
        : `the 401 time does not tell unknown from revoked or expired credentials: "same" in all ${existence.length} comparisons (widest 95% interval of a median difference: ±${widest.toFixed(3)} ms), while the valid-key controls (${Math.min(...controls).toFixed(2)} to ${Math.max(...controls).toFixed(2)} ms slower) were detected`

  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    loadAverageStart: loadAtStart.map((v) => round(v, 2)),
    loadAverageEnd: loadAtEnd.map((v) => round(v, 2)),
    otherProcesses: [...new Set([...othersAtStart, ...othersAtEnd])],
  }
  const perRequestCpu = (after: number | null, before: number | null) =>
    after === null || before === null ? null : round((after - before) / total, 3)

  out(`# Invalid-key timing, ${new Date().toISOString().slice(0, 10)}`)
  out()
  out(
    `${machine.cpuModel} x ${machine.cpus}, Node ${machine.node}, next start on Postgres (${dbName}), loopback. Load average ${machine.loadAverageStart.join(' ')} at the start, ${machine.loadAverageEnd.join(' ')} at the end.`,
  )
  if (machine.otherProcesses.length > 0)
    out(
      `WARNING: other builds, servers or test runs shared the machine:\n  ${machine.otherProcesses.join('\n  ')}`,
    )
  out(
    `${PER_CLASS} requests per class, ${classes.length} classes interleaved in one random order, paced at ${RATE}/s (achieved ${round(total / measured.seconds, 1)}/s over ${round(measured.seconds, 1)} s), at most ${MAX_IN_FLIGHT} in flight; ${POOL} distinct credentials per class. Server CPU ${perRequestCpu(cpuAfter.server, cpuBefore.server) ?? 'n/a'} ms and Postgres CPU ${perRequestCpu(cpuAfter.postgres, cpuBefore.postgres) ?? 'n/a'} ms per request.`,
  )
  out()
  for (const line of markdownTable(
    ['surface', 'credential', 'n', 'status', 'median ms', 'p90 ms', 'p99 ms'],
    results.map((r) => [
      SURFACE_NAMES[r.surface],
      r.name,
      String(r.count),
      Object.entries(r.statuses)
        .map(([status, n]) => (Object.keys(r.statuses).length > 1 ? `${status}×${n}` : status))
        .join(' '),
      r.ms.median.toFixed(3),
      r.ms.p90.toFixed(3),
      r.ms.p99.toFixed(3),
    ]),
  ))
    out(line)
  out()
  out(
    `Comparisons (B vs A): difference of medians B − A with a bootstrap 95% interval (${BOOTSTRAP_RESAMPLES} resamples), two-sided Mann–Whitney U (α ${ALPHA}, Bonferroni over ${existenceTests} existence comparisons: ${alpha.toExponential(1)}), P(B > A), Kolmogorov–Smirnov D.`,
  )
  out()
  for (const line of markdownTable(
    ['surface', 'A', 'B', 'Δ median ms [95% CI]', 'Mann–Whitney p', 'P(B>A)', 'KS D', 'verdict'],
    compared.map((c) => [
      SURFACE_NAMES[c.surface],
      c.a,
      c.b,
      `${c.medianDifferenceMs.estimate.toFixed(3)} [${c.medianDifferenceMs.low.toFixed(3)}, ${c.medianDifferenceMs.high.toFixed(3)}]`,
      c.mannWhitney.p.toExponential(2),
      c.mannWhitney.probabilityGreater.toFixed(3),
      c.ks.d.toFixed(3),
      c.verdict,
    ]),
  ))
    out(line)
  out()
  out(
    `401 answers byte-identical across unknown, revoked, expired and malformed credentials (body and headers, request id and rate-limit counters aside): ${(['data', 'mcp', 'ingest'] as const).map((s) => `${SURFACE_NAMES[s]} ${identity[s].identical ? 'yes' : `NO (${identity[s].distinct} variants)`}`).join(', ')}.`,
  )
  out()
  out(`Verdict: ${verdict}`)
  if (problems.length > 0) {
    out()
    out(`${problems.length} problem(s) make this run invalid:\n  ${problems.join('\n  ')}`)
    process.stderr.write(`server log tail:\n${server.logs().slice(-4000)}\n`)
    process.exitCode = 1
  }

  if (asJson)
    process.stdout.write(
      `${JSON.stringify(
        {
          machine,
          config: {
            perClass: PER_CLASS,
            rate: RATE,
            marginMs: MARGIN_MS,
            pool: POOL,
            maxInFlight: MAX_IN_FLIGHT,
          },
          achievedRate: round(total / measured.seconds, 1),
          cpuPerRequestMs: {
            server: perRequestCpu(cpuAfter.server, cpuBefore.server),
            postgres: perRequestCpu(cpuAfter.postgres, cpuBefore.postgres),
          },
          classes: results,
          comparisons: compared,
          identity,
          verdict,
          problems,
        },
        null,
        2,
      )}\n`,
    )
}

// Run only as a script: the unit test imports the statistics above.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main()
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exitCode = 1
    })
    .finally(() => cleanup.run())
}
