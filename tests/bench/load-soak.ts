import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import postgres from 'postgres'
import { freePort } from '../helpers/free-port'
import { createTestPki, startReceiver } from '../helpers/webhooks'
import { createCleanup } from './harness/cleanup'
import { prepareDatabase, withDatabase } from './harness/database'
import { floorDisturbed, floorTable } from './harness/floor'
import {
  type CpuSnapshot,
  type CpuUsage,
  cpuBetween,
  cpuMsPerRequest,
  cpuSnapshot,
  type MemorySample,
  machineLoad,
  memoryOf,
  otherNextProcesses,
  postgresMemory,
} from './harness/machine'
import { phaseSeconds } from './harness/options'
import { keepAliveAgent, type PhaseResult, runPaced } from './harness/pace'
import { hasProductionBuild } from './harness/server'
import { round } from './harness/stats'
import { measureSoakFloor, mixCpu } from './load-floor'
import { seedSoak } from './load-seed'
import { type HeapSample, SOAK_AUTH_SECRET, type SoakServer, startSoakServer } from './load-server'
import {
  accessTokenFor,
  dataApiTask,
  IngestStream,
  IssuePool,
  ingestBodies,
  keepAliveRaces,
  loadRecordings,
  mcpTask,
  Recorder,
  type RouteFigures,
  throttledTask,
} from './load-traffic'

/**
 * Load and soak: `npx tsx tests/bench/load-soak.ts [--minutes 10] [--ingest-rps 20]
 * [--read-rps 10] [--mcp-rps 6] [--throttle-rps 6] [--sessions 8] [--events-per-batch 10]
 * [--hostile-every 100]`
 * (BENCH_SECONDS sets the default of --minutes in seconds, for a short run).
 *
 * Against the production build (`next start`) on a fresh Postgres database (created on
 * DATABASE_URL's server, default postgres://postgres@127.0.0.1:5432/test, dropped at the
 * end), loopback only, for a bounded time at steady paced rates: real recordings ingested as
 * sessions (several in parallel, each ending with `flush: "final"`), Data API reads (list +
 * single issue), MCP tools/call (list_issues, get_issue; svc_mcp_ keys and OAuth access
 * tokens alternately), one session in a hundred carrying megabyte strings built to stall the
 * analyser (analysed in a worker under a time and memory budget: it may end `failed` with the
 * budget's reason, and the Data API must not notice), one key read past its limit on purpose (its 429s are the only
 * acceptable non-2xx), and the issue.created webhook deliveries that processing causes, to
 * an HTTPS receiver on 127.0.0.1. Every 10 s it prints per-route throughput, p50/p99 and
 * errors, the server's memory (RSS and anonymous RSS from /proc; the V8 heap from a probe
 * preloaded into the server, harness/heap-probe.mjs, since nothing is added to the app), Postgres connections
 * of the database and CPU. Then it sends the open sessions' remaining batches, waits for
 * processing and deliveries, verifies that every accepted batch is stored exactly once,
 * every session is processed, every delivery arrived exactly once and nothing grows, and
 * prints a table and one JSON line. Exit code 1 when anything fails. Not part of CI.
 */

const argv = process.argv.slice(2)
function option(name: string, fallback: number): number {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (at < 0) return fallback
  const raw = argv[at]!.includes('=') ? argv[at]!.split('=')[1] : argv[at + 1]
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) fail(`--${name}: a non-negative number is required`)
  return value
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

const MINUTES = option('minutes', phaseSeconds(600) / 60)
const INGEST_RPS = option('ingest-rps', 20)
const READ_RPS = option('read-rps', 10)
const MCP_RPS = option('mcp-rps', 6)
const THROTTLE_RPS = option('throttle-rps', 6)
const PARALLEL_SESSIONS = Math.max(1, Math.round(option('sessions', 8)))
const EVENTS_PER_BATCH = Math.max(1, Math.round(option('events-per-batch', 10)))
// One session in this many carries an attacker's batch (tests/helpers/hostile-events.ts); 0: none.
const HOSTILE_EVERY = Math.round(option('hostile-every', 100))
// How the reason of a session stopped by the analysis budget begins (lib/processing).
const BUDGET_REASON_PREFIX = 'Analysis stopped'
const SAMPLE_SECONDS = 10
// The limits per key are 100/min (ingest) and 300/min (reads, MCP per key or per OAuth
// client); keys rotate per request and get at most half their budget, so no stream but the
// throttled one ever meets a limit.
const INGEST_PER_KEY = 100 / 60 / 2
const READS_PER_KEY = 300 / 60 / 2
// Bounded waits after the load: for the queue of processing and deliveries to empty.
const SETTLE_TIMEOUT_MS = 300_000
// RSS may rise this much between the first and last third before it counts as growth: V8
// sizes its heap to the load and keeps it, which is not a leak.
const GROWTH_TOLERANCE = { ratio: 0.1, mib: 24 }
// Memory is read this often during the load, for its peak.
const MEMORY_PEAK_INTERVAL_MS = 1_000

if (MINUTES <= 0 || MINUTES > 60) fail('--minutes: between 0 and 60 (bounded run)')
const SECONDS = Math.round(MINUTES * 60)

const progress = (line: string): void => {
  process.stderr.write(`[soak] ${line}\n`)
}
// Ctrl-C must not leave the server running or a database behind on the Postgres server.
const cleanup = createCleanup((line) => progress(line))

interface Sample {
  atSeconds: number
  routes: RouteFigures[]
  memory: MemorySample
  /** Every Postgres process of the server (all its databases, not only the run's). */
  postgresMemory: MemorySample
  heap: HeapSample | null
  postgresConnections: number
  sessions: Record<string, number>
  webhooksReceived: number
  cpu: CpuUsage
}

const ROUTES = [
  'ingest',
  'api list',
  'api get',
  'mcp list_issues (key)',
  'mcp list_issues (oauth)',
  'mcp get_issue (key)',
  'mcp get_issue (oauth)',
  'api throttled',
  'webhook',
]

function countFiles(root: string): number {
  if (!existsSync(root)) return 0
  // Temporary files of an interrupted write start with a dot and are not objects.
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && !e.name.startsWith('.'),
  ).length
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

/** First and last third of the samples after the warm-up: the mean and max of each. */
function trend(values: number[]) {
  const third = Math.max(1, Math.floor(values.length / 3))
  const first = values.slice(0, third)
  const last = values.slice(-third)
  if (values.length === 0) return { firstMean: 0, lastMean: 0, firstMax: 0, lastMax: 0 }
  return {
    firstMean: round(mean(first), 1),
    lastMean: round(mean(last), 1),
    firstMax: Math.max(...first),
    lastMax: Math.max(...last),
  }
}

async function main(): Promise<number> {
  const started = Date.now()
  if (!hasProductionBuild()) fail('No production build (.next/BUILD_ID is missing): run npm run build first')
  const others = otherNextProcesses()
  const warnings: string[] = []
  if (others.length > 0) warnings.push(`other builds/servers/tests were running: ${others.join(' | ')}`)
  const busyBefore = await machineLoad(2_000)
  progress(`machine load before the run: ${busyBefore ?? '?'}% of one core`)

  // The floor, in this run and before the service starts, so neither loads the other.
  const recordings = loadRecordings()
  const floor = await measureSoakFloor({
    bodies: ingestBodies(recordings, 'soakfloor', EVENTS_PER_BATCH, PARALLEL_SESSIONS),
    seconds: Math.min(10, Math.max(3, SECONDS / 10)),
    connections: 8,
    progress,
  })

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'))
  // The configuration is read on first use, which is the seeding below: it must be the
  // server's, or the webhook secret is encrypted with a key the server cannot derive.
  process.env.AUTH_SECRET = SOAK_AUTH_SECRET
  process.env.DATA_DIR = dataDir
  process.env.LOG_LEVEL = 'warn'
  cleanup.add(async () => rmSync(dataDir, { recursive: true, force: true }))
  const database = await prepareDatabase('postgres', dataDir)
  cleanup.add(() => database.drop())
  if (database.choice.kind !== 'postgres') throw new Error('the soak run needs Postgres')
  const databaseUrl = database.choice.url
  const databaseName = new URL(databaseUrl).pathname.slice(1)

  const pki = createTestPki()
  cleanup.add(async () => pki.dispose())
  const receiver = await startReceiver(pki.issue(['localhost']), (res) => res.writeHead(204).end())
  cleanup.add(() => receiver.close())
  const caFile = path.join(dataDir, 'webhook-ca.pem')
  writeFileSync(caFile, pki.caCert)

  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const mcpHalf = MCP_RPS / 2
  progress(`${database.description}: migrating and seeding`)
  const seed = await withDatabase(database.choice, (db) =>
    seedSoak(db, {
      resource: `${baseUrl}/api/mcp`,
      endpointUrl: `https://localhost:${receiver.port}/hooks/soak`,
      ingestKeys: Math.max(2, Math.ceil(INGEST_RPS / INGEST_PER_KEY)),
      apiKeys: Math.max(1, Math.ceil(READ_RPS / READS_PER_KEY)),
      mcpKeys: Math.max(1, Math.ceil(mcpHalf / READS_PER_KEY)),
      oauthClients: Math.max(1, Math.ceil(mcpHalf / READS_PER_KEY)),
    }),
  )

  progress('starting next start')
  const server: SoakServer = await startSoakServer({
    port,
    dataDir,
    databaseUrl,
    env: {
      // The receiver is on this machine, with a certificate of the run's own CA.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: caFile,
      // A retry (there should be none) must land within the settle wait, not 25 minutes later.
      WEBHOOK_RETRY_DELAYS_SECONDS: '2,5,10',
      // The production default: an access line per request and a line per processed session and
      // delivery are part of the cost, and the run checks the request ids they carry.
      LOG_LEVEL: 'info',
    },
  })
  cleanup.add(() => server.stop())
  progress(`server ${baseUrl} pid ${server.pid}`)

  // One agent per stream, so that a stream queueing for sockets cannot delay the others.
  const agent = keepAliveAgent()
  const agents = { api: keepAliveAgent(), mcp: keepAliveAgent(), throttled: keepAliveAgent() }
  const accessTokens: string[] = []
  for (const credential of seed.refreshTokens)
    accessTokens.push(await accessTokenFor(agent, baseUrl, credential))
  // Alternating, so consecutive calls use the two kinds of credential in turn.
  const interleaved = seed.mcpKeys.flatMap((key, i) => [
    { label: 'key' as const, token: key },
    { label: 'oauth' as const, token: accessTokens[i % accessTokens.length]! },
  ])

  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  cleanup.add(() => sql.end())
  const recorder = new Recorder()
  const pool = new IssuePool()
  const ingest = new IngestStream({
    agent,
    baseUrl,
    keys: seed.ingestKeys,
    recorder,
    recordings,
    runId: `soak${Date.now().toString(36)}`,
    perBatch: EVENTS_PER_BATCH,
    parallelSessions: PARALLEL_SESSIONS,
    hostileEvery: HOSTILE_EVERY,
  })

  // Webhook arrivals: latency from the event's occurredAt (the issue's creation) to receipt.
  const seen = new Map<string, number>()
  const takeArrivals = () => {
    for (const r of receiver.received.splice(0)) {
      const id = String(r.headers['service-webhook-id'] ?? '')
      seen.set(`${r.url} ${id}`, (seen.get(`${r.url} ${id}`) ?? 0) + 1)
      let occurredAt = Number.NaN
      try {
        occurredAt = Date.parse((JSON.parse(r.body) as { occurredAt: string }).occurredAt)
      } catch {
        // counted as an error below
      }
      const ok = r.method === 'POST' && id !== '' && Number.isFinite(occurredAt)
      recorder.record('webhook', ok ? r.at - occurredAt : 0, ok ? 'ok' : 'error', `${r.method} ${r.url}`)
    }
  }
  const arrivals = setInterval(takeArrivals, 500)

  const connections = async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = ${databaseName} and pid <> pg_backend_pid()`
    return row?.n ?? 0
  }
  const sessionStates = async () => {
    const rows = await sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from replay_sessions
      where organization_id = ${seed.organizationId} group by status`
    return Object.fromEntries(rows.map((r) => [r.status, r.n]))
  }

  // Idle: started, migrated, a few token requests served, nothing else yet.
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const idle = { server: memoryOf(server.pid), postgres: postgresMemory() }
  progress(
    `idle memory: server RSS ${idle.server.rssMiB} MiB, Postgres PSS ${idle.postgres.pssMiB ?? '?'} MiB (RSS summed ${idle.postgres.rssMiB} MiB over ${idle.postgres.processes} processes)`,
  )
  const peak = { serverRssMiB: 0, serverPssMiB: 0, postgresPssMiB: 0, postgresRssMiB: 0 }
  const readPeak = () => {
    const ours = memoryOf(server.pid)
    const pg = postgresMemory()
    peak.serverRssMiB = Math.max(peak.serverRssMiB, ours.rssMiB ?? 0)
    peak.serverPssMiB = Math.max(peak.serverPssMiB, ours.pssMiB ?? 0)
    peak.postgresPssMiB = Math.max(peak.postgresPssMiB, pg.pssMiB ?? 0)
    peak.postgresRssMiB = Math.max(peak.postgresRssMiB, pg.rssMiB ?? 0)
  }
  const peakSampler = setInterval(readPeak, MEMORY_PEAK_INTERVAL_MS)

  const samples: Sample[] = []
  const loadStart = performance.now()
  let cpuBefore: CpuSnapshot = cpuSnapshot(server.pid, true)
  const cpuAtLoadStart = cpuBefore
  const sample = async () => {
    takeArrivals()
    const routes = recorder.cut(ROUTES)
    const cpuNow = cpuSnapshot(server.pid, true)
    const s: Sample = {
      atSeconds: Math.round((performance.now() - loadStart) / 1000),
      routes,
      memory: memoryOf(server.pid),
      postgresMemory: postgresMemory(),
      heap: server.heap(),
      postgresConnections: await connections(),
      sessions: await sessionStates(),
      webhooksReceived: seen.size,
      cpu: cpuBetween(cpuBefore, cpuNow),
    }
    cpuBefore = cpuNow
    samples.push(s)
    const active = routes.filter((r) => r.count > 0)
    progress(
      `t=${s.atSeconds}s ${active
        .map(
          (r) =>
            `${r.route} ${r.perSecond}/s p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99}${r.errors ? ` ERR ${r.errors}` : ''}${r.limited ? ` 429 ${r.limited}` : ''}`,
        )
        .join(' | ')}`,
    )
    progress(
      `      sessions ${JSON.stringify(s.sessions)} hooks ${s.webhooksReceived} pg pss ${s.postgresMemory.pssMiB ?? '?'} MiB rss ${s.memory.rssMiB} MiB anon ${s.memory.anonMiB} MiB heap ${s.heap?.usedMiB ?? '?'}/${s.heap?.totalMiB ?? '?'} MiB (live ${s.heap?.liveMiB ?? '?'}, ${s.heap?.majorGcs ?? '?'} full GCs) pg conns ${s.postgresConnections} cpu srv ${s.cpu.serverPercent}% pg ${s.cpu.postgresPercent}% gen ${s.cpu.loadGeneratorPercent}% other ${s.cpu.otherPercent}%`,
    )
  }
  let sampling = Promise.resolve()
  const sampler = setInterval(() => {
    sampling = sampling.then(sample).catch((error: unknown) => progress(`sample failed: ${error}`))
  }, SAMPLE_SECONDS * 1000)

  progress(
    `load for ${SECONDS} s: ingest ${INGEST_RPS}/s (${PARALLEL_SESSIONS} parallel sessions, ${EVENTS_PER_BATCH} events a batch), Data API ${READ_RPS}/s, MCP ${MCP_RPS}/s, throttled ${THROTTLE_RPS}/s`,
  )
  const phase = (name: string, rate: number, task: () => Promise<number>): Promise<PhaseResult | null> =>
    rate > 0
      ? runPaced({ phase: name, rate, count: Math.round(rate * SECONDS), task })
      : Promise.resolve(null)
  const phases = await Promise.all([
    phase('ingest', INGEST_RPS, ingest.task),
    phase(
      'data api',
      READ_RPS,
      dataApiTask({ agent: agents.api, baseUrl, keys: seed.apiKeys, recorder, pool }),
    ),
    phase('mcp', MCP_RPS, mcpTask({ agent: agents.mcp, baseUrl, tokens: interleaved, recorder, pool })),
    phase(
      'throttled',
      THROTTLE_RPS,
      throttledTask({ agent: agents.throttled, baseUrl, key: seed.throttledKey, recorder }),
    ),
  ])
  const loadSeconds = (performance.now() - loadStart) / 1000
  const cpuAtLoadEnd = cpuSnapshot(server.pid, true)
  clearInterval(sampler)
  clearInterval(peakSampler)
  readPeak()
  await sampling
  await sample()
  const endOfLoad = { server: samples.at(-1)!.memory, postgres: samples.at(-1)!.postgresMemory }

  progress(`load done after ${round(loadSeconds, 1)} s; finishing ${ingest.active.length} open sessions`)
  await ingest.drain()
  progress('waiting for processing and webhook deliveries to finish')
  const settleStart = performance.now()
  let settled = false
  let lastState = ''
  while (performance.now() - settleStart < SETTLE_TIMEOUT_MS) {
    const [row] = await sql<{ open: number; pending: number; undispatched: number }[]>`
      select
        (select count(*)::int from replay_sessions
          where organization_id = ${seed.organizationId} and status not in ('processed', 'failed')) as open,
        (select count(*)::int from webhook_deliveries
          where organization_id = ${seed.organizationId} and status = 'pending') as pending,
        (select count(*)::int from outbox
          where organization_id = ${seed.organizationId} and dispatched_at is null) as undispatched`
    takeArrivals()
    lastState = JSON.stringify(row)
    if (row && row.open === 0 && row.pending === 0 && row.undispatched === 0) {
      settled = true
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
  const settleSeconds = round((performance.now() - settleStart) / 1000, 1)
  // A delivery recorded as succeeded has been answered by the receiver; give its bookkeeping
  // here a moment, then count.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  clearInterval(arrivals)
  takeArrivals()

  // ------------------------------------------------------------------ verification
  const problems: string[] = []
  const stored = await sql<{ session: string; sequence: number }[]>`
    select s.external_id as session, b.sequence from replay_batches b
    join replay_sessions s on s.id = b.session_id
    where b.organization_id = ${seed.organizationId}`
  const storedKeys = stored.map((r) => `${r.session}:${r.sequence}`)
  const storedSet = new Set(storedKeys)
  const duplicates = storedKeys.length - storedSet.size
  const missing = [...ingest.accepted].filter((k) => !storedSet.has(k))
  const unexpected = storedKeys.filter((k) => !ingest.accepted.has(k))
  const blobs = countFiles(path.join(dataDir, 'blobs'))
  if (duplicates > 0 || missing.length > 0 || unexpected.length > 0 || blobs !== storedKeys.length)
    problems.push(
      `batches: ${ingest.accepted.size} accepted, ${storedKeys.length} rows (${duplicates} duplicated, ${missing.length} missing e.g. ${missing.slice(0, 3).join(', ')}, ${unexpected.length} unexpected), ${blobs} blobs`,
    )
  const sessionRows = await sql<{ session: string; status: string; reason: string | null }[]>`
    select external_id as session, status, failure_reason as reason from replay_sessions
    where organization_id = ${seed.organizationId}`
  // A hostile session may end failed, but only with the analysis budget's reason.
  const hostile = sessionRows.filter((r) => r.session.includes('-hostile-'))
  const overBudget = (r: (typeof sessionRows)[number]) =>
    r.status === 'failed' && (r.reason ?? '').startsWith(BUDGET_REASON_PREFIX)
  const hostileFailed = hostile.filter(overBudget)
  const notProcessed = sessionRows.filter((r) => r.status !== 'processed' && !hostileFailed.includes(r))
  const sessionsWithBatches = new Set([...ingest.accepted].map((k) => k.slice(0, k.lastIndexOf(':'))))
  const absent = [...sessionsWithBatches].filter((s) => !sessionRows.some((r) => r.session === s))
  if (notProcessed.length > 0 || absent.length > 0)
    problems.push(
      `sessions: ${sessionRows.length - notProcessed.length} of ${sessionsWithBatches.size} processed (or hostile and over budget); not processed: ${notProcessed
        .slice(0, 5)
        .map((r) => `${r.session} ${r.status} ${r.reason ?? ''}`)
        .join('; ')}${absent.length ? `; ${absent.length} without a row` : ''}`,
    )
  if (HOSTILE_EVERY > 0 && hostile.length === 0)
    warnings.push('no hostile session was started: the run was too short for one in every --hostile-every')
  const incomplete = ingest.active.length
  if (incomplete > 0) problems.push(`${incomplete} sessions could not send all their batches`)

  const [created] = await sql<{ issues: number; events: number }[]>`
    select
      (select count(*)::int from issues where organization_id = ${seed.organizationId}) as issues,
      (select count(*)::int from outbox
        where organization_id = ${seed.organizationId} and name = 'issue/created') as events`
  const deliveries = await sql<{ id: string; status: string; attempts: number }[]>`
    select event_id::text as id, status, attempts from webhook_deliveries
    where organization_id = ${seed.organizationId} and not is_test`
  const deliveryIds = new Set(deliveries.map((d) => d.id))
  const receivedIds = new Map<string, number>()
  for (const [key, n] of seen) {
    const id = key.slice(key.lastIndexOf(' ') + 1)
    receivedIds.set(id, (receivedIds.get(id) ?? 0) + n)
  }
  const webhook = {
    issuesCreated: created?.issues ?? 0,
    issueCreatedEvents: created?.events ?? 0,
    deliveries: deliveries.length,
    succeeded: deliveries.filter((d) => d.status === 'succeeded').length,
    retried: deliveries.filter((d) => d.attempts > 1).length,
    received: [...receivedIds.values()].reduce((a, b) => a + b, 0),
    receivedTwice: [...receivedIds.values()].filter((n) => n > 1).length,
    neverReceived: [...deliveryIds].filter((id) => !receivedIds.has(id)).length,
    receivedUnknown: [...receivedIds.keys()].filter((id) => !deliveryIds.has(id)).length,
  }
  if (
    webhook.deliveries !== webhook.issueCreatedEvents ||
    webhook.succeeded !== webhook.deliveries ||
    webhook.received !== webhook.deliveries ||
    webhook.receivedTwice > 0 ||
    webhook.neverReceived > 0 ||
    webhook.receivedUnknown > 0
  )
    problems.push(`webhooks: ${JSON.stringify(webhook)} (one endpoint: deliveries = events = received once)`)
  if (!settled)
    problems.push(
      `processing and deliveries had not settled after ${SETTLE_TIMEOUT_MS / 1000} s: ${lastState}`,
    )

  // Growth: the samples after a warm-up (a minute, a third of a shorter run) in which V8 and
  // the connection pool grow to the load; what still rises after it is growth.
  const warmUpSeconds = Math.min(60, SECONDS / 3)
  const warm = samples.filter((s) => s.atSeconds > warmUpSeconds)
  const steady = warm.length >= 3 ? warm : samples
  const rss = trend(steady.map((s) => s.memory.rssMiB ?? 0))
  const anon = trend(steady.map((s) => s.memory.anonMiB ?? 0))
  // Until V8's first full (mark-compact) collection under the load, its old space only grows,
  // garbage included, and RSS with it: a 30 s run rose ~50 MiB per 10 s with no full GC at
  // all, while a 60 s run with the old space capped at 160 MiB (full GCs every 5-10 s) held
  // the live heap at 80-85 MiB and RSS at 260-278 MiB. So growth is judged only over a window
  // with full collections in it, and on the live heap they leave: the heap in use after
  // collections inside the window, not a figure left over from start-up.
  const probed = steady.filter((s) => s.heap !== null)
  const majorGcs = (s: Sample | undefined) => s?.heap?.majorGcs ?? 0
  const collectedInWindow = majorGcs(probed.at(-1)) - majorGcs(probed[0])
  const fresh = probed.filter((s, i) => i > 0 && majorGcs(s) > majorGcs(probed[i - 1]))
  const heap = trend(fresh.map((s) => s.heap?.liveMiB ?? 0))
  const conns = trend(steady.map((s) => s.postgresConnections))
  const grows = (t: ReturnType<typeof trend>) =>
    t.lastMean - t.firstMean > Math.max(GROWTH_TOLERANCE.mib, t.firstMean * GROWTH_TOLERANCE.ratio)
  if (collectedInWindow < 2 || fresh.length < 2)
    warnings.push(
      `memory growth not judged: ${collectedInWindow} full collections after the warm-up (2 needed), so V8 was still growing its heap to the load; run longer (the default is 10 minutes)`,
    )
  else {
    if (grows(rss)) problems.push(`server RSS grows: ${JSON.stringify(rss)}`)
    if (grows(anon)) problems.push(`server anonymous memory grows: ${JSON.stringify(anon)}`)
    if (grows(heap)) problems.push(`server V8 heap (live after full GC) grows: ${JSON.stringify(heap)}`)
  }
  if (conns.lastMax > conns.firstMax && conns.lastMean > conns.firstMean + 1)
    problems.push(`Postgres connections grow: ${JSON.stringify(conns)}`)
  if (steady.length < 6)
    warnings.push(`only ${steady.length} samples after the warm-up: the growth check is weak`)

  const totals = [...ROUTES, 'ingest drain'].map((r) => recorder.total(r, loadSeconds))
  for (const t of totals) if (t.errors > 0) problems.push(`${t.route}: ${t.errors} errors`)
  problems.push(...floor.problems)
  // Requests our server answered during the load: not the webhooks (it sends those), not the drain.
  const served = (route: string) => route !== 'webhook' && route !== 'ingest drain'
  const ingestRequests = totals.find((t) => t.route === 'ingest')?.count ?? 0
  const otherRequests = totals
    .filter((t) => served(t.route) && t.route !== 'ingest')
    .reduce((a, t) => a + t.count, 0)
  const cpuPerRequest = mixCpu(
    floor,
    { ingest: ingestRequests, other: otherRequests },
    cpuMsPerRequest(cpuAtLoadStart, cpuAtLoadEnd, ingestRequests + otherRequests),
  )
  const logs = server.logCounts()
  // Sessions the finalizer's sweep reached before their final batch did run under no request.
  const tracing = server.tracing()
  if (tracing.deliveriesTracedToIngest < tracing.deliveries)
    warnings.push(
      `${tracing.deliveries - tracing.deliveriesTracedToIngest} of ${tracing.deliveries} deliveries not traced to an ingest request`,
    )
  if (logs.errors > 0) problems.push(`server logged ${logs.errors} errors: ${logs.firstErrors.join(' // ')}`)
  for (const p of phases)
    if (p && !p.sustained)
      warnings.push(
        `${p.phase}: offered ${p.offeredRate}/s, answered ${p.requestsPerSecond}/s, ${p.skipped} calls skipped (32 in flight)`,
      )
  warnings.push(...floorDisturbed(floor.post, 25), ...floorDisturbed(floor.get, 25))
  for (const s of samples)
    if ((s.cpu.otherPercent ?? 0) > 25)
      warnings.push(`t=${s.atSeconds}s: other processes used ${s.cpu.otherPercent}% of a core`)

  // ------------------------------------------------------------------ report
  await server.stop()
  const out = (line = '') => process.stdout.write(`${line}\n`)
  out()
  out(
    `Load and soak: ${round(loadSeconds, 1)} s on ${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? '?'}, Node ${process.version}, ${database.description}`,
  )
  out(
    `Offered: ingest ${INGEST_RPS} batches/s (${recordings.length} real recordings, ${PARALLEL_SESSIONS} parallel sessions, ${EVENTS_PER_BATCH} events a batch), Data API ${READ_RPS}/s, MCP ${MCP_RPS}/s, throttled key ${THROTTLE_RPS}/s (budget 5/s)`,
  )
  out()
  const header = ['route', 'count', 'per s', 'p50 ms', 'p99 ms', 'max ms', 'errors', '429 (deliberate)']
  const rows = totals
    .filter((t) => t.count > 0)
    .map((t) => [
      t.route,
      String(t.count),
      String(t.perSecond),
      String(t.latencyMs.p50),
      String(t.latencyMs.p99),
      String(t.latencyMs.max),
      String(t.errors),
      String(t.limited),
    ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')
  out(line(header))
  out(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const r of rows) out(line(r))
  out('(webhook latency: from the event occurredAt, i.e. the issue creation, to receipt)')
  out()
  out(
    'every 10 s: t, server RSS / anon / V8 heap live after the last full GC MiB, Postgres connections, sessions processed, webhooks received',
  )
  out(
    samples
      .map(
        (s) =>
          `${s.atSeconds}s ${s.memory.rssMiB}/${s.memory.anonMiB}/${s.heap?.liveMiB ?? '?'} ${s.postgresConnections} ${s.sessions.processed ?? 0} ${s.webhooksReceived}`,
      )
      .join(' | '),
  )
  out(
    `memory (first third -> last third, mean): RSS ${rss.firstMean} -> ${rss.lastMean} MiB, anon ${anon.firstMean} -> ${anon.lastMean} MiB, V8 heap live after full GC ${fresh.length >= 2 ? `${heap.firstMean} -> ${heap.lastMean} MiB` : `not measured (${collectedInWindow} full collections after the warm-up)`}; Postgres connections mean ${conns.firstMean} -> ${conns.lastMean}, max ${conns.firstMax} -> ${conns.lastMax}`,
  )
  out(
    `batches: ${ingest.accepted.size} accepted, ${storedKeys.length} stored, ${duplicates} duplicates, ${missing.length} missing, ${blobs} blobs`,
  )
  out(
    `sessions: ${ingest.sessions.size} started, ${sessionRows.length - notProcessed.length - hostileFailed.length} processed, ${hostile.length} hostile (${hostile.length - hostileFailed.length} processed, ${hostileFailed.length} failed over the analysis budget) (settled ${settleSeconds} s after the load)`,
  )
  out(
    `webhooks: ${webhook.issuesCreated} issues, ${webhook.issueCreatedEvents} issue.created events, ${webhook.deliveries} deliveries, ${webhook.succeeded} succeeded, ${webhook.received} received, ${webhook.receivedTwice} twice, ${webhook.neverReceived} never, ${webhook.retried} retried`,
  )
  const cpuMean = (pick: (c: CpuUsage) => number | null) => {
    const values = samples.map((s) => pick(s.cpu)).filter((v): v is number => v !== null)
    return values.length === 0 ? '?' : `${Math.round(mean(values))}%`
  }
  out(
    `CPU (mean of the samples, % of one core): server ${cpuMean((c) => c.serverPercent)}, Postgres ${cpuMean((c) => c.postgresPercent)}, load generator ${cpuMean((c) => c.loadGeneratorPercent)}, other processes ${cpuMean((c) => c.otherPercent)}`,
  )
  out(
    `CPU per request under the mix: server ${cpuPerRequest.ours.server ?? '?'} ms, Postgres ${cpuPerRequest.ours.postgres ?? '?'} ms; the floor for the same mix (ingest as POST /floor/json with the same kind of bodies, the rest as GET /floor/json): minimal Next ${cpuPerRequest.floorNext ?? '?'} ms, bare Node ${cpuPerRequest.bare ?? '?'} ms => ${cpuPerRequest.vsFloor ?? '?'} x floor, ${cpuPerRequest.vsBare ?? '?'} x bare`,
  )
  out('floor of this run (maximum throughput, before the service started):')
  for (const line of floorTable([], floor.post)) out(`  POST ${line}`)
  for (const line of floorTable([], floor.get)) out(`  GET  ${line}`)
  const mem = (m: MemorySample) => `RSS ${m.rssMiB ?? '?'} MiB (PSS ${m.pssMiB ?? '?'})`
  const pgMem = (m: MemorySample) => `PSS ${m.pssMiB ?? '?'} MiB (RSS summed ${m.rssMiB ?? '?'})`
  out(
    `memory, server: idle ${mem(idle.server)}, peak RSS ${peak.serverRssMiB} MiB (PSS ${peak.serverPssMiB}), end of load ${mem(endOfLoad.server)}`,
  )
  out(
    `memory, Postgres (all ${endOfLoad.postgres.processes} processes of the server, every database): idle ${pgMem(idle.postgres)}, peak PSS ${peak.postgresPssMiB} MiB (RSS summed ${peak.postgresRssMiB}), end of load ${pgMem(endOfLoad.postgres)}`,
  )
  out(
    `memory, minimal Next app (floor): idle ${mem(floor.nextMemory.idle)}, after its phases ${mem(floor.nextMemory.afterLoad)}`,
  )
  out(`server log: ${logs.errors} errors, ${logs.warnings} warnings`)
  out(
    `keep-alive races: ${keepAliveRaces.resent} requests resent after the server closed an idle connection as it was reused`,
  )
  out(
    `request ids: ${tracing.sessionsTracedToIngest} of ${tracing.sessionsProcessed} 'session processed' and ${tracing.deliveriesTracedToIngest} of ${tracing.deliveries} 'webhook delivered' lines carry the id of the ingest request that caused them (${tracing.ingestRequests} ingest requests logged)`,
  )
  for (const [route, list] of Object.entries(recorder.errorSamples()))
    for (const sampleText of list) out(`error sample ${route}: ${sampleText}`)
  for (const w of warnings) out(`warning: ${w}`)
  out(problems.length === 0 ? 'RESULT: PASS' : 'RESULT: FAIL')
  for (const p of problems) out(`!!! ${p}`)
  out(`(run took ${Math.round((Date.now() - started) / 1000)} s)`)
  out(
    JSON.stringify({
      bench: 'load-soak',
      settings: {
        minutes: MINUTES,
        ingestRps: INGEST_RPS,
        readRps: READ_RPS,
        mcpRps: MCP_RPS,
        throttleRps: THROTTLE_RPS,
        parallelSessions: PARALLEL_SESSIONS,
        eventsPerBatch: EVENTS_PER_BATCH,
        hostileEvery: HOSTILE_EVERY,
      },
      machine: { cpus: os.cpus().length, node: process.version, loadBeforePercent: busyBefore },
      loadSeconds: round(loadSeconds, 1),
      routes: totals.filter((t) => t.count > 0),
      phases: phases.filter((p) => p !== null),
      samples: samples.map((s) => ({
        t: s.atSeconds,
        rssMiB: s.memory.rssMiB,
        anonMiB: s.memory.anonMiB,
        postgresPssMiB: s.postgresMemory.pssMiB,
        heapUsedMiB: s.heap?.usedMiB ?? null,
        heapTotalMiB: s.heap?.totalMiB ?? null,
        heapLiveMiB: s.heap?.liveMiB ?? null,
        majorGcs: s.heap?.majorGcs ?? null,
        pgConnections: s.postgresConnections,
        sessions: s.sessions,
        webhooks: s.webhooksReceived,
        cpu: s.cpu,
        routes: Object.fromEntries(
          s.routes
            .filter((r) => r.count > 0)
            .map((r) => [r.route, [r.perSecond, r.latencyMs.p50, r.latencyMs.p99, r.errors, r.limited]]),
        ),
      })),
      growth: { rss, anon, heapLive: heap, postgresConnections: conns },
      memory: {
        server: {
          idle: idle.server,
          peak: { rssMiB: peak.serverRssMiB, pssMiB: peak.serverPssMiB },
          endOfLoad: endOfLoad.server,
        },
        postgres: {
          idle: idle.postgres,
          peak: { pssMiB: peak.postgresPssMiB, rssMiB: peak.postgresRssMiB },
          endOfLoad: endOfLoad.postgres,
        },
        floorNext: floor.nextMemory,
      },
      cpuPerRequest,
      floor: { post: floor.post, get: floor.get },
      tracing,
      keepAliveRacesResent: keepAliveRaces.resent,
      batches: {
        accepted: ingest.accepted.size,
        stored: storedKeys.length,
        duplicates,
        missing: missing.length,
        blobs,
      },
      sessions: {
        started: ingest.sessions.size,
        processed: sessionRows.length - notProcessed.length - hostileFailed.length,
        hostile: hostile.length,
        hostileFailedOverBudget: hostileFailed.length,
        settleSeconds,
      },
      webhooks: webhook,
      serverLog: { errors: logs.errors, warnings: logs.warnings },
      warnings,
      problems,
      pass: problems.length === 0,
    }),
  )
  for (const a of [agent, ...Object.values(agents)]) a.destroy()
  return problems.length === 0 ? 0 : 1
}

let code = 1
try {
  code = await main()
} catch (error) {
  progress(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
} finally {
  await cleanup.run()
}
process.exit(code)
