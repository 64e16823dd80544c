import { createReadStream, existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { count, eq } from 'drizzle-orm'
import { replayBatches, replaySessions } from '@/db/schema'
import { type BodySet, ingestSource, makeBodySet } from './bodies'
import { createCleanup } from './harness/cleanup'
import { createOrgAndKeys, prepareDatabase, withDatabase } from './harness/database'
import {
  type ComparedFigures,
  type FloorPair,
  floorComparison,
  floorDisturbed,
  floorProblems,
  floorTable,
  measureFloorPhase,
  startFloor,
} from './harness/floor'
import { type CpuUsage, cpuBetween, cpuMsPerRequest, cpuSnapshot, machineLoad } from './harness/machine'
import { phaseSeconds } from './harness/options'
import { hasProductionBuild, type RunningProcess, startBaselineServer, startServer } from './harness/server'
import { round } from './harness/stats'
import { textTable } from './harness/table'
import { type PhaseResult, type RequestSource, runClosedLoop, runFixedRate, runPaced } from './load'

/**
 * `npm run bench:ingest [-- --json] [-- --only=embedded,postgres,baseline] [-- --cpu-prof=DIR]`
 * (BENCH_SECONDS=2 for a short run that only proves it works)
 *
 * Benchmarks POST /api/sdk/replay on the production build, once on the embedded defaults
 * (PGlite, local blobs) and once on Postgres. In the same run, the floor (harness/floor.ts):
 * a minimal Next route and a bare node:http server that only read and parse the same bodies,
 * and a bare Node server that also appends them to a file. Ingest's figures are given as
 * ratios to the floor and to bare Node. All traffic goes to 127.0.0.1. See docs/performance.md.
 */

const CONNECTIONS = 16
const PHASE_SECONDS = phaseSeconds(10)
const FIXED_RATE = 200
// The limit is 100 requests/min per key; 400 keys in rotation allow 40,000/min, several times
// what one run sends, so no request of the benchmark is ever refused for its rate.
const KEYS = 400
// At least one request per key: each key's first use writes its lastUsedAt (then not again
// for a minute), and those writes belong to the warm-up, not to the measurement.
const WARMUP_REQUESTS = Math.max(KEYS, 600)
// Issue 17: maximum throughput at least this fraction of the floor route's (the minimal Next
// route reading and parsing the same bodies), and on Postgres a p99 under 50 ms paced at 200/s.
const GOAL = {
  throughputVsFloor: { postgres: 0.5, embedded: 0.25 } as Record<ServiceConfig, number>,
  p99PacedMs: { postgres: 50 } as Partial<Record<ServiceConfig, number>>,
}
// Other processes using more than this (% of one core) during a phase make its figures suspect.
const DISTURBED_PERCENT = 25

type ServiceConfig = 'embedded' | 'postgres'

interface Verification {
  expectedRows: number
  rows: number
  sessions: number
  blobs: number
  ok: boolean
}

/** What a fixed-rate phase offered: FIXED_RATE, for fewer seconds when the server is slower. */
interface Offered {
  rate: number
  seconds: number
  sustainable: boolean
}

interface TargetResult {
  target: ServiceConfig | 'baseline'
  description: string
  warmup: PhaseResult
  max: PhaseResult & { cpu: CpuUsage; cpuMsPerRequest: { server: number | null; postgres: number | null } }
  rate: PhaseResult & { cpu: CpuUsage; offered: Offered }
  paced: PhaseResult & { cpu: CpuUsage; offered: Offered }
  verification: Verification
}

const argv = process.argv.slice(2)
const asJson = argv.includes('--json')
const optionValue = (name: string) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) || undefined
const only = optionValue('only')?.split(',')
const cpuProfileDir = optionValue('cpu-prof')

// With --json, stdout carries the JSON object alone; progress and the table go to stderr.
const out = (line = '') => (asJson ? process.stderr : process.stdout).write(`${line}\n`)
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`)

// Ctrl-C must not leave a database behind on the Postgres server, nor data in the temp dir.
// Targets run one after the other, and each runs (and so clears) its own steps at its end.
const cleanup = createCleanup(progress)

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

/**
 * A server slower than the fixed rate can only queue: the fixed-rate phases then offer as
 * many requests as it answers in PHASE_SECONDS, at the fixed rate, so the run stays bounded
 * and the figures still show what a burst at that rate costs. Reported as `offered`.
 */
function offeredRate(maxRequestsPerSecond: number): Offered {
  const sustainable = maxRequestsPerSecond >= FIXED_RATE
  return {
    rate: FIXED_RATE,
    seconds: sustainable
      ? PHASE_SECONDS
      : Math.max(1, round((maxRequestsPerSecond * PHASE_SECONDS) / FIXED_RATE, 1)),
    sustainable,
  }
}

/** Warm-up, maximum throughput, autocannon at a fixed rate, paced open loop: in that order. */
async function measure(
  url: string,
  source: RequestSource,
  serverPid: number,
  withPostgres: boolean,
  label: string,
): Promise<Pick<TargetResult, 'warmup' | 'max' | 'rate' | 'paced'>> {
  progress(`${label}: warm-up, ${WARMUP_REQUESTS} requests`)
  const warmup = await runClosedLoop({
    phase: 'warmup',
    url,
    source,
    connections: CONNECTIONS,
    amount: WARMUP_REQUESTS,
  })
  progress(`${label}: maximum throughput, ${CONNECTIONS} connections, ~${PHASE_SECONDS} s`)
  let before = cpuSnapshot(serverPid, withPostgres)
  const max = await runClosedLoop({
    phase: 'max',
    url,
    source,
    connections: CONNECTIONS,
    seconds: PHASE_SECONDS,
    estimate: warmup.requestsPerSecond,
  })
  const afterMax = cpuSnapshot(serverPid, withPostgres)
  const maxCpu = cpuBetween(before, afterMax)
  const maxCpuPerRequest = cpuMsPerRequest(before, afterMax, max.ok + max.non2xx)

  const offered = offeredRate(max.requestsPerSecond)
  const amount = Math.max(CONNECTIONS, Math.round(FIXED_RATE * offered.seconds))
  progress(`${label}: autocannon overallRate ${FIXED_RATE}/s, ${amount} requests`)
  before = cpuSnapshot(serverPid, withPostgres)
  const rate = await runFixedRate({
    phase: 'rate',
    url,
    source,
    connections: CONNECTIONS,
    amount,
    rate: FIXED_RATE,
  })
  const rateCpu = cpuBetween(before, cpuSnapshot(serverPid, withPostgres))

  progress(`${label}: paced open loop ${FIXED_RATE}/s for ${offered.seconds} s`)
  before = cpuSnapshot(serverPid, withPostgres)
  const paced = await runPaced({ phase: 'paced', url, source, rate: FIXED_RATE, seconds: offered.seconds })
  const pacedCpu = cpuBetween(before, cpuSnapshot(serverPid, withPostgres))
  return {
    warmup,
    max: { ...max, cpu: maxCpu, cpuMsPerRequest: maxCpuPerRequest },
    rate: { ...rate, cpu: rateCpu, offered },
    paced: { ...paced, cpu: pacedCpu, offered },
  }
}

const okCount = (r: Pick<TargetResult, 'warmup' | 'max' | 'rate' | 'paced'>) =>
  r.warmup.ok + r.max.ok + r.rate.ok + r.paced.ok

async function countBlobs(root: string): Promise<number> {
  if (!existsSync(root)) return 0
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  // Temporary files of an interrupted write start with a dot and are not objects.
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).length
}

async function benchService(config: ServiceConfig, bodies: BodySet): Promise<TargetResult> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `bench-ingest-${config}-`))
  const database = await prepareDatabase(config === 'postgres' ? 'postgres' : 'pglite', dataDir)
  let server: RunningProcess | undefined
  cleanup.add(async () => {
    await server?.stop()
    await database.drop().catch((error: unknown) => progress(`${config}: could not drop database: ${error}`))
    await rm(dataDir, { recursive: true, force: true })
  })
  try {
    progress(`${config}: migrating, creating an organization and ${KEYS} ingest keys`)
    const { organizationId, keys } = await withDatabase(database.choice, (db) => createOrgAndKeys(db, KEYS))

    progress(`${config}: starting the production server`)
    server = await startServer({
      env: { TRUSTED_PROXY_HOPS: '1' },
      dataDir,
      databaseUrl: database.choice.kind === 'postgres' ? database.choice.url : undefined,
      cpuProfileDir: cpuProfileDir ? path.resolve(cpuProfileDir, config) : undefined,
    })
    const phases = await measure(
      `${server.baseUrl}/api/sdk/replay`,
      ingestSource(bodies, keys),
      server.pid,
      config === 'postgres',
      config,
    )
    // Stopped before counting: Next finishes what it has in hand, and PGlite must be released.
    await server.stop()
    const failures = [phases.warmup, phases.max, phases.rate, phases.paced].some(
      (p) => p.non2xx > 0 || p.errors > 0,
    )
    if (failures) progress(`${config}: server log tail:\n${server.logs().slice(-4000)}`)
    server = undefined

    const counted = await withDatabase(database.choice, async (db) => {
      const [batches] = await db
        .select({ n: count() })
        .from(replayBatches)
        .where(eq(replayBatches.organizationId, organizationId))
      const [sessions] = await db
        .select({ n: count() })
        .from(replaySessions)
        .where(eq(replaySessions.organizationId, organizationId))
      return { rows: batches?.n ?? 0, sessions: sessions?.n ?? 0 }
    })
    const blobs = await countBlobs(path.join(dataDir, 'blobs'))
    const expectedRows = okCount(phases)
    return {
      target: config,
      description: database.description,
      ...phases,
      verification: {
        expectedRows,
        ...counted,
        blobs,
        ok: counted.rows === expectedRows && blobs === expectedRows,
      },
    }
  } finally {
    await cleanup.run()
  }
}

/** Streamed: a run appends hundreds of MB, more than one string can hold. */
async function countLines(file: string): Promise<number> {
  let lines = 0
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>)
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++
  return lines
}

async function benchBaseline(bodies: BodySet): Promise<TargetResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-ingest-baseline-'))
  const file = path.join(dir, 'batches.ndjson')
  progress('baseline: starting the bare Node server')
  const server = await startBaselineServer(file)
  cleanup.add(async () => {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  })
  try {
    // Keys are irrelevant to the baseline but sent anyway, so both get the same bytes.
    const keys = Array.from({ length: KEYS }, (_, i) => `svc_pk_baseline${i}`)
    const phases = await measure(
      `${server.baseUrl}/api/sdk/replay`,
      ingestSource(bodies, keys),
      server.pid,
      false,
      'baseline',
    )
    await server.stop()
    const lines = await countLines(file)
    const expectedRows = okCount(phases)
    return {
      target: 'baseline',
      description: 'bare node:http, JSON.parse, append to one file (no fsync)',
      ...phases,
      verification: { expectedRows, rows: lines, sessions: 0, blobs: 0, ok: lines === expectedRows },
    }
  } finally {
    await cleanup.run()
  }
}

/** The floor's maximum (both servers) and the minimal Next route paced at FIXED_RATE. */
interface IngestFloor {
  pair: FloorPair
  /**
   * The paced goal's own floor: what the minimal Next route's p99 is at FIXED_RATE/s paced on
   * this machine, in this run. A p99 goal below it is below what Next itself achieves here.
   */
  paced: PhaseResult & { cpu: CpuUsage; offered: Offered }
}

/**
 * The floor, in this run: the minimal Next route and bare Node reading and parsing the same
 * bodies on the same connections, for as long as ingest's maximum-throughput phase; then the
 * minimal Next route paced at FIXED_RATE/s as ours is.
 */
async function benchFloor(bodies: BodySet): Promise<IngestFloor> {
  progress('floor: starting the minimal Next app and bare Node')
  const floor = await startFloor({
    cpuProfileDir: cpuProfileDir ? path.resolve(cpuProfileDir, 'floor') : undefined,
  })
  cleanup.add(() => floor.stop())
  try {
    progress(`floor: POST /floor/json, ${CONNECTIONS} connections, ~${PHASE_SECONDS} s on each`)
    const pair = await measureFloorPhase({
      floor,
      method: 'POST',
      path: '/floor/json',
      body: (n) => bodies.body(n),
      connections: CONNECTIONS,
      seconds: PHASE_SECONDS,
    })
    const offered = offeredRate(pair.next.requestsPerSecond)
    progress(`floor: minimal Next route, paced open loop ${FIXED_RATE}/s for ${offered.seconds} s`)
    let n = 0
    const before = cpuSnapshot(floor.next.pid, false)
    const paced = await runPaced({
      phase: 'floor paced',
      url: `${floor.next.baseUrl}/floor/json`,
      source: () => ({ body: bodies.body(n++) }),
      rate: FIXED_RATE,
      seconds: offered.seconds,
    })
    return { pair, paced: { ...paced, cpu: cpuBetween(before, cpuSnapshot(floor.next.pid, false)), offered } }
  } finally {
    await cleanup.run()
  }
}

/** A configuration's figures at maximum throughput, as the floor table compares them. */
const maxFigures = (r: TargetResult): ComparedFigures => ({
  requestsPerSecond: r.max.requestsPerSecond,
  latencyMs: r.max.latencyMs,
  serverCpuMsPerRequest: r.max.cpuMsPerRequest.server,
  postgresCpuMsPerRequest: r.max.cpuMsPerRequest.postgres,
})

const ms = (value: number) => `${value >= 100 ? Math.round(value) : round(value, 1)}`
const triple = (p: PhaseResult) => `${ms(p.latencyMs.p50)} / ${ms(p.latencyMs.p90)} / ${ms(p.latencyMs.p99)}`
const pct = (value: number | null) => (value === null ? '?' : `${value}%`)

async function main(): Promise<void> {
  const started = Date.now()
  if (!hasProductionBuild()) fail('No production build (.next/BUILD_ID is missing): run npm run build first')
  // The baseline always runs (the ratios need it); `--only=baseline` runs nothing else.
  const configs = (only ?? ['embedded', 'postgres']).filter((c) => c !== 'baseline') as ServiceConfig[]
  for (const c of configs)
    if (c !== 'embedded' && c !== 'postgres') fail(`--only: unknown configuration ${c}`)

  const cpus = os.cpus()
  const machine = {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
  }
  const warnings: string[] = []
  const bodies = makeBodySet({ runId: `bench-${Date.now().toString(36)}` })
  // The client, the server and the database share this machine; anything else running skews
  // every figure, so it is measured before the run and during each phase.
  const busyBefore = await machineLoad(2_000)
  progress(`machine load before the run: ${busyBefore ?? '?'}% of one core`)

  // First, so that a machine that cannot even run the baselines fails fast; without them there
  // is nothing to compare to.
  let baseline: TargetResult
  let ingestFloor: IngestFloor
  try {
    ingestFloor = await benchFloor(bodies)
    baseline = await benchBaseline(bodies)
  } catch (error) {
    fail(`floor or baseline: FAILED: ${error instanceof Error ? error.message : String(error)}`)
  }
  const floor = ingestFloor.pair
  const results: TargetResult[] = []
  const failed: { target: string; error: string }[] = []
  for (const config of configs) {
    try {
      results.push(await benchService(config, bodies))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      failed.push({ target: config, error: message })
      progress(`${config}: FAILED: ${message}`)
    }
  }

  const comparisons = results.map((r) => {
    const config = r.target as ServiceConfig
    const vs = floorComparison(maxFigures(r), floor)
    const pacedGoal = GOAL.p99PacedMs[config]
    return {
      target: config,
      throughput: vs.throughput,
      serverCpu: vs.serverCpu,
      cpuMsPerRequest: r.max.cpuMsPerRequest,
      p99At200: { autocannon: r.rate.latencyMs.p99, paced: r.paced.latencyMs.p99 },
      goal: {
        throughputVsFloor: vs.throughput.vsFloor >= GOAL.throughputVsFloor[config],
        // No p99 goal for PGlite: true.
        p99Paced: pacedGoal === undefined || r.paced.latencyMs.p99 < pacedGoal,
      },
    }
  })
  const everything = [...results, baseline]
  const problems: string[] = [
    ...failed.map((f) => `${f.target}: did not run: ${f.error}`),
    ...floorProblems(floor),
    ...(ingestFloor.paced.non2xx + ingestFloor.paced.errors > 0
      ? [`floor paced: ${JSON.stringify(ingestFloor.paced.statusCodes)}, ${ingestFloor.paced.errors} errors`]
      : []),
  ]
  for (const r of everything) {
    for (const p of [r.warmup, r.max, r.rate, r.paced]) {
      if (p.non2xx > 0)
        problems.push(`${r.target} ${p.phase}: ${p.non2xx} NON-2XX ANSWERS ${JSON.stringify(p.statusCodes)}`)
      if (p.errors > 0) problems.push(`${r.target} ${p.phase}: ${p.errors} ERRORS (${p.timeouts} timeouts)`)
    }
    for (const p of [r.max, r.rate, r.paced])
      if ((p.cpu.otherPercent ?? 0) > DISTURBED_PERCENT)
        warnings.push(
          `${r.target} ${p.phase}: other processes used ${p.cpu.otherPercent}% of a core meanwhile: figures disturbed`,
        )
    const v = r.verification
    if (!v.ok)
      problems.push(
        `${r.target}: STORED ${v.rows} rows / ${v.blobs} blobs for ${v.expectedRows} 2xx answers (must be equal)`,
      )
  }

  out()
  out(`Machine: ${machine.cpuCount} x ${machine.cpuModel}, Node ${machine.node}, ${machine.platform}`)
  out(
    `Bodies: ${bodies.templates} templates, ${bodies.eventsPerBatch} events, ${bodies.minBytes}-${bodies.maxBytes} bytes (mean ${bodies.meanBytes}), ${bodies.sessions} sessions x N sequences, ${KEYS} keys in rotation`,
  )
  out(
    `Phases: warm-up ${WARMUP_REQUESTS} requests; max: ${CONNECTIONS} connections ~${PHASE_SECONDS} s; ${FIXED_RATE}/s: autocannon overallRate (${CONNECTIONS} connections, bursty) and a paced open loop, ${PHASE_SECONDS} s each`,
  )
  out()
  const header = [
    'target',
    'max req/s',
    'p50/p90/p99 @max',
    'CPU srv/pg/gen/other @max',
    `p50/p90/p99 @${FIXED_RATE} ac`,
    `p50/p90/p99 @${FIXED_RATE} paced`,
    'non-2xx',
    'errors',
    'stored/2xx',
  ]
  const rows = everything.map((r) => [
    r.target,
    String(r.max.requestsPerSecond),
    triple(r.max),
    `${pct(r.max.cpu.serverPercent)}/${pct(r.max.cpu.postgresPercent)}/${pct(r.max.cpu.loadGeneratorPercent)}/${pct(r.max.cpu.otherPercent)}`,
    triple(r.rate) + (r.rate.offered.sustainable ? '' : ' *'),
    triple(r.paced) + (r.paced.offered.sustainable ? '' : ' *'),
    String([r.warmup, r.max, r.rate, r.paced].reduce((a, p) => a + p.non2xx, 0)),
    String([r.warmup, r.max, r.rate, r.paced].reduce((a, p) => a + p.errors, 0)),
    `${r.verification.rows}/${r.verification.expectedRows}`,
  ])
  for (const line of textTable(header, rows)) out(line)
  out('(latencies in ms; CPU in % of one core: server process, Postgres, load generator, everything else)')
  for (const r of results)
    if (!r.rate.offered.sustainable)
      out(
        `* ${r.target} cannot sustain ${FIXED_RATE}/s (max ${r.max.requestsPerSecond}/s): ${FIXED_RATE}/s was offered for ${r.rate.offered.seconds} s only, so its latencies there are queueing behind a backlog`,
      )
  out()
  out(
    `Against the floor, in this run (POST /floor/json: read and JSON.parse the same bodies; ${CONNECTIONS} connections, maximum throughput; p99 at max; CPU per request at max):`,
  )
  for (const line of floorTable(
    results.map((r) => ({ label: r.target, figures: maxFigures(r) })),
    floor,
  ))
    out(line)
  const floorPaced = ingestFloor.paced
  out(
    `next-floor paced ${FIXED_RATE}/s: p50/p90/p99 ${triple(floorPaced)} ms, ${floorPaced.cpu.serverPercent ?? '?'}% of a core` +
      (floorPaced.offered.sustainable
        ? ''
        : ` (it cannot sustain ${FIXED_RATE}/s here: offered for ${floorPaced.offered.seconds} s, so this is a backlog)`),
  )
  out()
  for (const c of comparisons) {
    const met = c.goal.throughputVsFloor && c.goal.p99Paced
    const pacedGoal = GOAL.p99PacedMs[c.target]
    out(
      `${c.target}: throughput ${c.throughput.vsFloor} x floor, ${c.throughput.vsBare} x bare (goal >= ${GOAL.throughputVsFloor[c.target]} x floor: ${c.goal.throughputVsFloor ? 'met' : 'NOT met'}); ` +
        `p99 at ${FIXED_RATE}/s ${c.p99At200.autocannon} ms autocannon / ${c.p99At200.paced} ms paced` +
        (pacedGoal === undefined
          ? ''
          : ` (goal paced < ${pacedGoal} ms: ${c.goal.p99Paced ? 'met' : 'NOT met'}; the floor route paced alike: ${ms(floorPaced.latencyMs.p99)} ms)`) +
        ` => goal ${met ? 'MET' : 'NOT MET'}`,
    )
  }
  for (const r of results)
    out(
      `${r.target}: ${r.verification.rows} replay_batches rows, ${r.verification.blobs} blobs, ${r.verification.sessions} sessions for ${r.verification.expectedRows} 2xx answers: ${r.verification.ok ? 'every accepted batch stored exactly once' : 'MISMATCH'}`,
    )
  out(
    `baseline: ${baseline.verification.rows} lines appended for ${baseline.verification.expectedRows} 2xx answers`,
  )
  warnings.push(...floorDisturbed(floor, DISTURBED_PERCENT))
  if ((floorPaced.cpu.otherPercent ?? 0) > DISTURBED_PERCENT)
    warnings.push(`floor paced: other processes used ${floorPaced.cpu.otherPercent}% of a core meanwhile`)
  if (busyBefore !== null && busyBefore > DISTURBED_PERCENT)
    warnings.unshift(`the machine was busy before the run: ${busyBefore}% of a core used by other processes`)
  if (warnings.length > 0) {
    out()
    out('Warning: other work on this machine disturbed the measurement; run again on a quiet machine')
    for (const w of warnings) out(`  ${w}`)
  }
  if (problems.length > 0) {
    out()
    out('!!!!!!!!!! THE BENCHMARK IS NOT VALID !!!!!!!!!!')
    for (const p of problems) out(`!!! ${p}`)
  }
  out(`(run took ${Math.round((Date.now() - started) / 1000)} s)`)

  if (asJson)
    process.stdout.write(
      `${JSON.stringify(
        {
          machine,
          settings: {
            connections: CONNECTIONS,
            phaseSeconds: PHASE_SECONDS,
            fixedRate: FIXED_RATE,
            keys: KEYS,
            warmupRequests: WARMUP_REQUESTS,
            bodies: {
              templates: bodies.templates,
              sessions: bodies.sessions,
              eventsPerBatch: bodies.eventsPerBatch,
              minBytes: bodies.minBytes,
              maxBytes: bodies.maxBytes,
              meanBytes: bodies.meanBytes,
            },
          },
          results: everything,
          floor,
          floorPaced,
          comparisons,
          goal: GOAL,
          failed,
          machineLoadBeforePercent: busyBefore,
          warnings,
          problems,
          valid: problems.length === 0,
        },
        null,
        2,
      )}\n`,
    )
  process.exitCode = problems.length > 0 ? 1 : 0
}

await main()
