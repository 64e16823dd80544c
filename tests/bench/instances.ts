import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { count, eq } from 'drizzle-orm'
import { replayBatches } from '@/db/schema'
import { createBlobStore } from '@/lib/storage'
import { startS3Server } from '../helpers/s3-server'
import { ingestSource, makeBodySet } from './bodies'
import { createCleanup } from './harness/cleanup'
import { createOrgAndKeys, prepareDatabase, withDatabase } from './harness/database'
import { machineLoad, machinePercentBetween, machineTicks, postgresCpuMs, treeCpuMs } from './harness/machine'
import { phaseSeconds } from './harness/options'
import { hasProductionBuild, type RunningProcess, startServer } from './harness/server'
import { round } from './harness/stats'
import { textTable } from './harness/table'
import { type PhaseResult, runClosedLoop } from './load'

/**
 * `npm run bench:instances` (BENCH_SECONDS=2 for a short run that only proves it works)
 *
 * Ingest throughput with one and with two `npm start` instances in the self-hosted topology
 * of docs/deployment.md: Postgres, an S3-compatible server (s3rver, in its own process) and
 * Redis for the limits, all on this machine. Both phases run in the same run, one after the
 * other, with the same bodies and 16 connections in all (split evenly over the instances).
 * CPU per request is given for the instances together, Postgres and the S3 server.
 */

const CONNECTIONS = 16
const PHASE_SECONDS = phaseSeconds(15)
const KEYS = 400
const WARMUP_REQUESTS = 600

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`)
const cleanup = createCleanup(progress)

interface PhaseFigures {
  instances: number
  requestsPerSecond: number
  ok: number
  failed: number
  p50: number
  p99: number
  cpuMsPerRequest: { instances: number; postgres: number | null; s3: number | null; loadGenerator: number }
  machinePercent: number | null
}

/** Latencies of several closed loops run side by side, merged by weighting each loop's answers. */
function merged(results: PhaseResult[]): {
  ok: number
  failed: number
  p50: number
  p99: number
  perSecond: number
} {
  const ok = results.reduce((n, r) => n + r.ok, 0)
  const failed = results.reduce((n, r) => n + r.non2xx + r.errors, 0)
  const weighted = (pick: (r: PhaseResult) => number) =>
    round(results.reduce((n, r) => n + pick(r) * r.ok, 0) / Math.max(1, ok), 1)
  return {
    ok,
    failed,
    p50: weighted((r) => r.latencyMs.p50),
    p99: Math.max(...results.map((r) => r.latencyMs.p99)),
    perSecond: round(
      results.reduce((n, r) => n + r.requestsPerSecond, 0),
      1,
    ),
  }
}

async function phase(
  instances: RunningProcess[],
  keys: string[],
  runId: string,
  s3Pid: number,
): Promise<PhaseFigures> {
  const per = CONNECTIONS / instances.length
  const loops = (label: string, options: { amount?: number; seconds?: number; estimate?: number }) =>
    Promise.all(
      instances.map((instance, i) =>
        runClosedLoop({
          phase: label,
          url: `${instance.baseUrl}/api/sdk/replay`,
          source: ingestSource(makeBodySet({ runId: `${runId}-${label}-${i}` }), keys),
          connections: per,
          ...options,
        }),
      ),
    )
  progress(`${instances.length} instance(s): warm-up, ${WARMUP_REQUESTS} requests`)
  const warmup = merged(await loops('warmup', { amount: WARMUP_REQUESTS / instances.length }))
  progress(
    `${instances.length} instance(s): maximum throughput, ${CONNECTIONS} connections, ~${PHASE_SECONDS} s`,
  )
  const cpu = () => ({
    instances: instances.reduce((n, s) => n + (treeCpuMs(s.pid) ?? 0), 0),
    postgres: postgresCpuMs(),
    s3: treeCpuMs(s3Pid),
    loadGenerator: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    machine: machineTicks(),
  })
  const before = cpu()
  const max = merged(
    await loops('max', { seconds: PHASE_SECONDS, estimate: warmup.perSecond / instances.length }),
  )
  const after = cpu()
  const perRequest = (a: number | null, b: number | null) =>
    a === null || b === null ? null : round((b - a) / Math.max(1, max.ok + max.failed), 2)
  return {
    instances: instances.length,
    requestsPerSecond: max.perSecond,
    ok: warmup.ok + max.ok,
    failed: warmup.failed + max.failed,
    p50: max.p50,
    p99: max.p99,
    cpuMsPerRequest: {
      instances: perRequest(before.instances, after.instances) ?? 0,
      postgres: perRequest(before.postgres, after.postgres),
      s3: perRequest(before.s3, after.s3),
      loadGenerator: perRequest(before.loadGenerator, after.loadGenerator) ?? 0,
    },
    machinePercent: machinePercentBetween(before.machine, after.machine),
  }
}

async function main(): Promise<number> {
  if (!hasProductionBuild()) {
    progress('No production build (.next/BUILD_ID is missing): run npm run build first')
    return 1
  }
  const busyBefore = await machineLoad(2_000)
  progress(`machine load before the run: ${busyBefore ?? '?'}% of one core`)
  const s3 = await startS3Server()
  // This process lists the bucket at the end, through the SDK's credential chain.
  process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId
  process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey
  cleanup.add(() => s3.stop())
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-instances-'))
  cleanup.add(() => rm(dataDir, { recursive: true, force: true }))
  const database = await prepareDatabase('postgres', dataDir, 'bench_instances')
  cleanup.add(() => database.drop())
  if (database.choice.kind !== 'postgres') throw new Error('bench:instances needs Postgres')
  const databaseUrl = database.choice.url
  progress(
    `Postgres ${new URL(databaseUrl).pathname.slice(1)}: creating an organization and ${KEYS} ingest keys`,
  )
  const { organizationId, keys } = await withDatabase(database.choice, (db) => createOrgAndKeys(db, KEYS))

  const env = {
    ...s3.env,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    TRUSTED_PROXY_HOPS: '1',
  }
  const start = async (n: number) => {
    const started = await Promise.all(
      Array.from({ length: n }, () => startServer({ env, dataDir, databaseUrl })),
    )
    return started
  }
  const runId = `inst-${Date.now().toString(36)}`
  const figures: PhaseFigures[] = []
  for (const n of [1, 2]) {
    const instances = await start(n)
    try {
      figures.push(await phase(instances, keys, `${runId}-${n}`, s3.pid))
    } finally {
      await Promise.all(instances.map((s) => s.stop()))
    }
  }

  // Every accepted batch stored once, as a row and as an object.
  const rows = await withDatabase(database.choice, async (db) => {
    const [row] = await db
      .select({ n: count() })
      .from(replayBatches)
      .where(eq(replayBatches.organizationId, organizationId))
    return row?.n ?? 0
  })
  const objects = (
    await createBlobStore({
      kind: 's3',
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
    }).list(`orgs/${organizationId}/`)
  ).length
  const accepted = figures.reduce((n, f) => n + f.ok, 0)

  const one = figures[0]!
  const two = figures[1]!
  const lines = textTable(
    [
      'instances',
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU ms/req: instances',
      'Postgres',
      'S3 server',
      'load generator',
      'machine busy %',
    ],
    figures.map((f) => [
      String(f.instances),
      String(f.requestsPerSecond),
      String(f.p50),
      String(f.p99),
      String(f.cpuMsPerRequest.instances),
      String(f.cpuMsPerRequest.postgres ?? '?'),
      String(f.cpuMsPerRequest.s3 ?? '?'),
      String(f.cpuMsPerRequest.loadGenerator),
      String(f.machinePercent ?? '?'),
    ]),
  )
  for (const line of lines) process.stdout.write(`${line}\n`)
  process.stdout.write(
    `\ntwo instances / one: ${round(two.requestsPerSecond / Math.max(1, one.requestsPerSecond), 2)}×; ${os.cpus().length} cores; machine load before ${busyBefore ?? '?'}% of one core\n`,
  )
  process.stdout.write(`stored: ${accepted} accepted, ${rows} rows, ${objects} objects\n`)
  const failed = figures.some((f) => f.failed > 0) || rows !== accepted || objects !== accepted
  if (failed)
    process.stdout.write('RESULT: FAIL (a request failed, or a batch was not stored exactly once)\n')
  return failed ? 1 : 0
}

main()
  .then(async (code) => {
    await cleanup.run()
    process.exit(code)
  })
  .catch(async (error: unknown) => {
    progress(`FAILED: ${error instanceof Error ? error.stack : String(error)}`)
    await cleanup.run()
    process.exit(1)
  })
