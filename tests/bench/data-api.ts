import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Placeholder, sql } from 'drizzle-orm'
import { QueryBuilder } from 'drizzle-orm/pg-core'
import postgres from 'postgres'
import { openMigratedDatabase } from '@/db/migrate'
import { issues } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { isoMillis, issueListItemJson } from '@/lib/issues/issue-json'
import { PAGE_ORDER, pageWhere } from '@/lib/issues/list-issues'
import { runAutocannonGet } from './data-api-load'
import { summarizeProfiles } from './data-api-profile'
import { type Seeded, seedDataApi } from './data-api-seed'
import { createCleanup } from './harness/cleanup'
import { createScratchDatabase, type ScratchDatabase } from './harness/database'
import {
  type ComparedFigures,
  type FloorPair,
  floorComparison,
  floorProblems,
  floorRatios,
  floorTable,
  measureFloorPhase,
  startFloor,
} from './harness/floor'
import { otherNextProcesses, postgresCpuMs, treeCpuMs } from './harness/machine'
import { phaseSeconds } from './harness/options'
import {
  type GetRequest,
  type GetSource,
  httpGet,
  keepAliveAgent,
  type PhaseResult,
  runPaced,
  type Task,
} from './harness/pace'
import { hasProductionBuild, type RunningProcess, startServer } from './harness/server'
import { round } from './harness/stats'

/**
 * `npm run bench:data-api [-- --json] [-- --rate=200] [-- --nulls-first-index]` (`npm run -s`
 * for stdout that is the JSON alone, without npm's banner)
 *
 * Benchmarks the Data API reads GET /api/v1/issues (first page, deep keyset pages, status
 * filter) and GET /api/v1/issues/{id} on the production build over Postgres, and the same
 * queries as raw SQL through postgres.js, at one fixed rate. It creates a database of its
 * own (bench_data_api_<timestamp>) next to DATABASE_URL's and drops it at the end. All
 * traffic goes to 127.0.0.1. See docs/performance.md.
 *
 * `--nulls-first-index` is a diagnostic: it recreates issues_org_created_idx and
 * issues_org_status_created_idx in the throw-away database with `DESC NULLS FIRST`, the
 * order `ORDER BY created_at DESC, id DESC` asks for, to preview that schema change. The
 * migrations create them `DESC NULLS LAST` (drizzle's `.desc()`), an order Postgres cannot use
 * for that ORDER BY even on NOT NULL columns.
 */

const MAIN_ISSUES = 100_000
const OTHER_ISSUES = 100_000
const argv = process.argv.slice(2)
const asJson = argv.includes('--json')
const nullsFirstIndex = argv.includes('--nulls-first-index')
// --cpu-prof: the server writes a V8 CPU profile (kept, path printed) summarised at the end.
const cpuProf = argv.includes('--cpu-prof')
// --no-floor: skip the floor routes (the minimal Next app and bare Node).
const withFloor = !argv.includes('--no-floor')
const rateOption = Number(argv.find((a) => a.startsWith('--rate='))?.slice('--rate='.length) ?? 200)
const RATE = Number.isInteger(rateOption) && rateOption > 0 ? rateOption : 200
// 300 reads/min per token: with at least 60 * RATE / 100 keys in rotation each key sees at
// most 100 a minute (40 at the default 200 req/s over 300 keys), and even the sliding window's
// weighted count of two minutes stays below 300, so no request is refused for its rate.
const KEYS = Math.max(300, Math.ceil((60 * RATE) / 100))
const PHASE_SECONDS = phaseSeconds(10)
const REQUESTS = RATE * PHASE_SECONDS
const CONNECTIONS = 10
/** The maximum-rate phases: autocannon without a rate, enough connections to keep 2 cores busy. */
const MAX_CONNECTIONS = 16
const MAX_CASES = ['page1', 'issue']
const PROBE_REQUESTS = RATE * 5
const WARMUP_REQUESTS = 400
const PAGE = 25
const WALK_LIMIT = 200
const DEPTHS = [1_000, 50_000, 99_000]
const SAMPLE_IDS = 1_000
const STATUS = 'unresolved'
const GOAL = { p99Ms: 20, ratio: 3 }
/** Issue 17: server CPU per Data API read at most this many times the floor GET route's. */
const FLOOR_CPU_GOAL = 1.5

// With --json, stdout carries the JSON object alone; progress and the table go to stderr.
const out = (line = '') => (asJson ? process.stderr : process.stdout).write(`${line}\n`)
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`)
const loud = (line: string) => process.stderr.write(`\n!!! ${line}\n\n`)

interface ListItem {
  id: string
  createdAt: string
}

interface ListBody {
  issues: ListItem[]
  nextCursor: string | null
}

/** One measured read: how the API is asked and what the equivalent raw SQL is. */
interface Case {
  name: string
  label: string
  /** A 25-item page: the goal applies to these. */
  listPage: boolean
  source: GetSource
  raw: Task
}

interface CpuPerRequest {
  serverMs: number | null
  postgresMs: number | null
  loadGeneratorMs: number
}

interface CaseResult {
  name: string
  label: string
  listPage: boolean
  autocannon: PhaseResult & { cpu: CpuPerRequest }
  paced: PhaseResult & { cpu: CpuPerRequest }
  raw: PhaseResult
  p99Ratio: { autocannon: number; paced: number }
  /** page1 and issue only: autocannon as fast as the server answers. */
  max: (PhaseResult & { cpu: CpuPerRequest }) | null
}

/** A floor route (GET /floor/json?bytes=N) at our paced rate, on the minimal Next app or bare Node. */
interface FloorPaced {
  server: 'next' | 'bare'
  read: 'list' | 'issue'
  bytes: number
  paced: PhaseResult & { cpu: CpuPerRequest }
}

interface Walk {
  pages: number
  rows: number
  uniqueIds: number
  ordered: boolean
  seconds: number
  ids: string[]
  createdAts: string[]
  cursors: Map<number, string>
}

interface PlanCheck {
  query: string
  index: string | null
  expectedIndex: string
  usesExpectedIndex: boolean
  sort: boolean
  offset: boolean
  rows: number | null
  executionMs: number | null
  buffers: string | null
  lines: string[]
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

const cleanup = createCleanup((line) => progress(line))

async function fetchJson<T>(baseUrl: string, next: GetRequest): Promise<T> {
  const response = await fetch(`${baseUrl}${next.path}`, {
    headers: next.token ? { authorization: `Bearer ${next.token}` } : {},
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET ${next.path} answered ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

/** True when row b comes strictly after row a in `created_at desc, id desc` order. */
function after(a: ListItem, b: ListItem): boolean {
  // ISO strings of one format compare like the instants; Postgres orders uuids by their bytes,
  // which is the order of their lower-case hex text.
  return b.createdAt < a.createdAt || (b.createdAt === a.createdAt && b.id < a.id)
}

/**
 * Pages through the whole organization with limit=200, keeping the cursors that start the
 * pages at DEPTHS (a cursor is bound to the list and filter, not to the page size, so a
 * limit-200 cursor starts a limit-25 page at the same row). Doubles as the correctness check
 * of the keyset: every row once, in order, across groups of equal createdAt values.
 */
async function walkList(baseUrl: string, token: () => string): Promise<Walk> {
  const started = performance.now()
  const ids: string[] = []
  const createdAts: string[] = []
  const cursors = new Map<number, string>()
  let ordered = true
  let previous: ListItem | undefined
  let cursor: string | null = null
  let pages = 0
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
    const body: ListBody = await fetchJson<ListBody>(baseUrl, {
      path: `/api/v1/issues?limit=${WALK_LIMIT}${query}`,
      token: token(),
    })
    pages++
    for (const item of body.issues) {
      if (previous && !after(previous, item)) ordered = false
      previous = item
      ids.push(item.id)
      createdAts.push(item.createdAt)
    }
    cursor = body.nextCursor
    if (cursor && DEPTHS.includes(ids.length)) cursors.set(ids.length, cursor)
    if (pages % 100 === 0) progress(`walked ${ids.length} rows`)
  } while (cursor)
  return {
    pages,
    rows: ids.length,
    uniqueIds: new Set(ids).size,
    ordered,
    seconds: round((performance.now() - started) / 1000, 1),
    ids,
    createdAts,
    cursors,
  }
}

function cpuSince(
  before: { server: number | null; postgres: number | null; self: NodeJS.CpuUsage },
  serverPid: number,
  requests: number,
): CpuPerRequest {
  const server = treeCpuMs(serverPid)
  const pg = postgresCpuMs()
  const self = process.cpuUsage(before.self)
  const per = (a: number | null, b: number | null) =>
    a === null || b === null ? null : round((a - b) / Math.max(1, requests), 3)
  return {
    serverMs: per(server, before.server),
    postgresMs: per(pg, before.postgres),
    loadGeneratorMs: round((self.user + self.system) / 1000 / Math.max(1, requests), 3),
  }
}

function cpuMark(serverPid: number) {
  return { server: treeCpuMs(serverPid), postgres: postgresCpuMs(), self: process.cpuUsage() }
}

function checkPlan(query: string, lines: string[], expectedIndex: string): PlanCheck {
  const text = lines.join('\n')
  const index =
    /(?:Index (?:Only )?Scan (?:Backward )?using|Bitmap Index Scan on) (\S+)/.exec(text)?.[1] ?? null
  // The top node's rows: the Limit's for the lists, the scan's for the single issue.
  const limit = /actual time=\S+ rows=(\d+)/.exec(lines[0] ?? '')
  const execution = /Execution Time: ([\d.]+) ms/.exec(text)
  return {
    query,
    index,
    expectedIndex,
    usesExpectedIndex: index === expectedIndex,
    // A Sort node (or Incremental Sort) would mean the order does not come from the index.
    sort: lines.some((line) => /^\s*(->\s+)?(Incremental )?Sort\s+\(/.test(line)),
    offset: /\bOFFSET\b/i.test(query),
    rows: limit ? Number(limit[1]) : null,
    executionMs: execution ? Number(execution[1]) : null,
    buffers: lines.find((line) => line.includes('Buffers:'))?.trim() ?? null,
    lines,
  }
}

// --- the report -------------------------------------------------------------------------

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)]
}

const ms = (value: number) => value.toFixed(2)
const maybe = (value: number | null, digits = 2) => (value === null ? 'n/a' : value.toFixed(digits))

async function main(): Promise<void> {
  if (!hasProductionBuild()) fail('No production build found (.next/BUILD_ID): run npm run build first')
  const others = otherNextProcesses()
  if (others.length > 0)
    loud(
      `other Next builds/servers or benchmarks are running and will distort the figures:\n${others.join('\n')}`,
    )

  let scratch: ScratchDatabase
  try {
    scratch = await createScratchDatabase('bench_data_api')
  } catch (error) {
    await cleanup.run()
    fail(`Cannot create a database next to DATABASE_URL's: ${error instanceof Error ? error.message : error}`)
  }
  const dbName = scratch.name
  cleanup.add(async () => {
    progress(`dropping database ${dbName}`)
    await scratch.drop()
  })
  const benchUrl = scratch.url
  progress(`database ${dbName}`)

  // --- 1. seed ---------------------------------------------------------------------------
  const handle = await openMigratedDatabase({ kind: 'postgres', url: benchUrl }, { maxConnections: 2 })
  // The raw-SQL side: postgres.js with the server's pool size, prepared statements as it uses.
  const raw = postgres(benchUrl, { max: 10, onnotice: () => {}, connect_timeout: 10 })
  cleanup.add(() => raw.end({ timeout: 5 }))
  progress(`seeding ${MAIN_ISSUES} + ${OTHER_ISSUES} issues and ${KEYS} api keys`)
  let seeded: Seeded
  try {
    seeded = await seedDataApi(handle.db, raw, {
      mainIssues: MAIN_ISSUES,
      otherIssues: OTHER_ISSUES,
      keys: KEYS,
    })
  } finally {
    await handle.close()
  }
  progress(
    `seeded ${seeded.rows} rows in ${seeded.seconds} s (${round(seeded.tableBytes / 1048576, 1)} MiB with indexes)`,
  )
  if (nullsFirstIndex) {
    progress('diagnostic: recreating the keyset indexes of issues with DESC NULLS FIRST')
    await raw.begin(async (tx) => {
      await tx`drop index issues_org_created_idx`
      await tx`drop index issues_org_status_created_idx`
      await tx`create index issues_org_created_idx on issues
        (organization_id, created_at desc nulls first, id desc nulls first)`
      await tx`create index issues_org_status_created_idx on issues
        (organization_id, status, created_at desc nulls first, id desc nulls first)`
    })
    await raw`analyze issues`
  }
  const org = seeded.organizationId
  let keyIndex = 0
  const token = () => seeded.tokens[keyIndex++ % seeded.tokens.length]!

  // --- 2. server -------------------------------------------------------------------------
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-data-api-'))
  // Kept after the run (it is the point of --cpu-prof); its path is printed.
  const profileDir = cpuProf ? await mkdtemp(path.join(os.tmpdir(), 'bench-data-api-prof-')) : undefined
  cleanup.add(() => rm(dataDir, { recursive: true, force: true }))
  progress('starting next start on the bench database')
  const server: RunningProcess = await startServer({
    databaseUrl: benchUrl,
    dataDir,
    // Info lines are only start-up messages on this path, but a warning per request would
    // cost the server time the benchmark would then attribute to the route.
    env: { LOG_LEVEL: 'warn' },
    // The first 401 for a request without a token means the Data API is ready to serve.
    ready: { path: '/api/v1/issues', status: 401 },
    cpuProfileDir: profileDir,
    killAfterMs: 10_000,
  })
  let serverStopped = false
  const stopServer = async () => {
    if (serverStopped) return
    serverStopped = true
    await server.stop()
  }
  cleanup.add(stopServer)
  const { baseUrl } = server

  // --- 3. cursors and ids ----------------------------------------------------------------
  progress(`walking the list with limit=${WALK_LIMIT} to collect deep cursors`)
  const walk = await walkList(baseUrl, token)
  progress(`walked ${walk.rows} rows in ${walk.pages} pages, ${walk.seconds} s`)
  const problems: string[] = []
  if (walk.rows !== MAIN_ISSUES || walk.uniqueIds !== MAIN_ISSUES || !walk.ordered)
    problems.push(
      `keyset walk: ${walk.rows} rows, ${walk.uniqueIds} distinct, ordered=${walk.ordered} (expected ${MAIN_ISSUES} distinct, ordered)`,
    )
  for (const depth of DEPTHS) {
    const cursor = walk.cursors.get(depth)
    if (!cursor) throw new Error(`no cursor collected at depth ${depth}`)
    // The limit-25 page at this cursor must start exactly at row `depth` of the walk.
    const page = await fetchJson<ListBody>(baseUrl, {
      path: `/api/v1/issues?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`,
      token: token(),
    })
    if (page.issues.length !== PAGE || page.issues[0]?.id !== walk.ids[depth])
      problems.push(`cursor at depth ${depth} does not start at row ${depth} of the walk`)
  }
  const sampleIds = Array.from(
    { length: SAMPLE_IDS },
    (_, i) => walk.ids[Math.floor((i * walk.ids.length) / SAMPLE_IDS)]!,
  )
  const tokenHashes = seeded.tokens.map(hashToken)

  // --- the cases -------------------------------------------------------------------------
  const listColumns = raw`id, title, description, status, priority, preview_url, created_at,
    session_count, ticket_provider, ticket_url, ticket_identifier`
  const expectRows = (expected: number) => (rows: readonly unknown[]) =>
    rows.length === expected ? 200 : 500
  let sampleIndex = 0
  let rawSampleIndex = 0
  let hashIndex = 0
  const cases: Case[] = [
    {
      name: 'page1',
      label: 'list, first page',
      listPage: true,
      source: () => ({ path: `/api/v1/issues?limit=${PAGE}`, token: token() }),
      raw: () =>
        raw`select ${listColumns} from issues where organization_id = ${org}
          order by created_at desc, id desc limit ${PAGE + 1}`.then(expectRows(PAGE + 1)),
    },
    ...DEPTHS.map((depth): Case => {
      const cursor = encodeURIComponent(walk.cursors.get(depth)!)
      // The cursor's position: the last row before `depth`, as the signed cursor encodes it.
      const createdAt = walk.createdAts[depth - 1]!
      const id = walk.ids[depth - 1]!
      return {
        name: `deep${depth / 1000}k`,
        label: `list, rows ${depth.toLocaleString('en-US')}+`,
        listPage: true,
        source: () => ({ path: `/api/v1/issues?limit=${PAGE}&cursor=${cursor}`, token: token() }),
        raw: () =>
          raw`select ${listColumns} from issues where organization_id = ${org}
            and (created_at, id) < (${createdAt}::timestamptz, ${id}::uuid)
            order by created_at desc, id desc limit ${PAGE + 1}`.then(expectRows(PAGE + 1)),
      }
    }),
    {
      name: 'status',
      label: `list, status=${STATUS}`,
      listPage: true,
      source: () => ({ path: `/api/v1/issues?limit=${PAGE}&status=${STATUS}`, token: token() }),
      raw: () =>
        raw`select ${listColumns} from issues where organization_id = ${org} and status = ${STATUS}
          order by created_at desc, id desc limit ${PAGE + 1}`.then(expectRows(PAGE + 1)),
    },
    {
      name: 'issue',
      label: 'single issue',
      listPage: false,
      source: () => ({ path: `/api/v1/issues/${sampleIds[sampleIndex++ % SAMPLE_IDS]}`, token: token() }),
      raw: () =>
        raw`select * from issues where id = ${sampleIds[rawSampleIndex++ % SAMPLE_IDS]!}
          and organization_id = ${org}`.then(expectRows(1)),
    },
  ]

  // --- 4. the API at a fixed rate --------------------------------------------------------
  const agent = keepAliveAgent()
  progress(`warming up: ${WARMUP_REQUESTS} requests per case`)
  for (const c of cases) {
    const warm = await runPaced({
      phase: `warmup ${c.name}`,
      rate: RATE,
      count: WARMUP_REQUESTS,
      task: () => httpGet(agent, baseUrl, c.source()),
    })
    if (warm.ok !== warm.count || warm.errors > 0)
      problems.push(`warm-up of ${c.name}: ${JSON.stringify(warm.statusCodes)}, ${warm.errors} errors`)
  }

  const apiResults = new Map<
    string,
    { autocannon: CaseResult['autocannon']; paced: CaseResult['paced']; max: CaseResult['max'] }
  >()
  for (const c of cases) {
    progress(`${c.name}: autocannon ${RATE} req/s, ${CONNECTIONS} connections, ${PHASE_SECONDS} s`)
    let mark = cpuMark(server.pid)
    const ac = await runAutocannonGet({
      phase: c.name,
      baseUrl,
      source: c.source,
      connections: CONNECTIONS,
      rate: RATE,
      seconds: PHASE_SECONDS,
    })
    const acCpu = cpuSince(mark, server.pid, ac.count)
    // autocannon leaves its last requests in flight; let the server finish them first.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    progress(`${c.name}: paced open loop ${RATE} req/s, ${REQUESTS} requests`)
    mark = cpuMark(server.pid)
    const paced = await runPaced({
      phase: c.name,
      rate: RATE,
      count: REQUESTS,
      task: () => httpGet(agent, baseUrl, c.source()),
    })
    const pacedCpu = cpuSince(mark, server.pid, paced.count)
    for (const r of [ac, paced])
      if (r.non2xx > 0 || r.errors > 0)
        problems.push(
          `${c.name} (${r.generator}): ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`,
        )
    let max: CaseResult['max'] = null
    if (MAX_CASES.includes(c.name)) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      progress(`${c.name}: autocannon at maximum rate, ${MAX_CONNECTIONS} connections, ${PHASE_SECONDS} s`)
      mark = cpuMark(server.pid)
      const fastest = await runAutocannonGet({
        phase: `${c.name} max`,
        baseUrl,
        source: c.source,
        connections: MAX_CONNECTIONS,
        seconds: PHASE_SECONDS,
      })
      max = { ...fastest, cpu: cpuSince(mark, server.pid, fastest.count) }
      if (fastest.non2xx > 0 || fastest.errors > 0)
        problems.push(`${c.name} (max): ${JSON.stringify(fastest.statusCodes)}, ${fastest.errors} errors`)
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    apiResults.set(c.name, { autocannon: { ...ac, cpu: acCpu }, paced: { ...paced, cpu: pacedCpu }, max })
  }

  // What a request costs before any issue is read: the route with no token (no database),
  // and with a well-formed unknown key (one indexed lookup of its hash), both 401.
  const probes: (PhaseResult & { cpu: CpuPerRequest; expected: number })[] = []
  const unknownKey = `svc_api_${randomBytes(32).toString('base64url')}`
  for (const probe of [
    { name: 'no token (401)', next: { path: `/api/v1/issues?limit=${PAGE}` } },
    { name: 'unknown key (401)', next: { path: `/api/v1/issues?limit=${PAGE}`, token: unknownKey } },
  ]) {
    progress(`probe: ${probe.name}`)
    const mark = cpuMark(server.pid)
    const result = await runPaced({
      phase: probe.name,
      rate: RATE,
      count: PROBE_REQUESTS,
      task: () => httpGet(agent, baseUrl, probe.next),
    })
    const unexpected = result.count - (result.statusCodes['401'] ?? 0)
    if (unexpected > 0 || result.errors > 0)
      problems.push(`probe ${probe.name}: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`)
    probes.push({ ...result, cpu: cpuSince(mark, server.pid, result.count), expected: 401 })
  }
  agent.destroy()
  // The sizes the floor routes answer with: a typical 25-item page and a single issue.
  const bodyBytes = {
    list: Buffer.byteLength(
      JSON.stringify(
        await fetchJson<ListBody>(baseUrl, { path: `/api/v1/issues?limit=${PAGE}`, token: token() }),
      ),
    ),
    issue: Buffer.byteLength(
      JSON.stringify(
        await fetchJson<unknown>(baseUrl, { path: `/api/v1/issues/${sampleIds[0]}`, token: token() }),
      ),
    ),
  }
  const serverLogs = server.logs()
  // The raw queries get the machine to themselves, as the API phases had it apart from Postgres.
  await stopServer()
  const profiles = profileDir ? await summarizeProfiles(profileDir) : []

  // --- 4b. the floor: the same GETs' unavoidable part, in the same run ---------------------
  // GET /floor/json?bytes=N with N our answers' sizes, on the minimal Next app and bare Node:
  // at our paced rate (CPU per request under the same load) and at the maximum rate.
  const floorPaced: FloorPaced[] = []
  const floorMax = new Map<'list' | 'issue', FloorPair>()
  if (withFloor) {
    const floor = await startFloor()
    const floorAgent = keepAliveAgent()
    try {
      for (const read of ['list', 'issue'] as const) {
        const bytes = bodyBytes[read]
        for (const [server, running] of [
          ['next', floor.next],
          ['bare', floor.bare],
        ] as const) {
          const task = () => httpGet(floorAgent, running.baseUrl, { path: `/floor/json?bytes=${bytes}` })
          progress(`floor ${server} GET /floor/json?bytes=${bytes}: paced ${RATE}/s`)
          await runPaced({ phase: 'floor warmup', rate: RATE, count: WARMUP_REQUESTS, task })
          const mark = cpuMark(running.pid)
          const paced = await runPaced({
            phase: `floor ${server} ${read}`,
            rate: RATE,
            count: REQUESTS,
            task,
          })
          floorPaced.push({
            server,
            read,
            bytes,
            paced: { ...paced, cpu: cpuSince(mark, running.pid, paced.count) },
          })
          if (paced.non2xx > 0 || paced.errors > 0)
            problems.push(
              `floor ${server} ${read} (paced): ${JSON.stringify(paced.statusCodes)}, ${paced.errors} errors`,
            )
        }
        progress(`floor GET /floor/json?bytes=${bytes}: maximum rate, ${MAX_CONNECTIONS} connections`)
        const pair = await measureFloorPhase({
          floor,
          method: 'GET',
          path: '/floor/json',
          bytes,
          connections: MAX_CONNECTIONS,
          seconds: PHASE_SECONDS,
        })
        problems.push(...floorProblems(pair))
        floorMax.set(read, pair)
      }
    } finally {
      floorAgent.destroy()
      await floor.stop()
    }
  }

  // --- 5. the same queries as raw SQL ----------------------------------------------------
  const rawResults = new Map<string, PhaseResult>()
  for (const c of cases) {
    // Warm the statement on every pooled connection, like the API's warm-up did.
    await runPaced({ phase: `raw warmup ${c.name}`, rate: RATE, count: WARMUP_REQUESTS / 2, task: c.raw })
    progress(`${c.name}: raw SQL paced ${RATE}/s, ${REQUESTS} executions`)
    const result = await runPaced({ phase: c.name, rate: RATE, count: REQUESTS, task: c.raw })
    if (result.non2xx > 0 || result.errors > 0)
      problems.push(`raw ${c.name}: unexpected row counts or errors ${JSON.stringify(result.statusCodes)}`)
    rawResults.set(c.name, result)
  }
  progress('raw auth lookup (credentials by token hash)')
  const rawAuth = await runPaced({
    phase: 'auth lookup',
    rate: RATE,
    count: REQUESTS,
    task: () =>
      raw`select id, organization_id, scopes from credentials
        where token_hash = ${tokenHashes[hashIndex++ % tokenHashes.length]!} and kind = 'api'
        and revoked_at is null`.then(expectRows(1)),
  })

  // --- EXPLAIN ---------------------------------------------------------------------------
  const deepest = DEPTHS[DEPTHS.length - 1]!
  const deepAt = { createdAt: walk.createdAts[deepest - 1]!, id: walk.ids[deepest - 1]! }
  const explain = async (query: string, params: (string | number)[], expectedIndex: string) => {
    const rows = await raw.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${query}`, params)
    return checkPlan(
      query,
      rows.map((row) => row['QUERY PLAN']),
      expectedIndex,
    )
  }
  const listSelect = `select id, title, description, status, priority, preview_url, created_at, session_count,
    ticket_provider, ticket_url, ticket_identifier from issues`
  const deepQuery = `${listSelect} where organization_id = $1 and (created_at, id) < ($2::timestamptz, $3::uuid)
    order by created_at desc, id desc limit 26`
  const plans = {
    deep: await explain(deepQuery, [org, deepAt.createdAt, deepAt.id], 'issues_org_created_idx'),
    page1: await explain(
      `${listSelect} where organization_id = $1 order by created_at desc, id desc limit 26`,
      [org],
      'issues_org_created_idx',
    ),
    status: await explain(
      `${listSelect} where organization_id = $1 and status = $2 order by created_at desc, id desc limit 26`,
      [org, STATUS],
      'issues_org_status_created_idx',
    ),
    issue: await explain(
      'select * from issues where id = $1 and organization_id = $2',
      [sampleIds[0]!, org],
      'issues_pkey',
    ),
  }
  // The server's own statement for a deep page (JSON written by the database), with its
  // placeholders filled as the server fills them.
  const serverQuery = new QueryBuilder()
    .select({ json: issueListItemJson, id: issues.id, createdAt: isoMillis(issues.createdAt) })
    .from(issues)
    .where(pageWhere(false, true))
    .orderBy(...PAGE_ORDER)
    .limit(sql.placeholder('limit'))
    .toSQL()
  const serverValues: Record<string, string | number> = {
    organizationId: org,
    afterCreatedAt: deepAt.createdAt,
    afterId: deepAt.id,
    limit: PAGE + 1,
  }
  const serverDeep = await explain(
    serverQuery.sql,
    serverQuery.params.map((p) =>
      p instanceof Placeholder ? serverValues[p.name]! : (p as string | number),
    ),
    'issues_org_created_idx',
  )
  // A prepared statement (as postgres.js and the server use) may switch to a generic plan,
  // planned without the cursor's values: that one must take the index as well.
  const reserved = await raw.reserve()
  let genericDeep: PlanCheck
  try {
    await reserved`set plan_cache_mode = force_generic_plan`
    await reserved.unsafe(`prepare deep_page(uuid, timestamptz, uuid) as ${deepQuery}`)
    const rows = await reserved.unsafe<{ 'QUERY PLAN': string }[]>(
      `explain (analyze, buffers) execute deep_page('${org}', '${deepAt.createdAt}', '${deepAt.id}')`,
    )
    genericDeep = checkPlan(
      'execute deep_page(...) -- generic plan',
      rows.map((row) => row['QUERY PLAN']),
      'issues_org_created_idx',
    )
  } finally {
    reserved.release()
  }
  for (const [name, plan] of Object.entries({ ...plans, genericDeep, serverDeep }))
    if (!plan.usesExpectedIndex || plan.sort)
      problems.push(`plan of ${name}: index ${plan.index ?? 'none'}, sort=${plan.sort}`)

  const indexes = await raw<{ indexname: string; indexdef: string }[]>`
    select indexname, indexdef from pg_indexes where tablename = 'issues' order by indexname
  `
  const keysetIndexes = indexes
    .filter(
      (i) => i.indexname === 'issues_org_created_idx' || i.indexname === 'issues_org_status_created_idx',
    )
    .map((i) => i.indexdef)

  // --- machine facts ---------------------------------------------------------------------
  const [pgVersion] = await raw<{ server_version: string }[]>`show server_version`
  const [sharedBuffers] = await raw<{ shared_buffers: string }[]>`show shared_buffers`
  const cpus = os.cpus()
  const machine = {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: pgVersion?.server_version ?? 'unknown',
    postgresSharedBuffers: sharedBuffers?.shared_buffers ?? 'unknown',
    // Builds, servers or benchmarks seen at the start and at the end: any of them means the
    // figures were taken on a shared machine.
    otherProcessesAtStart: others,
    otherProcessesAtEnd: otherNextProcesses(),
  }

  // --- 6. report -------------------------------------------------------------------------
  const results: CaseResult[] = cases.map((c) => {
    const api = apiResults.get(c.name)!
    const rawResult = rawResults.get(c.name)!
    const ratio = (p99: number) => round(p99 / Math.max(0.001, rawResult.latencyMs.p99), 1)
    return {
      name: c.name,
      label: c.label,
      listPage: c.listPage,
      autocannon: api.autocannon,
      paced: api.paced,
      raw: rawResult,
      p99Ratio: { autocannon: ratio(api.autocannon.latencyMs.p99), paced: ratio(api.paced.latencyMs.p99) },
      max: api.max,
    }
  })
  const listPages = results.filter((r) => r.listPage)
  const worstP99 = Math.max(
    ...listPages.map((r) => Math.max(r.autocannon.latencyMs.p99, r.paced.latencyMs.p99)),
  )
  const worstRatio = Math.max(...listPages.map((r) => Math.max(r.p99Ratio.autocannon, r.p99Ratio.paced)))
  // A phase that could not keep up with the rate has no meaningful p99 at that rate.
  const allSustained = listPages.every((r) => r.autocannon.sustained && r.paced.sustained && r.raw.sustained)
  // Issue 17's goal: every read, list and single issue, paced (an open loop, as users arrive).
  const worstPacedP99 = Math.max(...results.map((r) => r.paced.latencyMs.p99))
  const goal = {
    ...GOAL,
    worstPacedP99Ms: worstPacedP99,
    pacedP99Met: results.every((r) => r.paced.sustained) && worstPacedP99 < GOAL.p99Ms,
    worstListP99Ms: worstP99,
    worstListP99Ratio: worstRatio,
    allSustained,
    p99Met: allSustained && worstP99 < GOAL.p99Ms,
    ratioMet: allSustained && worstRatio <= GOAL.ratio,
  }

  const noToken = probes[0]!
  const unknown = probes[1]!
  const page1 = results[0]!
  const breakdown = {
    note: 'paced medians: route floor = no-token 401; + auth lookup = unknown-key 401; the rest is rate limit, list query and JSON of 25 items',
    routeFloorMs: noToken.latencyMs.p50,
    authLookupMs: round(unknown.latencyMs.p50 - noToken.latencyMs.p50, 2),
    rateLimitQueryAndJsonMs: round(page1.paced.latencyMs.p50 - unknown.latencyMs.p50, 2),
    rawListQueryMs: page1.raw.latencyMs.p50,
    rawAuthLookupMs: rawAuth.latencyMs.p50,
    serverCpuMsPerListRequest: page1.paced.cpu.serverMs,
    serverCpuMsPer401NoToken: noToken.cpu.serverMs,
    postgresCpuMsPerListRequest: page1.paced.cpu.postgresMs,
  }

  out()
  out(
    `Data API reads on Postgres ${machine.postgres}: ${MAIN_ISSUES.toLocaleString('en-US')} issues in the read organization, ${OTHER_ISSUES.toLocaleString('en-US')} in 9 others`,
  )
  out(`${machine.cpuModel} x ${machine.cpus}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}`)
  if (machine.otherProcessesAtStart.length + machine.otherProcessesAtEnd.length > 0)
    out(
      `WARNING: other builds/servers/benchmarks ran on this machine during the run; the figures are distorted:\n  ${[...machine.otherProcessesAtStart, ...machine.otherProcessesAtEnd].join('\n  ')}`,
    )
  out(
    `Fixed rate ${RATE} req/s for ${PHASE_SECONDS} s per phase; autocannon: ${CONNECTIONS} connections (each sends its share back to back at the start of every second); paced: open loop, one call every ${1000 / RATE} ms, at most 32 outstanding; raw: postgres.js, paced alike, pool of 10 (the server's).`,
  )
  const rps = (r: PhaseResult) => `${r.requestsPerSecond.toFixed(1)}${r.sustained ? '' : '*'}`
  out()
  out(`Data API at a fixed ${RATE} req/s (ms):`)
  for (const line of table(
    ['case', 'autocannon req/s', 'p50', 'p90', 'p99', 'paced req/s', 'p50', 'p90', 'p99', 'non-2xx'],
    results.map((r) => [
      r.label,
      rps(r.autocannon),
      ms(r.autocannon.latencyMs.p50),
      ms(r.autocannon.latencyMs.p90),
      ms(r.autocannon.latencyMs.p99),
      rps(r.paced),
      ms(r.paced.latencyMs.p50),
      ms(r.paced.latencyMs.p90),
      ms(r.paced.latencyMs.p99),
      String(r.autocannon.non2xx + r.paced.non2xx + r.autocannon.errors + r.paced.errors),
    ]),
  ))
    out(line)
  out()
  out(`The same query as raw SQL through postgres.js, paced at ${RATE}/s, vs the API (ms):`)
  for (const line of table(
    ['case', 'raw req/s', 'raw p50', 'raw p99', 'API p99 autocannon', 'API p99 paced', 'API/raw p99'],
    results.map((r) => [
      r.label,
      rps(r.raw),
      ms(r.raw.latencyMs.p50),
      ms(r.raw.latencyMs.p99),
      ms(r.autocannon.latencyMs.p99),
      ms(r.paced.latencyMs.p99),
      `${r.p99Ratio.autocannon.toFixed(1)}x / ${r.p99Ratio.paced.toFixed(1)}x`,
    ]),
  ))
    out(line)
  const unsustained = results.flatMap((r) =>
    [r.autocannon, r.paced, r.raw]
      .filter((p) => !p.sustained)
      .map(
        (p) =>
          `${r.label} (${p === r.raw ? 'raw' : p.generator}): ${p.requestsPerSecond} /s, ${p.skipped} skipped`,
      ),
  )
  if (unsustained.length > 0)
    out(
      `* rate NOT sustained (autocannon answered < 95% of ${RATE}/s, or the paced loop skipped calls due while 32 were outstanding): ${unsustained.join('; ')}`,
    )
  out()
  out('Where the time goes (paced phases; CPU per request from /proc):')
  for (const line of table(
    ['request', 'p50', 'p99', 'server CPU ms/req', 'postgres CPU ms/req'],
    [
      ...probes.map((p) => [
        p.phase,
        ms(p.latencyMs.p50),
        ms(p.latencyMs.p99),
        maybe(p.cpu.serverMs),
        maybe(p.cpu.postgresMs),
      ]),
      ...results.map((r) => [
        r.label,
        ms(r.paced.latencyMs.p50),
        ms(r.paced.latencyMs.p99),
        maybe(r.paced.cpu.serverMs),
        maybe(r.paced.cpu.postgresMs),
      ]),
      ['raw auth lookup (SQL)', ms(rawAuth.latencyMs.p50), ms(rawAuth.latencyMs.p99), '-', '-'],
    ],
  ))
    out(line)
  out()
  out(
    `EXPLAIN (ANALYZE, BUFFERS) of the deepest page (rows ${deepest.toLocaleString('en-US')}+, custom plan):`,
  )
  for (const line of plans.deep.lines) out(`  ${line}`)
  out()
  out(
    `Keyset indexes${nullsFirstIndex ? ' (recreated by --nulls-first-index)' : ' (as migrated)'} and the plans of each read:`,
  )
  for (const definition of keysetIndexes) out(`  ${definition}`)
  for (const [name, plan] of Object.entries({ ...plans, genericDeep, serverDeep }))
    out(
      `  ${name.padEnd(11)} ${plan.index ?? 'no index'}${plan.usesExpectedIndex ? '' : ` (expected ${plan.expectedIndex})`}, ${plan.sort ? 'SORT' : 'no sort'}, ${plan.offset ? 'OFFSET' : 'no offset'}, ${plan.rows ?? '?'} rows, ${maybe(plan.executionMs, 3)} ms, ${plan.buffers ?? ''}`,
    )
  out()
  out(
    `Goal (issue 17): p99 < ${GOAL.p99Ms} ms at ${RATE} req/s paced for every list and single read: ${goal.pacedP99Met ? 'MET' : 'NOT MET'} (worst ${ms(worstPacedP99)} ms)`,
  )
  out(
    `Earlier goal: p99 < ${GOAL.p99Ms} ms for a 25-item page at any depth, autocannon and paced: ${goal.p99Met ? 'MET' : 'NOT MET'} (worst ${ms(worstP99)} ms); within ${GOAL.ratio}x of the raw query's p99: ${goal.ratioMet ? 'MET' : 'NOT MET'} (worst ${worstRatio.toFixed(1)}x)${allSustained ? '' : `; ${RATE} req/s not sustained by every list phase`}`,
  )
  out(
    `Breakdown of a first-page request (paced p50): route floor ${ms(breakdown.routeFloorMs)} ms, auth lookup +${ms(breakdown.authLookupMs)} ms (raw ${ms(breakdown.rawAuthLookupMs)}), rate limit + list query + JSON +${ms(breakdown.rateLimitQueryAndJsonMs)} ms (raw query ${ms(breakdown.rawListQueryMs)}); server CPU ${maybe(breakdown.serverCpuMsPerListRequest)} ms/request (${maybe(breakdown.serverCpuMsPer401NoToken)} for a 401 without token)`,
  )

  // --- maximum rate, the floor and the ratios ---------------------------------------------
  const maxRows = results.filter((r) => r.max)
  out()
  out(`Maximum rate (autocannon, ${MAX_CONNECTIONS} connections, ${PHASE_SECONDS} s):`)
  for (const line of table(
    ['case', 'req/s', 'p50', 'p99', 'server CPU ms/req', 'postgres CPU ms/req', 'non-2xx'],
    maxRows.map((r) => [
      r.label,
      r.max!.requestsPerSecond.toFixed(1),
      ms(r.max!.latencyMs.p50),
      ms(r.max!.latencyMs.p99),
      maybe(r.max!.cpu.serverMs, 3),
      maybe(r.max!.cpu.postgresMs, 3),
      String(r.max!.non2xx + r.max!.errors),
    ]),
  ))
    out(line)
  const floorComparisons = (['list', 'issue'] as const).flatMap((read) => {
    const pair = floorMax.get(read)
    const ours = results.find((r) => r.name === (read === 'list' ? 'page1' : 'issue'))
    const at = (server: 'next' | 'bare') => floorPaced.find((f) => f.server === server && f.read === read)
    const next = at('next')
    const bare = at('bare')
    if (!pair || !ours?.max || !next || !bare) return []
    const oursMax: ComparedFigures = {
      requestsPerSecond: ours.max.requestsPerSecond,
      latencyMs: ours.max.latencyMs,
      serverCpuMsPerRequest: ours.max.cpu.serverMs,
      postgresCpuMsPerRequest: ours.max.cpu.postgresMs,
    }
    const cpu = (r: { cpu: CpuPerRequest }) => r.cpu.serverMs ?? 0
    return [
      {
        read,
        bytes: bodyBytes[read],
        // At our paced rate: the goal's comparison (ours at most 1.5x the floor's CPU per request).
        pacedServerCpuMs: {
          ours: ours.paced.cpu.serverMs,
          floorNext: next.paced.cpu.serverMs,
          bare: bare.paced.cpu.serverMs,
        },
        pacedServerCpu: floorRatios(cpu(ours.paced), cpu(next.paced), cpu(bare.paced)),
        pacedP99Ms: {
          ours: ours.paced.latencyMs.p99,
          floorNext: next.paced.latencyMs.p99,
          bare: bare.paced.latencyMs.p99,
        },
        // At the maximum rate, closed loop on both sides.
        max: floorComparison(oursMax, pair),
        oursMax,
        floorMax: pair,
      },
    ]
  })
  if (floorComparisons.length > 0) {
    out()
    out(
      `Against the floor in this run: GET /floor/json?bytes=N (our answer's size) on a minimal Next app and on bare node:http. Paced ${RATE}/s (server CPU ms/request):`,
    )
    for (const line of table(
      ['read', 'bytes', 'ours', 'floor', 'bare', 'ours/floor', 'ours/bare', 'p99 ours', 'p99 floor'],
      floorComparisons.map((f) => [
        f.read,
        String(f.bytes),
        maybe(f.pacedServerCpuMs.ours, 3),
        maybe(f.pacedServerCpuMs.floorNext, 3),
        maybe(f.pacedServerCpuMs.bare, 3),
        f.pacedServerCpu.vsFloor.toFixed(2),
        f.pacedServerCpu.vsBare.toFixed(2),
        ms(f.pacedP99Ms.ours),
        ms(f.pacedP99Ms.floorNext),
      ]),
    ))
      out(line)
    for (const f of floorComparisons) {
      out()
      out(`Maximum rate, ${f.read} (${f.bytes} bytes), ${MAX_CONNECTIONS} connections:`)
      for (const line of floorTable([{ label: `ours: ${f.read}`, figures: f.oursMax }], f.floorMax)) out(line)
    }
    const worstCpuRatio = Math.max(...floorComparisons.map((f) => f.pacedServerCpu.vsFloor))
    out()
    out(
      `Goal: server CPU per read at most ${FLOOR_CPU_GOAL}x the floor route's (paced ${RATE}/s): ${worstCpuRatio <= FLOOR_CPU_GOAL ? 'MET' : 'NOT MET'} (worst ${worstCpuRatio.toFixed(2)}x)`,
    )
  } else if (withFloor) out('Floor routes not measured (see problems).')
  for (const profile of profiles) {
    out()
    out(`CPU profile of the server (${profile.totalMs} ms busy): ${profile.file}`)
    out('  by package (self time):')
    for (const p of profile.byPackage) out(`    ${p.percent.toFixed(1).padStart(5)}%  ${p.name}`)
    out('  top functions (self time):')
    for (const f of profile.topFunctions) out(`    ${f.percent.toFixed(1).padStart(5)}%  ${f.name}`)
  }

  if (asJson)
    process.stdout.write(
      `${JSON.stringify(
        {
          machine,
          config: {
            schema: nullsFirstIndex ? 'diagnostic: keyset indexes recreated DESC NULLS FIRST' : 'as migrated',
            keysetIndexes,
            rate: RATE,
            phaseSeconds: PHASE_SECONDS,
            requestsPerPhase: REQUESTS,
            autocannonConnections: CONNECTIONS,
            keys: KEYS,
            pageSize: PAGE,
            walkLimit: WALK_LIMIT,
            depths: DEPTHS,
            status: STATUS,
          },
          seed: { ...seeded, tokens: seeded.tokens.length },
          walk: {
            pages: walk.pages,
            rows: walk.rows,
            uniqueIds: walk.uniqueIds,
            ordered: walk.ordered,
            seconds: walk.seconds,
          },
          cases: results,
          probes,
          rawAuthLookup: rawAuth,
          breakdown,
          bodyBytes,
          floor: { paced: floorPaced, comparisons: floorComparisons },
          profiles,
          explain: { ...plans, genericDeep, serverDeep },
          goal,
          problems,
        },
        null,
        2,
      )}\n`,
    )

  if (problems.length > 0) {
    loud(`${problems.length} problem(s) in this run:\n${problems.join('\n')}`)
    if (problems.some((p) => p.includes('non-2xx') || p.includes('probe')))
      process.stderr.write(`server log tail:\n${serverLogs.slice(-4000)}\n`)
    process.exitCode = 1
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  })
  .finally(async () => {
    await cleanup.run()
  })
