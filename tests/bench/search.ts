import os from 'node:os'
import { PGlite } from '@electric-sql/pglite'
import { type Logger, sql } from 'drizzle-orm'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import type { Db } from '@/db/client'
import { migrateDatabase } from '@/db/migrate'
import * as schema from '@/db/schema'
import { SearchTimeoutError } from '@/lib/errors'
import { MATCHING_IDS_MAX, matchingSessionIds, parseQuery } from '@/lib/search'
import { listSessionItems } from '@/lib/sessions/list-session-items'
import { createCleanup } from './harness/cleanup'
import { createScratchDatabase, type ScratchDatabase, withDatabase } from './harness/database'
import { machineLoad, otherNextProcesses, postgresCpuMs, treeCpuMs } from './harness/machine'
import { type Latency, round, summarize } from './harness/stats'
import { textTable } from './harness/table'
import { agentFacts, type SearchSeed, seedSearch } from './search-seed'

/**
 * `npm run bench:search [-- --json] [-- --iterations=N] [-- --keep] [-- --reuse=<database>] [-- --pglite]`
 * (`npm run -s` for stdout that is the JSON alone)
 *
 * Times the session search (issue 37) the way GET /api/v1/sessions?q= and MCP list_sessions
 * run it: listSessionItems with `q`, the first page of 25 with its moments, on Postgres, over
 * 100,000 processed sessions of one organization (and 10,000 of a second one, which every
 * query must step over) with trails of 20 to 60 entries each (tests/bench/search-seed.ts).
 * Each query runs `--iterations` times after two warm-up runs, one at a time, on one
 * connection prepared like the server's; the figures are wall time per call, and the CPU of
 * the Postgres backend that ran it and of this process (the domain code and JSON). Then every
 * statement the call sent is run again under EXPLAIN (ANALYZE, BUFFERS) with the same
 * parameters, and the plan is summarised: which indexes answered, which tables were read
 * whole. BENCH_SESSIONS=<n> seeds fewer sessions for a short run (figures not comparable).
 *
 * The database is a scratch one (bench_search_<timestamp>) on DATABASE_URL's server, dropped at
 * the end; `--keep` leaves it (its name is printed) and `--reuse=<name>` measures a kept one
 * again without seeding. `--pglite` runs the same on PGlite in memory in this process, at
 * 10,000 sessions by default. See docs/performance.md#search.
 */

const argv = process.argv.slice(2)
const asJson = argv.includes('--json')
const keep = argv.includes('--keep')
// --pglite: PGlite in memory in this process, at 10,000 sessions unless BENCH_SESSIONS says otherwise.
const pglite = argv.includes('--pglite')
const reuse = argv.find((a) => a.startsWith('--reuse='))?.slice('--reuse='.length)
const iterationsOption = Number(
  argv.find((a) => a.startsWith('--iterations='))?.slice('--iterations='.length) ?? 20,
)
const ITERATIONS = Number.isInteger(iterationsOption) && iterationsOption > 0 ? iterationsOption : 20
const WARMUP = 2
// --only=event,user: those queries alone (by name), e.g. to measure one again after a change.
const only = argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',')
const MAIN_SESSIONS = Number(process.env.BENCH_SESSIONS ?? (pglite ? 10_000 : 100_000))
const OTHER_SESSIONS = Math.max(1, Math.round(MAIN_SESSIONS / 10))
const PAGE = 25

/** The representative queries: each kind of condition, a rare and a common match, and none. */
const ALL_QUERIES: { name: string; label: string; q: string }[] = [
  { name: 'moment', label: 'one moment condition', q: 'click.text = Pay' },
  { name: 'contains', label: 'text contains', q: 'error.message ~ "cannot read properties"' },
  { name: 'request', label: 'request url + status', q: 'request[url ~ /api/cart and status = 500]' },
  { name: 'sequence', label: 'sequence within 60 s', q: 'click.text = Pay then error within 60s' },
  { name: 'negation', label: 'negation + session figure', q: 'not error and pages >= 3' },
  {
    name: 'session+moment',
    label: 'session field + moment',
    q: 'browser = Safari and page.path = /checkout/payment',
  },
  { name: 'user', label: 'user id', q: 'user.id = user-123' },
  { name: 'event', label: 'event property', q: 'event[name = purchase and prop.amount > 100]' },
  { name: 'rare', label: 'rare match (~0.05 %)', q: 'error.message ~ ChunkLoadError' },
  { name: 'common', label: 'common match (all)', q: 'request.status = 200' },
  { name: 'none', label: 'no match', q: 'console.message ~ "no such message anywhere"' },
]
const QUERIES = only ? ALL_QUERIES.filter((q) => only.includes(q.name)) : ALL_QUERIES

const out = (line = '') => (asJson ? process.stderr : process.stdout).write(`${line}\n`)
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`)
const cleanup = createCleanup(progress)

interface Statement {
  sql: string
  params: unknown[]
}

interface PlanSummary {
  statement: string
  /**
   * The page's query (the first statement: the list with q's condition) or the moments (a
   * statement over the trail); the others read the page's issues and signals, as without q.
   */
  search: boolean
  indexes: string[]
  seqScans: string[]
  executionMs: number | null
  planningMs: number | null
  jit: boolean
  buffers: string | null
  lines: string[]
}

interface QueryResult {
  name: string
  label: string
  q: string
  items: number
  moments: number
  nextPage: boolean
  latencyMs: Latency
  cpuMsPerQuery: { postgresBackend: number | null; postgresAll: number | null; node: number }
  statements: number
  /** Timed calls the statement timeout stopped (their time is in the latencies). */
  timeouts: number
  plans: PlanSummary[]
}

/** Captures what each call sends: drizzle logs every statement with its parameters. */
class Recorder implements Logger {
  statements: Statement[] | null = null
  logQuery(query: string, params: unknown[]): void {
    this.statements?.push({ sql: query, params })
  }
}

function summarizePlan(statement: Statement, first: boolean, lines: string[]): PlanSummary {
  const text = lines.join('\n')
  const indexes = new Set<string>()
  for (const m of text.matchAll(/(?:Index (?:Only )?Scan(?: Backward)? using|Bitmap Index Scan on) (\S+)/g))
    indexes.add(m[1]!)
  const seqScans = new Set<string>()
  for (const m of text.matchAll(/Seq Scan on (\S+)/g)) seqScans.add(m[1]!)
  const execution = /Execution Time: ([\d.]+) ms/.exec(text)
  const planning = /Planning Time: ([\d.]+) ms/.exec(text)
  return {
    statement: statement.sql.replace(/\s+/g, ' '),
    search: first || statement.sql.includes('session_timeline_entries'),
    indexes: [...indexes],
    seqScans: [...seqScans],
    executionMs: execution ? Number(execution[1]) : null,
    planningMs: planning ? Number(planning[1]) : null,
    jit: /^JIT:/m.test(text),
    buffers: lines.find((line) => line.includes('Buffers:'))?.trim() ?? null,
    lines,
  }
}

/** matchingSessionIds answers at most MATCHING_IDS_MAX ids. */
const capped = (n: number) => (n >= MATCHING_IDS_MAX ? `>=${n}` : String(n))

const fmt = (value: number | null, digits = 2) => (value === null ? 'n/a' : value.toFixed(digits))

interface Engine {
  /** The measured database handle; its statements are recorded. */
  db: Db
  /** Anything else (EXPLAIN, counters, facts), outside the measured connection. */
  rawQuery<T>(text: string, params?: unknown[]): Promise<T[]>
  /** CPU ms so far of the Postgres backend answering `db`; null for PGlite (this process). */
  backendCpuMs(): number | null
  databaseName: string
  seed: SearchSeed | null
}

const seedProgress = (seed: SearchSeed) =>
  progress(
    `seeded ${seed.sessions.toLocaleString('en-US')} sessions, ${seed.entries.toLocaleString('en-US')} entries in ${seed.seconds.load} s (+${seed.seconds.indexes} s indexes, +${seed.seconds.analyze} s analyze)`,
  )

async function openPostgres(recorder: Recorder): Promise<Engine> {
  let url: string
  let databaseName: string
  let seed: SearchSeed | null = null
  if (reuse) {
    const target = new URL(process.env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test')
    target.pathname = `/${reuse}`
    url = target.toString()
    databaseName = reuse
    // A database kept from a run of an earlier schema: the migrations it lacks (timed, they are
    // what an upgrade of a service holding this many sessions would run), and the browser, OS and
    // device the processing pass would have written.
    progress(`migrating ${reuse}`)
    const started = performance.now()
    await withDatabase({ kind: 'postgres', url }, async (db) => {
      await db.execute(agentFacts())
      await db.execute(sql`analyze replay_sessions`)
    })
    progress(`migrated and filled in ${round((performance.now() - started) / 1000, 1)} s`)
  } else {
    const scratch: ScratchDatabase = await createScratchDatabase('bench_search')
    if (!keep) cleanup.add(() => scratch.drop())
    url = scratch.url
    databaseName = scratch.name
    progress(
      `seeding ${MAIN_SESSIONS.toLocaleString('en-US')} + ${OTHER_SESSIONS.toLocaleString('en-US')} sessions into ${scratch.name}`,
    )
    seed = await withDatabase({ kind: 'postgres', url }, (db) =>
      seedSearch(db, { mainSessions: MAIN_SESSIONS, otherSessions: OTHER_SESSIONS, progress }),
    )
    seedProgress(seed)
  }
  // One connection, configured like the server's pool (db/client.ts), so the backend that
  // answers every call is one process whose CPU time /proc can read.
  const client = postgres(url, { max: 1, prepare: true, fetch_types: false, onnotice: () => {} })
  cleanup.add(() => client.end({ timeout: 5 }))
  const db = drizzle(client, { schema, logger: recorder }) as unknown as Db
  const raw = postgres(url, { max: 1, onnotice: () => {} })
  cleanup.add(() => raw.end({ timeout: 5 }))
  const [backend] = await client<{ pid: number }[]>`select pg_backend_pid() as pid`
  const backendPid = backend!.pid
  return {
    db,
    rawQuery: async <T>(text: string, params: unknown[] = []) =>
      (await raw.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as T[],
    backendCpuMs: () => treeCpuMs(backendPid),
    databaseName,
    seed,
  }
}

/** PGlite in memory, in this process: its CPU is the "node" figure. */
async function openPglite(recorder: Recorder): Promise<Engine> {
  const client = new PGlite()
  await client.waitReady
  cleanup.add(() => client.close())
  const db = drizzlePglite(client, { schema, logger: recorder }) as unknown as Db
  await migrateDatabase({ db, kind: 'pglite', close: () => client.close() })
  progress(
    `seeding ${MAIN_SESSIONS.toLocaleString('en-US')} + ${OTHER_SESSIONS.toLocaleString('en-US')} sessions into PGlite in memory`,
  )
  const seed = await seedSearch(db, { mainSessions: MAIN_SESSIONS, otherSessions: OTHER_SESSIONS, progress })
  seedProgress(seed)
  return {
    db,
    rawQuery: async <T>(text: string, params: unknown[] = []) => (await client.query<T>(text, params)).rows,
    backendCpuMs: () => null,
    databaseName: 'PGlite in memory',
    seed,
  }
}

/** Runs the benchmark; answers the number of queries that failed. */
async function main(): Promise<number> {
  const othersAtStart = otherNextProcesses()
  const loadAtStart = await machineLoad(1000)
  if (othersAtStart.length > 0)
    process.stderr.write(
      `\n!!! other builds/servers/tests are running and will distort the figures:\n${othersAtStart.join('\n')}\n\n`,
    )

  const recorder = new Recorder()
  const engine = pglite ? await openPglite(recorder) : await openPostgres(recorder)
  const { db, rawQuery, databaseName, seed } = engine

  const [org] = await rawQuery<{ id: string; sessions: number }>(
    `select organization_id as id, count(*)::int as sessions from replay_sessions
     group by organization_id order by count(*) desc limit 1`,
  )
  if (!org) throw new Error('no sessions in the database')

  // Which indexes the whole run used, from Postgres' own counters (flushed about once a second).
  const indexScans = () =>
    rawQuery<{ name: string; scans: string }>(
      `select indexrelname as name, idx_scan::text as scans from pg_stat_user_indexes
       where relname in ('replay_sessions', 'session_timeline_entries')`,
    )
  const scansBefore = new Map((await indexScans()).map((r) => [r.name, Number(r.scans)]))
  const results: QueryResult[] = []
  const failures: { name: string; q: string; error: string }[] = []
  for (const query of QUERIES) {
    const parsed = parseQuery(query.q)
    if (!parsed.ok) throw new Error(`${query.q}: ${parsed.error} at ${parsed.position}`)
    const call = () => listSessionItems(db, org.id, { limit: PAGE, q: query.q })
    recorder.statements = []
    let first: Awaited<ReturnType<typeof call>>
    try {
      first = await call()
    } catch (error) {
      // A query the engine cannot run on this server is a finding, not the end of the run.
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
      failures.push({ name: query.name, q: query.q, error: cause })
      progress(`${query.name}: FAILED: ${cause}`)
      recorder.statements = null
      continue
    }
    const statements = recorder.statements
    recorder.statements = null
    // A call the statement timeout stopped (lib/search/timeout.ts) is counted, and its time kept.
    let timeouts = 0
    const attempt = async () => {
      try {
        await call()
      } catch (error) {
        if (!(error instanceof SearchTimeoutError)) throw error
        timeouts++
      }
    }
    for (let i = 1; i < WARMUP; i++) await attempt()
    timeouts = 0

    progress(`${query.name}: ${ITERATIONS} calls`)
    const latencies: number[] = []
    const backendBefore = engine.backendCpuMs()
    const allBefore = pglite ? null : postgresCpuMs()
    const nodeBefore = process.cpuUsage()
    for (let i = 0; i < ITERATIONS; i++) {
      const started = performance.now()
      await attempt()
      latencies.push(performance.now() - started)
    }
    if (timeouts > 0)
      progress(`${query.name}: ${timeouts} of ${ITERATIONS} calls stopped by the statement timeout`)
    const node = process.cpuUsage(nodeBefore)
    const backendAfter = engine.backendCpuMs()
    const allAfter = pglite ? null : postgresCpuMs()
    const per = (a: number | null, b: number | null) =>
      a === null || b === null ? null : round((b - a) / ITERATIONS, 2)

    const plans: PlanSummary[] = []
    // The search's own settings (statement timeout, JIT off: lib/search/timeout.ts) are local to
    // its transaction: the plans are taken in one too, with those settings replayed.
    await rawQuery('begin')
    for (const statement of statements.filter((s) => /^\s*select set_config\(/i.test(s.sql)))
      await rawQuery(statement.sql, statement.params)
    // Only reads: EXPLAIN ANALYZE runs the statement.
    for (const statement of statements.filter(
      (s) => /^\s*(select|with)\b/i.test(s.sql) && !/^\s*select set_config\(/i.test(s.sql),
    )) {
      let rows: { 'QUERY PLAN': string }[]
      try {
        rows = await rawQuery<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers) ${statement.sql}`,
          statement.params,
        )
      } catch (error) {
        if ((error as { code?: unknown }).code !== '57014') throw error
        // Stopped by the search's own statement timeout: no plan, and the transaction is over.
        progress(`${query.name}: EXPLAIN ANALYZE stopped by the statement timeout`)
        break
      }
      plans.push(
        summarizePlan(
          statement,
          plans.length === 0,
          rows.map((row) => row['QUERY PLAN']),
        ),
      )
    }
    await rawQuery('rollback')
    const items = first.items as { moments?: unknown[] }[]
    results.push({
      ...query,
      items: items.length,
      moments: items.reduce((n, item) => n + (item.moments?.length ?? 0), 0),
      timeouts,
      nextPage: first.nextCursor !== null,
      latencyMs: summarize(latencies),
      cpuMsPerQuery: {
        postgresBackend: per(backendBefore, backendAfter),
        postgresAll: per(allBefore, allAfter),
        node: round((node.user + node.system) / 1000 / ITERATIONS, 2),
      },
      statements: statements.length,
      plans,
    })
  }

  // How many sessions each query matches in the whole organization (and in the other one):
  // the selectivity the figures depend on. Counted by hand-written SQL would be a second
  // implementation; the engine's own matcher without a limit is the answer.
  const matches: Record<string, { main: number; other: number }> = {}
  const [otherOrg] = await rawQuery<{ id: string }>(
    'select organization_id as id from replay_sessions where organization_id <> $1 limit 1',
    [org.id],
  )
  for (const query of QUERIES) {
    const parsed = parseQuery(query.q)
    if (!parsed.ok) continue
    if (failures.some((f) => f.name === query.name)) continue
    const count = async (organizationId: string | undefined) =>
      organizationId
        ? (await matchingSessionIds(db, { organizationId, query: parsed.query, limit: 1_000_000 })).length
        : 0
    matches[query.name] = { main: await count(org.id), other: await count(otherOrg?.id) }
  }

  await new Promise((resolve) => setTimeout(resolve, 1500))
  const indexUse = (await indexScans())
    .map((r) => ({ name: r.name, scans: Number(r.scans) - (scansBefore.get(r.name) ?? 0) }))
    .sort((a, b) => b.scans - a.scans || a.name.localeCompare(b.name))
  const [pgVersion] = await rawQuery<{ server_version: string }>('show server_version')
  const settings = await rawQuery<{ name: string; setting: string; unit: string | null }>(
    `select name, setting, unit from pg_settings
     where name in ('shared_buffers', 'work_mem', 'jit', 'max_parallel_workers_per_gather', 'random_page_cost')
     order by name`,
  )
  const sizes = await rawQuery<{ name: string; bytes: string }>(
    `select c.relname as name, pg_relation_size(c.oid)::text as bytes from pg_class c
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'i')
       and (c.relname like 'replay_sessions%' or c.relname like 'session_timeline_entries%' or c.relname like '%search%')
     order by pg_relation_size(c.oid) desc`,
  )
  const indexes = await rawQuery<{ indexdef: string }>(
    `select indexdef from pg_indexes where tablename in ('replay_sessions', 'session_timeline_entries')
       or indexname like '%search%' order by indexname`,
  )
  const cpus = os.cpus()
  const machine = {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: pgVersion?.server_version ?? 'unknown',
    settings: Object.fromEntries(settings.map((s) => [s.name, `${s.setting}${s.unit ?? ''}`])),
    loadAtStartPercentOfCore: loadAtStart,
    otherProcessesAtStart: othersAtStart,
    otherProcessesAtEnd: otherNextProcesses(),
  }

  out()
  out(
    `Session search on ${pglite ? 'PGlite (Postgres ' : 'Postgres '}${machine.postgres}${pglite ? ')' : ''} (${databaseName}): ${org.sessions.toLocaleString('en-US')} sessions in the searched organization${seed ? `, ${seed.entries.toLocaleString('en-US')} trail entries in all, ${(OTHER_SESSIONS).toLocaleString('en-US')} sessions in a second organization` : ''}`,
  )
  out(`${machine.cpuModel} x ${machine.cpus}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}`)
  out(
    `Postgres settings: ${Object.entries(machine.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  )
  out(`Machine load before the run: ${loadAtStart ?? 'n/a'} % of one core`)
  if (machine.otherProcessesAtStart.length + machine.otherProcessesAtEnd.length > 0)
    out(
      `WARNING: other builds/servers/tests ran on this machine during the run; the figures are distorted:\n  ${[...new Set([...machine.otherProcessesAtStart, ...machine.otherProcessesAtEnd])].join('\n  ')}`,
    )
  if (pglite) out('PGlite runs in this process: its CPU is in the node figure; Postgres CPU is not measured.')
  out(
    `listSessionItems(limit ${PAGE}, q), ${ITERATIONS} calls per query after ${WARMUP} warm-up calls, one at a time on one prepared connection; CPU ms per call: the Postgres backend (pg all: every Postgres process, parallel workers and other work included), this process (domain code).`,
  )
  out()
  for (const line of textTable(
    [
      'query',
      'q',
      'matches',
      'page',
      'p50 ms',
      'p99 ms',
      'max ms',
      'timed out',
      'pg cpu',
      'pg all',
      'node cpu',
      'indexes',
      'seq scans',
    ],
    results.map((r) => {
      const m = matches[r.name]
      const search = r.plans.find((p) => p.search)
      return [
        r.name,
        r.q,
        m ? `${capped(m.main)} (${capped(m.other)})` : '?',
        `${r.items}${r.nextPage ? '+' : ''}/${r.moments}m`,
        r.latencyMs.p50.toFixed(2),
        r.latencyMs.p99.toFixed(2),
        r.latencyMs.max.toFixed(2),
        `${r.timeouts}/${ITERATIONS}`,
        fmt(r.cpuMsPerQuery.postgresBackend),
        fmt(r.cpuMsPerQuery.postgresAll),
        fmt(r.cpuMsPerQuery.node),
        [...new Set(r.plans.filter((p) => p.search).flatMap((p) => p.indexes))].join(' ') || '-',
        [...new Set(r.plans.filter((p) => p.search).flatMap((p) => p.seqScans))].join(' ') ||
          (search ? '-' : '?'),
      ]
    }),
  ))
    out(line)
  for (const f of failures) out(`FAILED ${f.name} (${f.q}): ${f.error}`)
  out()
  out(
    'matches: sessions of the searched organization (of the second one) the query matches; page: items on the first page (+ when there is a next page) / moments on it.',
  )
  out()
  out(
    "EXPLAIN (ANALYZE, BUFFERS) of every statement of one call, in full for the page's search and the moments (the others read the page's issues and signals, as without q):",
  )
  for (const r of results) {
    out()
    out(`### ${r.name}: ${r.q}`)
    r.plans.forEach((p, i) => {
      out(
        `-- statement ${i + 1}/${r.plans.length}: ${p.statement.slice(0, p.search ? 240 : 80)}… execution ${fmt(p.executionMs)} ms, planning ${fmt(p.planningMs)} ms${p.jit ? ', JIT' : ''}; indexes: ${p.indexes.join(', ') || 'none'}; seq scans: ${p.seqScans.join(', ') || 'none'}`,
      )
      if (p.search) for (const line of p.lines) out(`   ${line}`)
    })
  }
  out()
  out('Indexes of the searched tables:')
  for (const i of indexes) out(`  ${i.indexdef}`)
  out('Index scans during the run (pg_stat_user_indexes; every call, EXPLAIN and match count included):')
  for (const i of indexUse) out(`  ${i.name}: ${i.scans.toLocaleString('en-US')}`)
  out('Sizes:')
  for (const s of sizes) out(`  ${s.name}: ${(Number(s.bytes) / 1024 ** 2).toFixed(1)} MiB`)
  if (keep || reuse) out(`Database kept: ${databaseName}`)

  if (asJson)
    process.stdout.write(
      `${JSON.stringify(
        {
          benchmark: 'search',
          date: new Date().toISOString(),
          machine,
          seed,
          iterations: ITERATIONS,
          matches,
          failures,
          indexUse,
          results,
        },
        null,
        2,
      )}\n`,
    )
  return failures.length
}

main()
  .then(async (failed) => {
    await cleanup.run()
    if (failed > 0) process.exit(1)
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    await cleanup.run()
    process.exit(1)
  })
