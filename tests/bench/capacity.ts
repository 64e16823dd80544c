import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import postgres from 'postgres'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { freePort } from '../helpers/free-port'
import { Confirmations } from './capacity-confirm'
import { type Fixture, fixturesFrom, seededRandom, Visitor, VisitorPool } from './capacity-visitors'
import { createCleanup } from './harness/cleanup'
import { prepareDatabase, withDatabase } from './harness/database'
import { type Floor, measureFloorPhase, startFloor } from './harness/floor'
import {
  type CpuSnapshot,
  type CpuUsage,
  cpuBetween,
  cpuMsPerRequest,
  cpuSnapshot,
  machineLoad,
  memoryOf,
  otherNextProcesses,
  postgresMemory,
} from './harness/machine'
import { keepAliveAgent } from './harness/pace'
import { hasProductionBuild, setServerNode } from './harness/server'
import { round, summarize } from './harness/stats'
import { textTable } from './harness/table'
import { runClosedLoop } from './load'
import { SOAK_AUTH_SECRET, type SoakServer, startSoakServer } from './load-server'
import { loadRecordings, Recorder } from './load-traffic'

/**
 * `npm run bench:capacity [-- --database postgres|pglite|both] [--levels-postgres 500,750,...]
 * [--levels-pglite 125,250,...] [--step-seconds 90] [--hold-minutes 5] [--ratio-runs 3]
 * [--ratio-seconds 10] [--holds 2] [--hostile-every 500] [--compare-node PATH] [--cpu-prof DIR] [--json]`
 * (BENCH_SECONDS=N: a short run that only proves it works).
 *
 * How many people the service records at once on this machine, end to end: visitors
 * (capacity-visitors.ts) record at the recorder's real cadence against the production build
 * (`npm start`), on Postgres and on PGlite. The number of visitors rises level by level; each
 * level is judged over its `step-seconds`; the highest level that met every condition is
 * then held for `hold-minutes` and judged again (if it fails, the next lower one, up to `holds`
 * holds):
 *   - ingest p99 under 250 ms, and no answer but 200;
 *   - every visitor who left listed by the Data API as processed, with its issues, within 60 s
 *     of its final batch (capacity-confirm.ts);
 *   - the processing backlog (visitors who left, not yet listed) not growing;
 *   - over the hold, the server's memory flat.
 * Then, in the same run, the ratio of our ingest's maximum throughput to the floor route's
 * (a minimal Next route reading and parsing the same bodies; harness/floor.ts), `ratio-runs`
 * times, each with its own floor, and their median. All traffic is on 127.0.0.1; docs/capacity.md
 * publishes the figures. With --compare-node, the ratio phases run a second time with the
 * server and the floor on that Node binary, so two Node versions are compared in one run.
 * Exit code 1 when a goal is missed or the run went wrong.
 */

const argv = process.argv.slice(2)
function option(name: string): string | undefined {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (at < 0) return undefined
  return argv[at]!.includes('=') ? argv[at]!.split('=').slice(1).join('=') : argv[at + 1]
}
function numberOption(name: string, fallback: number): number {
  const raw = option(name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) fail(`--${name}: a positive number is required`)
  return value
}
function levelsOption(name: string, fallback: number[]): number[] {
  const raw = option(name)
  if (raw === undefined) return fallback
  const levels = raw.split(',').map(Number)
  if (levels.some((n) => !Number.isInteger(n) || n <= 0))
    fail(`--${name}: positive integers, comma-separated`)
  return levels.sort((a, b) => a - b)
}
function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

const SHORT = process.env.BENCH_SECONDS ? Math.max(5, Number(process.env.BENCH_SECONDS)) : null
const DATABASES = (option('database') ?? 'both') === 'both' ? ['postgres', 'pglite'] : [option('database')!]
if (DATABASES.some((d) => d !== 'postgres' && d !== 'pglite')) fail('--database: postgres, pglite or both')
const LEVELS: Record<string, number[]> = {
  postgres: levelsOption(
    'levels-postgres',
    SHORT ? [50, 100] : [500, 750, 1000, 1250, 1500, 2000, 2500, 3000],
  ),
  pglite: levelsOption('levels-pglite', SHORT ? [50, 100] : [125, 250, 375, 500, 750, 1000]),
}
const STEP_SECONDS = SHORT ?? numberOption('step-seconds', 90)
const HOLD_SECONDS = SHORT ?? numberOption('hold-minutes', 5) * 60
const RATIO_RUNS = Math.round(numberOption('ratio-runs', 3))
const HOLDS = Math.round(numberOption('holds', 2))
const RATIO_SECONDS = SHORT ? 3 : numberOption('ratio-seconds', 10)
// Another Node binary: the ratio phases run again with the server (and the floor) on it.
const COMPARE_NODE = option('compare-node')
const ORGANIZATIONS = 4
// The spec allows 100 batches a minute per ingest key; a visitor sends at most 12 (one per 5 s)
// and its final one, so 6 visitors share a key with room to spare.
const VISITORS_PER_KEY = 6
const HOSTILE_EVERY = Math.round(numberOption('hostile-every', 500))
const DISTINCT_EVERY = 20
const GOAL = {
  p99Ms: 250,
  listedWithinMs: 60_000,
  visitors: { postgres: 2000, pglite: 500 } as Record<string, number>,
}
const RATIO_GOAL = 0.5
// The backlog may wobble this much between the first and last third of a window.
const BACKLOG_TOLERANCE = { ratio: 0.2, visitors: 30 }
// As the soak run: V8 sizes its heap to the load and keeps it, which is not a leak.
const MEMORY_TOLERANCE = { ratio: 0.1, mib: 24 }
const SAMPLE_MS = 10_000
const SETTLE_MS = SHORT ? 0 : 20_000
// Postgres' own defaults for when autovacuum takes a table: dead rows past 50 + 20 % of the live.
const AUTOVACUUM = { threshold: 50, scaleFactor: 0.2, everyMs: 60_000 }
const CPUS = os.cpus().length

const progress = (line: string) => process.stderr.write(`[capacity] ${line}\n`)
const cleanup = createCleanup(progress)

interface Sample {
  at: number
  recording: number
  batchesPerSecond: number
  meanBatchBytes: number
  p99Ms: number
  errors: number
  backlog: number
  oldestWaitMs: number
  listedP99Ms: number
  cpu: CpuUsage
  batches: number
  serverRssMiB: number
  postgresPssMiB: number | null
  heapLiveMiB: number | null
  loopDelayMaxMs: number | null
}

interface Verdict {
  ok: boolean
  problems: string[]
}

interface WindowFigures {
  level: number
  seconds: number
  recordingMean: number
  batchesPerSecond: number
  meanBatchBytes: number
  ingest: ReturnType<typeof summarize>
  errors: number
  listed: ReturnType<typeof summarize>
  listedCount: number
  backlog: { first: number; last: number }
  cpuPercent: {
    server: number | null
    postgres: number | null
    generator: number | null
    other: number | null
  }
  cpuMsPerBatch: { server: number | null; postgres: number | null }
  serverRssMiB: { first: number; last: number; max: number }
  postgresPssMiB: number | null
  verdict: Verdict
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)
const thirds = (values: number[]) => {
  const third = Math.max(1, Math.floor(values.length / 3))
  return { first: mean(values.slice(0, third)), last: mean(values.slice(-third)) }
}

/** Runs the level's traffic for `seconds`, sampling every 10 s, and judges the window. */
async function measureWindow(
  run: RunState,
  level: number,
  seconds: number,
  options: { memoryFlat: boolean },
): Promise<WindowFigures> {
  const samples: Sample[] = []
  const latencies: number[] = []
  let errors = 0
  const confirmedBefore = run.confirmations.confirmed.length
  const windowStart = Date.now()
  const cpuStart = cpuSnapshot(run.server.pid, run.kind === 'postgres')
  let cpuBefore: CpuSnapshot = cpuStart
  const batchesStart = run.pool.batches
  const bytesStart = run.pool.bytes
  let batchesBefore = batchesStart
  let bytesBefore = bytesStart
  run.recorder.cut(['ingest'])
  while (Date.now() - windowStart < seconds * 1000 - 500) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(SAMPLE_MS, seconds * 1000 - (Date.now() - windowStart))),
    )
    latencies.push(...run.recorder.windowLatencies('ingest'))
    const [ingest] = run.recorder.cut(['ingest'])
    const cpuNow = cpuSnapshot(run.server.pid, run.kind === 'postgres')
    const cpu = cpuBetween(cpuBefore, cpuNow)
    cpuBefore = cpuNow
    const batches = run.pool.batches - batchesBefore
    const bytes = run.pool.bytes - bytesBefore
    batchesBefore = run.pool.batches
    bytesBefore = run.pool.bytes
    errors += ingest!.errors
    const listed = run.confirmations.confirmed
      .slice(confirmedBefore)
      .filter((c) => c.at > Date.now() - SAMPLE_MS)
    const sample: Sample = {
      at: Math.round((Date.now() - windowStart) / 1000),
      recording: run.pool.recording,
      batchesPerSecond: round(ingest!.perSecond, 1),
      meanBatchBytes: Math.round(bytes / Math.max(1, batches)),
      p99Ms: ingest!.latencyMs.p99,
      errors: ingest!.errors,
      backlog: run.confirmations.waiting.size,
      oldestWaitMs: run.confirmations.oldestWaitMs(),
      listedP99Ms: summarize(listed.map((c) => c.latencyMs)).p99,
      cpu,
      batches,
      serverRssMiB: memoryOf(run.server.pid).rssMiB ?? 0,
      postgresPssMiB: run.kind === 'postgres' ? (postgresMemory().pssMiB ?? null) : null,
      heapLiveMiB: run.server.heap()?.liveMiB ?? null,
      loopDelayMaxMs: run.server.heap()?.loopDelayMaxMs ?? null,
    }
    samples.push(sample)
    progress(
      `${run.kind} ${level}: ${sample.recording} recording, ${sample.batchesPerSecond} batches/s (${Math.round(sample.meanBatchBytes / 1024)} KiB), p99 ${sample.p99Ms} ms, errors ${sample.errors}, backlog ${sample.backlog} (oldest ${Math.round(sample.oldestWaitMs / 1000)} s), listed p99 ${Math.round(sample.listedP99Ms / 1000)} s, CPU srv/pg/gen/other ${cpu.serverPercent ?? '?'}/${cpu.postgresPercent ?? '?'}/${cpu.loadGeneratorPercent ?? '?'}/${cpu.otherPercent ?? '?'}%, RSS ${sample.serverRssMiB} MiB, loop stalled up to ${sample.loopDelayMaxMs ?? '?'} ms`,
    )
  }
  const cpuAll = cpuBetween(cpuStart, cpuBefore)
  const batches = run.pool.batches - batchesStart
  const perBatch = cpuMsPerRequest(cpuStart, cpuBefore, batches)
  const listed = run.confirmations.confirmed.slice(confirmedBefore)
  const backlog = thirds(samples.map((s) => s.backlog))
  const rss = thirds(samples.map((s) => s.serverRssMiB))
  const ingest = summarize(latencies)
  const problems: string[] = []
  if (ingest.p99 >= GOAL.p99Ms) problems.push(`ingest p99 ${ingest.p99} ms (goal < ${GOAL.p99Ms})`)
  if (errors > 0) problems.push(`${errors} ingest answers other than 200`)
  const slowest = Math.max(0, ...listed.map((c) => c.latencyMs), ...samples.map((s) => s.oldestWaitMs))
  if (slowest > GOAL.listedWithinMs)
    problems.push(`a visitor waited ${Math.round(slowest / 1000)} s to be listed (goal within 60 s)`)
  if (backlog.last > backlog.first * (1 + BACKLOG_TOLERANCE.ratio) + BACKLOG_TOLERANCE.visitors)
    problems.push(`backlog grew from ${Math.round(backlog.first)} to ${Math.round(backlog.last)} visitors`)
  if (options.memoryFlat && rss.last > rss.first * (1 + MEMORY_TOLERANCE.ratio) + MEMORY_TOLERANCE.mib)
    problems.push(`server RSS grew from ${Math.round(rss.first)} to ${Math.round(rss.last)} MiB`)
  const missing = run.confirmations.missingIssues.splice(0)
  if (missing.length > 0)
    problems.push(`${missing.length} sessions listed without their issues (${missing[0]})`)
  const queryFailures = run.confirmations.failures.splice(0)
  if (queryFailures.length > 0) problems.push(`Data API look-ups failed: ${queryFailures[0]}`)
  return {
    level,
    seconds: Math.round((Date.now() - windowStart) / 1000),
    recordingMean: Math.round(mean(samples.map((s) => s.recording))),
    batchesPerSecond: round(batches / Math.max(1, (Date.now() - windowStart) / 1000), 1),
    meanBatchBytes: Math.round((run.pool.bytes - bytesStart) / Math.max(1, batches)),
    ingest,
    errors,
    listed: summarize(listed.map((c) => c.latencyMs)),
    listedCount: listed.length,
    backlog: { first: Math.round(backlog.first), last: Math.round(backlog.last) },
    cpuPercent: {
      server: cpuAll.serverPercent,
      postgres: cpuAll.postgresPercent,
      generator: cpuAll.loadGeneratorPercent,
      other: cpuAll.otherPercent,
    },
    cpuMsPerBatch: { server: perBatch.server, postgres: perBatch.postgres },
    serverRssMiB: {
      first: Math.round(rss.first),
      last: Math.round(rss.last),
      max: Math.max(...samples.map((s) => s.serverRssMiB)),
    },
    postgresPssMiB: samples.at(-1)?.postgresPssMiB ?? null,
    verdict: { ok: problems.length === 0, problems },
  }
}

interface VacuumRecord {
  tables: { table: string; at: number }[]
  failedPasses: number
}

interface RunState {
  kind: 'postgres' | 'pglite'
  server: SoakServer
  pool: VisitorPool
  recorder: Recorder
  confirmations: Confirmations
}

interface RatioRun {
  floorPerSecond: number
  oursPerSecond: number
  ratio: number
  floorCpuMsPerRequest: number | null
  oursCpuMsPerRequest: number | null
  oursPostgresCpuMsPerRequest: number | null
  oursNon2xx: number
  /** Other processes used over a quarter of a core during the floor's or our phase. */
  disturbed: boolean
}

interface DatabaseResult {
  kind: 'postgres' | 'pglite'
  steps: WindowFigures[]
  holds: WindowFigures[]
  /** The hold that met every condition, if one did. */
  held: WindowFigures | null
  ended: { visitors: number; unlisted: number; drainSeconds: number }
  ratio: { node: string; runs: RatioRun[]; median: number }[]
  /** Null: the server's autovacuum ran; else what this run vacuumed in its place. */
  vacuums: VacuumRecord | null
  /** Server CPU while everyone left and was processed, less their final batches' ingest. */
  processing: {
    sessions: number
    serverCpuMsPerSession: number | null
    postgresCpuMsPerSession: number | null
  }
  idle: { serverRssMiB: number | null; postgresPssMiB: number | null }
  logErrors: number
  firstLogErrors: string[]
}

/**
 * Batch bodies as the visitors send them, with the session id and sequence left as
 * placeholders: the ratio phases fill in a new pair per request, so every request stores a
 * batch (none is a re-send), 20 batches a session as on the site. None is final.
 */
function ratioTemplates(fixtures: Fixture[]): string[] {
  const templates: string[] = []
  const random = seededRandom(7)
  for (let n = 0; templates.length < 300 && n < 100; n++) {
    const startedAt = Date.now()
    const visitor = new Visitor({
      n,
      runId: 'ratio',
      key: '',
      fixture: fixtures[n % fixtures.length]!,
      distinct: false,
      hostile: false,
      startedAt,
      random,
    })
    for (let now = startedAt; !visitor.done && now < startedAt + 300_000; now += 100) {
      const taken = visitor.take(now)
      if (!taken) continue
      const batch = JSON.parse(taken.body) as { session: { id: string }; replay: { sequence: number } }
      templates.push(
        taken.body
          .replaceAll(batch.session.id, '__SESSION__')
          .replace(`"sequence":${batch.replay.sequence}`, '"sequence":__SEQUENCE__')
          // Ingest alone: a final batch would start processing inside the measured phase
          // (processing is measured by the visitors' windows).
          .replace('"flush":"final"', '"flush":"normal"'),
      )
      visitor.settle(null, true, taken.final, now)
    }
  }
  return templates
}

function ratioBody(templates: string[], round: number, n: number): string {
  return templates[n % templates.length]!.replaceAll(
    '__SESSION__',
    `ratio${round}-${Math.floor(n / 20)}`,
  ).replace('__SEQUENCE__', String(n % 20))
}

async function measureRatio(
  floor: Floor,
  server: SoakServer,
  kind: 'postgres' | 'pglite',
  templates: string[],
  keys: string[],
): Promise<RatioRun[]> {
  const runs: RatioRun[] = []
  for (let r = 0; r < RATIO_RUNS; r++) {
    const tag = `${Date.now().toString(36)}${r}`
    const floorPair = await measureFloorPhase({
      floor,
      method: 'POST',
      path: '/floor/json',
      body: (n) => ratioBody(templates, r, n),
      connections: 16,
      seconds: RATIO_SECONDS,
    })
    let n = 0
    const source = () => ({
      body: ratioBody(templates, r, n).replaceAll('ratio', `ratio${tag}-`),
      key: keys[n++ % keys.length]!,
    })
    const url = `${server.baseUrl}/api/sdk/replay`
    const warmup = await runClosedLoop({ phase: 'warmup', url, source, connections: 16, amount: 300 })
    const before = cpuSnapshot(server.pid, kind === 'postgres')
    const phase = await runClosedLoop({
      phase: `${kind} ingest max`,
      url,
      source,
      connections: 16,
      seconds: RATIO_SECONDS,
      estimate: warmup.requestsPerSecond,
    })
    const after = cpuSnapshot(server.pid, kind === 'postgres')
    const cpu = cpuMsPerRequest(before, after, phase.ok + phase.non2xx)
    const floorRate = floorPair.next.requestsPerSecond
    runs.push({
      floorPerSecond: floorRate,
      oursPerSecond: phase.requestsPerSecond,
      ratio: floorRate > 0 ? round(phase.requestsPerSecond / floorRate, 3) : 0,
      floorCpuMsPerRequest: floorPair.next.serverCpuMsPerRequest,
      oursCpuMsPerRequest: cpu.server,
      oursPostgresCpuMsPerRequest: cpu.postgres,
      oursNon2xx: phase.non2xx + phase.errors + warmup.non2xx + warmup.errors,
      disturbed:
        (floorPair.next.cpu.otherPercent ?? 0) > 25 || (cpuBetween(before, after).otherPercent ?? 0) > 25,
    })
    progress(
      `${kind} ratio run ${r + 1}: floor ${floorRate}/s, ours ${phase.requestsPerSecond}/s => ${runs.at(-1)!.ratio}`,
    )
  }
  return runs
}

/**
 * The ratio phases compare two servers' maximum throughput one after the other: work the
 * service still has from the visitors (a backlog being processed) would take CPU from both
 * and make the figures meaningless. Waits (up to 10 minutes) until the server and Postgres
 * together use under a tenth of a core.
 */
async function untilQuiet(pid: number, kind: 'postgres' | 'pglite'): Promise<void> {
  const deadline = Date.now() + 600_000
  for (;;) {
    const before = cpuSnapshot(pid, kind === 'postgres')
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    const cpu = cpuBetween(before, cpuSnapshot(pid, kind === 'postgres'))
    const busy = (cpu.serverPercent ?? 0) + (cpu.postgresPercent ?? 0)
    if (busy < 10) return
    if (Date.now() > deadline) {
      progress(`${kind}: the server is still busy (${busy}% of a core) after 10 minutes; measuring anyway`)
      return
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!
}

async function runDatabase(
  kind: 'postgres' | 'pglite',
  floorHolder: { floor: Floor },
  fixtures: Fixture[],
): Promise<DatabaseResult> {
  const levels = LEVELS[kind]!
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `bench-capacity-${kind}-`))
  const removeDir = async () => rmSync(dataDir, { recursive: true, force: true })
  cleanup.add(removeDir)
  process.env.AUTH_SECRET = SOAK_AUTH_SECRET
  process.env.DATA_DIR = dataDir
  const database = await prepareDatabase(kind, dataDir, 'bench_capacity')
  cleanup.add(() => database.drop())
  const keysPerOrganization = Math.ceil((Math.max(...levels) * 1.25) / VISITORS_PER_KEY / ORGANIZATIONS) + 4
  progress(`${database.description}: ${ORGANIZATIONS} organizations, ${keysPerOrganization} ingest keys each`)
  const seed = await withDatabase(database.choice, async (db) => {
    const organizations: { ingest: string[]; api: string[] }[] = []
    for (let o = 0; o < ORGANIZATIONS; o++) {
      const { id: organizationId } = await createOrganization(db, { name: `Capacity ${o + 1}` })
      // Paid: the free plan's monthly session quota is not what this run measures.
      await setOrganizationPlan(db, { organizationId, plan: 'paid' })
      const keys = (type: 'ingest' | 'api', count: number) =>
        db.transaction(async (tx) => {
          const created: string[] = []
          for (let i = 0; i < count; i++)
            created.push((await createKey(tx, { organizationId, type, name: `capacity ${type} ${i}` })).key)
          return created
        })
      organizations.push({ ingest: await keys('ingest', keysPerOrganization), api: await keys('api', 3) })
    }
    return organizations
  })
  const start = async (tag: string) => {
    progress(`${kind}: starting the production server (${tag})`)
    const started = await startSoakServer({
      port: await freePort(),
      dataDir,
      databaseUrl: database.choice.kind === 'postgres' ? database.choice.url : '',
      env: {
        // The production default: an access line per request is part of the cost.
        LOG_LEVEL: 'info',
        // Visitors come from many addresses through the site's reverse proxy, not all from
        // 127.0.0.1: each key's first lookup spends its own visitor's address budget.
        TRUSTED_PROXY_HOPS: '1',
      },
      cpuProfileDir: option('cpu-prof') ? path.join(option('cpu-prof')!, `${kind}-${tag}`) : undefined,
    })
    cleanup.add(() => started.stop())
    return started
  }
  let server = await start(process.version)
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const idle = {
    serverRssMiB: memoryOf(server.pid).rssMiB,
    postgresPssMiB: kind === 'postgres' ? postgresMemory().pssMiB : null,
  }

  const vacuum =
    kind === 'postgres' && database.choice.kind === 'postgres'
      ? await standInAutovacuum(database.choice.url)
      : null
  const agent = keepAliveAgent()
  const recorder = new Recorder()
  const confirmations = new Confirmations({
    agent: keepAliveAgent(),
    baseUrl: server.baseUrl,
    apiKeys: seed.map((o) => o.api),
  })
  const pool = new VisitorPool({
    agent,
    baseUrl: server.baseUrl,
    keys: seed.map((o) => o.ingest),
    fixtures,
    recorder,
    runId: `cap${Date.now().toString(36)}`,
    hostileEvery: HOSTILE_EVERY,
    distinctEvery: DISTINCT_EVERY,
    onEnded: (visitor, organization) => confirmations.add(visitor, organization),
  })
  const run: RunState = { kind, server, pool, recorder, confirmations }
  pool.start()
  confirmations.start()

  // Ramp: each level reached over 20 s, then judged over its step.
  const steps: WindowFigures[] = []
  for (const level of levels) {
    pool.setTarget(level, 20)
    const reachBy = Date.now() + 60_000
    while (pool.recording < level * 0.98 && Date.now() < reachBy) await new Promise((r) => setTimeout(r, 500))
    // The newcomers' first batches (each a full snapshot) arrive together; the level is judged
    // once their arrival is over, as a site's steady traffic, not its arrival burst.
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const step = await measureWindow(run, level, STEP_SECONDS, { memoryFlat: false })
    steps.push(step)
    progress(
      `${kind} level ${level}: ${step.verdict.ok ? 'met every condition' : step.verdict.problems.join('; ')}`,
    )
    if (!step.verdict.ok) break
  }

  // The hold: at the best level; if that level cannot be held for the whole hold (a database
  // that degrades as it fills, say), at the next one down that passed its step, and so on, at
  // most HOLDS times. Each hold starts once the visitors above it have left and the backlog
  // they left is worked off (or 5 minutes have passed: then the hold is judged with it).
  const holds: WindowFigures[] = []
  const passed = steps.filter((s) => s.verdict.ok).map((s) => s.level)
  for (const level of passed.reverse().slice(0, HOLDS)) {
    pool.setTarget(level, 20)
    const settleBy = Date.now() + 300_000
    while ((pool.recording > level * 1.02 || confirmations.oldestWaitMs() > 20_000) && Date.now() < settleBy)
      await new Promise((r) => setTimeout(r, 1_000))
    progress(`${kind}: holding ${level} visitors for ${HOLD_SECONDS} s`)
    const hold = await measureWindow(run, level, HOLD_SECONDS, { memoryFlat: true })
    holds.push(hold)
    progress(
      `${kind} hold at ${level}: ${hold.verdict.ok ? 'met every condition' : hold.verdict.problems.join('; ')}`,
    )
    if (hold.verdict.ok) break
  }
  const held = holds.find((h) => h.verdict.ok) ?? null

  // Everyone leaves; every visitor must end up listed. What the server spends meanwhile, less
  // the final batches' ingest (at the ratio phase's CPU per batch), is processing's cost.
  const leaving = pool.recording
  const batchesBeforeDrain = pool.batches
  const cpuBeforeDrain = cpuSnapshot(server.pid, kind === 'postgres')
  pool.leaveAll()
  const drainStart = Date.now()
  while (pool.recording > 0 && Date.now() - drainStart < 60_000) await new Promise((r) => setTimeout(r, 500))
  pool.stop()
  while (confirmations.waiting.size > 0 && Date.now() - drainStart < 180_000)
    await new Promise((r) => setTimeout(r, 1_000))
  confirmations.stop()
  const cpuAfterDrain = cpuSnapshot(server.pid, kind === 'postgres')
  const drainBatches = pool.batches - batchesBeforeDrain
  if (confirmations.waiting.size > 0)
    progress(`${kind}: unlisted visitors; the last look-up: ${confirmations.lastAnswer}`)
  const ended = {
    visitors: pool.finals,
    unlisted: confirmations.waiting.size,
    drainSeconds: Math.round((Date.now() - drainStart) / 1000),
  }

  await untilQuiet(server.pid, kind)
  progress(`${kind}: ratio to the floor route, ${RATIO_RUNS} runs`)
  const templates = ratioTemplates(fixtures)
  const ingestKeys = seed.flatMap((o) => o.ingest)
  const ratio: DatabaseResult['ratio'] = []
  const firstRuns = await measureRatio(floorHolder.floor, server, kind, templates, ingestKeys)
  ratio.push({ node: process.version, runs: firstRuns, median: median(firstRuns.map((r) => r.ratio)) })
  const drainCpu = cpuBetween(cpuBeforeDrain, cpuAfterDrain)
  const perSession = (total: number | null, perBatch: (r: RatioRun) => number | null) => {
    const batchCost = median(firstRuns.map((r) => perBatch(r) ?? 0))
    return total === null || leaving === 0 ? null : round((total - drainBatches * batchCost) / leaving, 2)
  }
  const seconds = (cpuAfterDrain.at - cpuBeforeDrain.at) / 1000
  const processing = {
    sessions: leaving,
    serverCpuMsPerSession: perSession(
      drainCpu.serverPercent === null ? null : drainCpu.serverPercent * 10 * seconds,
      (r) => r.oursCpuMsPerRequest,
    ),
    postgresCpuMsPerSession: perSession(
      drainCpu.postgresPercent === null ? null : drainCpu.postgresPercent * 10 * seconds,
      (r) => r.oursPostgresCpuMsPerRequest,
    ),
  }
  const logs = server.logCounts()
  const vacuums = (await vacuum?.stop()) ?? null
  if (COMPARE_NODE && kind === 'postgres') {
    // The same data, server and floor again on the other Node; then back for the next database.
    // On Postgres only: the comparison is of Node, which PGlite's run would only repeat.
    await server.stop()
    await floorHolder.floor.stop()
    setServerNode(COMPARE_NODE)
    try {
      floorHolder.floor = await startFloor()
      server = await start('compare')
      await untilQuiet(server.pid, kind)
      const version = execFileSync(COMPARE_NODE, ['--version'], { encoding: 'utf8' }).trim()
      progress(`${kind}: ratio to the floor route on Node ${version}, ${RATIO_RUNS} runs`)
      const runs = await measureRatio(floorHolder.floor, server, kind, templates, ingestKeys)
      ratio.push({ node: version, runs, median: median(runs.map((r) => r.ratio)) })
    } finally {
      await server.stop()
      await floorHolder.floor.stop()
      setServerNode(process.execPath)
      floorHolder.floor = await startFloor()
    }
  }
  // The next database's run starts on an idle machine: this one's server and data go now
  // (cleanup would only repeat what is already done).
  await server.stop()
  await database.drop()
  await removeDir()
  return {
    kind,
    steps,
    holds,
    held,
    ended,
    ratio,
    processing,
    vacuums,
    idle,
    logErrors: logs.errors,
    firstLogErrors: logs.firstErrors,
  }
}

/**
 * A production Postgres vacuums on its own; a test server may have autovacuum off (this
 * workplace's has), and then every update's dead row stays, the tables and their indexes
 * bloat, and each minute of the run costs the database more than the last: a figure of a
 * misconfigured server, not of the service. So when autovacuum is off, this vacuums the run's
 * own database the way autovacuum would (each table whose dead rows pass Postgres' default
 * threshold, once a minute), and the report says so. Its CPU is Postgres', counted as such.
 */
async function standInAutovacuum(url: string): Promise<{ stop: () => Promise<VacuumRecord | null> }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const [setting] = await sql<{ autovacuum: string }[]>`show autovacuum`
  if (setting?.autovacuum === 'on') {
    await sql.end()
    return { stop: async () => null }
  }
  progress('Postgres has autovacuum off: this run vacuums its database as autovacuum would')
  const started = Date.now()
  const done: { table: string; at: number }[] = []
  let failedPasses = 0
  let running: Promise<void> = Promise.resolve()
  const pass = async () => {
    const due = await sql<{ relname: string }[]>`
      select relname from pg_stat_user_tables
      where n_dead_tup > ${AUTOVACUUM.threshold}::float8 + ${AUTOVACUUM.scaleFactor}::float8 * n_live_tup`
    for (const { relname } of due) {
      await sql.unsafe(`vacuum (analyze) "${relname.replaceAll('"', '""')}"`)
      done.push({ table: relname, at: Math.round((Date.now() - started) / 1000) })
    }
  }
  const timer = setInterval(() => {
    running = running.then(pass).catch((error: unknown) => {
      failedPasses++
      progress(`vacuum: ${String(error)}`)
    })
  }, AUTOVACUUM.everyMs)
  return {
    stop: async () => {
      clearInterval(timer)
      await running
      await sql.end()
      return { tables: done, failedPasses }
    },
  }
}

function report(results: DatabaseResult[], busyBefore: number | null, warnings: string[]): boolean {
  const lines: string[] = []
  lines.push('')
  lines.push(
    `Machine: ${CPUS} x ${os.cpus()[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; load before the run ${busyBefore ?? '?'}% of a core`,
  )
  lines.push(
    `Visitors: the recorded fixtures as page views, a batch per 5 s while events are pending, 0-10 s reading between pages, 60-240 s visits ending with flush: final; 1 in ${DISTINCT_EVERY} with an issue files a new one, 1 in ${HOSTILE_EVERY} hostile; ${ORGANIZATIONS} organizations`,
  )
  let met = true
  for (const result of results) {
    lines.push('')
    lines.push(`== ${result.kind}`)
    const rows = [
      ...result.steps.map((s) => ({ label: `step ${s.level}`, s })),
      ...result.holds.map((s) => ({ label: `HOLD ${s.level}`, s })),
    ]
    lines.push(
      ...textTable(
        [
          'window',
          'secs',
          'recording',
          'per vCPU',
          'batches/s',
          'KiB/batch',
          'p50/p99 ms',
          'errors',
          'listed p50/max s',
          'backlog',
          'CPU% srv/pg/gen',
          'CPU ms/batch srv/pg',
          'RSS MiB srv',
          'PSS MiB pg',
          'verdict',
        ],
        rows.map(({ label, s }) => [
          label,
          String(s.seconds),
          String(s.recordingMean),
          String(Math.round(s.recordingMean / CPUS)),
          String(s.batchesPerSecond),
          String(round(s.meanBatchBytes / 1024, 1)),
          `${s.ingest.p50} / ${s.ingest.p99}`,
          String(s.errors),
          `${round(s.listed.p50 / 1000, 1)} / ${round(s.listed.max / 1000, 1)}`,
          `${s.backlog.first}->${s.backlog.last}`,
          `${s.cpuPercent.server ?? '?'}/${s.cpuPercent.postgres ?? '-'}/${s.cpuPercent.generator ?? '?'}`,
          `${s.cpuMsPerBatch.server ?? '?'} / ${s.cpuMsPerBatch.postgres ?? '-'}`,
          `${s.serverRssMiB.first}->${s.serverRssMiB.last}`,
          String(s.postgresPssMiB ?? '-'),
          s.verdict.ok ? 'ok' : s.verdict.problems.join('; '),
        ]),
      ),
    )
    lines.push(
      `idle: server RSS ${result.idle.serverRssMiB} MiB${result.kind === 'postgres' ? `, Postgres PSS ${result.idle.postgresPssMiB} MiB` : ''}; after the load: ${result.ended.visitors} visitors ended, ${result.ended.unlisted} never listed (waited ${result.ended.drainSeconds} s); server log errors ${result.logErrors}`,
    )
    for (const line of result.firstLogErrors) lines.push(`  log: ${line}`)
    if (result.vacuums)
      lines.push(
        `autovacuum is off on this Postgres server: the run vacuumed its tables as autovacuum would, ${result.vacuums.tables.length} times (${[...new Set(result.vacuums.tables.map((v) => v.table))].join(', ') || 'none due'})${result.vacuums.failedPasses > 0 ? `; ${result.vacuums.failedPasses} passes FAILED` : ''}`,
      )
    lines.push(
      `processing, measured as ${result.processing.sessions} visitors left at once: ${result.processing.serverCpuMsPerSession ?? '?'} ms of server CPU${result.kind === 'postgres' ? ` and ${result.processing.postgresCpuMsPerSession ?? '?'} ms of Postgres CPU` : ''} per session (their final batches' ingest taken out)`,
    )
    for (const ratio of result.ratio)
      lines.push(
        `ratio to the floor route on Node ${ratio.node} (max throughput, 16 connections, same bodies): ${ratio.runs.map((r) => `${r.oursPerSecond}/${r.floorPerSecond} = ${r.ratio}${r.disturbed ? ' DISTURBED' : ''} (CPU ms/req ours ${r.oursCpuMsPerRequest}${r.oursPostgresCpuMsPerRequest === null ? '' : ` + pg ${r.oursPostgresCpuMsPerRequest}`}, floor ${r.floorCpuMsPerRequest})`).join('; ')}; median ${ratio.median}`,
      )
    const goal = GOAL.visitors[result.kind]!
    const heldOk = result.held?.verdict.ok === true && result.held.level >= goal
    const main = result.ratio[0]!
    const ratioOk = main.median >= RATIO_GOAL && main.runs.every((r) => r.oursNon2xx === 0 && !r.disturbed)
    const cleanEnd = result.ended.unlisted === 0 && result.logErrors === 0
    lines.push(
      `${result.kind}: held ${result.held?.verdict.ok ? result.held.level : 'nothing'} visitors (goal ${goal}: ${heldOk ? 'met' : 'NOT met'}); ingest ${main.median} x the floor route (goal ${RATIO_GOAL}: ${ratioOk ? 'met' : 'NOT met'}); ${cleanEnd ? 'every visitor listed, no server error' : 'NOT every visitor listed or the server logged errors'}`,
    )
    met &&= heldOk && ratioOk && cleanEnd
  }
  for (const warning of warnings) lines.push(`warning: ${warning}`)
  process.stdout.write(`${lines.join('\n')}\n`)
  if (argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({ cpus: CPUS, node: process.version, results })}\n`)
  return met
}

async function main(): Promise<number> {
  if (!hasProductionBuild()) fail('No production build (.next/BUILD_ID is missing): run npm run build first')
  const warnings: string[] = []
  const others = otherNextProcesses()
  if (others.length > 0) warnings.push(`other builds/servers/tests were running: ${others.join(' | ')}`)
  const busyBefore = await machineLoad(2_000)
  progress(`machine load before the run: ${busyBefore ?? '?'}% of one core`)
  const recordingsDir = path.join(process.cwd(), 'tests/fixtures/recordings')
  const expected = JSON.parse(readFileSync(path.join(recordingsDir, 'expected.json'), 'utf8')) as {
    recordings: Record<string, unknown[]>
  }
  const fixtures = fixturesFrom(loadRecordings(recordingsDir), expected.recordings)
  const floorHolder = { floor: await startFloor() }
  cleanup.add(() => floorHolder.floor.stop())
  const results: DatabaseResult[] = []
  for (const kind of DATABASES as ('postgres' | 'pglite')[])
    results.push(await runDatabase(kind, floorHolder, fixtures))
  return report(results, busyBefore, warnings) ? 0 : 1
}

main()
  .then(async (code) => {
    await cleanup.run()
    process.exit(code)
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    await cleanup.run()
    process.exit(2)
  })
