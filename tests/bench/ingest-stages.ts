import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import type { Db } from '@/db/client'
import * as schema from '@/db/schema'
import { resolveIngestKey } from '@/lib/ingest/resolve-ingest-key'
import { ReplayBatch } from '@/lib/ingest/schema'
import { storeBatch } from '@/lib/ingest/store-batch'
import type { JobsEngine } from '@/lib/jobs/types'
import { createMemoryRateLimiter } from '@/lib/ratelimit/memory'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { LocalBlobStore } from '@/lib/storage/local'
import { batchBlobKey } from '@/lib/storage/session-blob-keys'
import type { BlobStore } from '@/lib/storage/types'
import { parseJson } from '@/lib/validation'
import { makeBodySet } from './bodies'
import { createOrgAndKeys, prepareDatabase, withDatabase } from './harness/database'
import { round } from './harness/stats'

/**
 * Where one ingest request's time goes, stage by stage, without HTTP or Next: the functions
 * the route calls, in the route's order, one request at a time with the benchmark's bodies.
 * Complements `npm run bench:ingest`, which measures the whole server.
 *
 *   npx tsx tests/bench/ingest-stages.ts [--postgres] [--json]
 *
 * On Postgres it also counts database round trips per stage (every query postgres.js sends,
 * BEGIN and COMMIT included), through a client like the app's with a debug hook.
 */

const ITERATIONS = 400
const WARMUP = 100
const argv = process.argv.slice(2)
const kind = argv.includes('--postgres') ? 'postgres' : 'pglite'

// Only the bytes matter to storeBatch's database work; this store keeps none.
const nullBlobs: BlobStore = {
  kind: 'local',
  put: async () => {},
  get: async () => null,
  stream: async () => null,
  delete: async () => {},
  list: async () => [],
}

// Only `flush: final` batches send jobs, and the bodies are all `normal`.
const noJobs: JobsEngine = {
  kind: 'in-process',
  send: async () => {
    throw new Error('the stage benchmark sends no jobs')
  },
  start: async () => {},
  stop: async () => {},
}

const STAGES = [
  'rate limit (sha256 of key + in-memory limiter)',
  'resolve key (credential cache; 1 SELECT per key per 5 s)',
  'JSON.parse',
  'zod ReplayBatch.safeParse',
  'blob key (2 sha256)',
  'blob put (local file: write, fdatasync, rename, fsync dir)',
  'storeBatch database work (one statement)',
] as const

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-ingest-stages-'))
  const database = await prepareDatabase(kind, dataDir)
  const bodies = makeBodySet({ runId: `stages-${Date.now().toString(36)}` })
  const limiter = createMemoryRateLimiter()
  const blobs = new LocalBlobStore(path.join(dataDir, 'blobs'))
  const samples: number[][] = STAGES.map(() => [])
  // CPU per stage, all threads of this process: the libuv pool does the file system work.
  const cpuSamples: number[][] = STAGES.map(() => [])
  const roundTripSamples: number[][] = STAGES.map(() => [])
  let roundTrips = 0
  const counting =
    database.choice.kind === 'postgres'
      ? postgres(database.choice.url, {
          max: 2,
          fetch_types: false,
          onnotice: () => {},
          debug: () => {
            roundTrips += 1
          },
        })
      : undefined
  try {
    await withDatabase(database.choice, async (setupDb) => {
      const { keys } = await createOrgAndKeys(setupDb, 100)
      const db = counting ? (drizzle(counting, { schema }) as unknown as Db) : setupDb
      for (let n = 0; n < WARMUP + ITERATIONS; n++) {
        const key = keys[n % keys.length]!
        const body = Buffer.from(bodies.body(n))
        const times: number[] = []
        const cpus: number[] = []
        let t = performance.now()
        let cpu = process.cpuUsage()
        const trips: number[] = []
        let tripsBefore = roundTrips
        const lap = () => {
          const now = performance.now()
          const used = process.cpuUsage(cpu)
          times.push(now - t)
          cpus.push((used.user + used.system) / 1000)
          trips.push(roundTrips - tripsBefore)
          tripsBefore = roundTrips
          t = now
          cpu = process.cpuUsage()
        }
        await limiter.limit(RATE_LIMITS.ingest, createHash('sha256').update(key).digest('base64url'))
        lap()
        const principal = await resolveIngestKey(db, key)
        lap()
        const json = parseJson(body, 'invalid')
        lap()
        const parsed = ReplayBatch.safeParse(json)
        if (!parsed.success) throw new Error('benchmark body does not validate')
        lap()
        const blobKey = batchBlobKey(
          principal.organizationId,
          parsed.data.session.id,
          parsed.data.replay.sequence,
          body,
        )
        lap()
        await blobs.put(blobKey, body)
        lap()
        await storeBatch(
          { db, blobs: nullBlobs, jobs: noJobs },
          { organizationId: principal.organizationId, batch: parsed.data, body },
        )
        lap()
        if (n < WARMUP) continue
        times.forEach((time, i) => {
          samples[i]!.push(time)
          cpuSamples[i]!.push(cpus[i]!)
          roundTripSamples[i]!.push(trips[i]!)
        })
      }
    })
  } finally {
    await counting?.end({ timeout: 5 })
    await database.drop()
    await rm(dataDir, { recursive: true, force: true })
  }

  const stat = (values: number[]) => {
    const sorted = values.slice().sort((a, b) => a - b)
    return {
      mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length, 3),
      p50: round(sorted[Math.floor(sorted.length / 2)]!, 3),
      p99: round(sorted[Math.ceil(sorted.length * 0.99) - 1]!, 3),
    }
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)
  const stages = STAGES.map((name, i) => ({
    stage: name,
    ...stat(samples[i]!),
    cpuMean: round(mean(cpuSamples[i]!), 3),
    roundTrips: counting ? round(mean(roundTripSamples[i]!), 2) : null,
  }))
  const total = stages.reduce((a, s) => a + s.mean, 0)
  const totalCpu = stages.reduce((a, s) => a + s.cpuMean, 0)
  const report = {
    database: database.description,
    iterations: ITERATIONS,
    meanBodyBytes: bodies.meanBytes,
    stages: stages.map((s) => ({
      ...s,
      share: round(s.mean / total, 3),
      cpuShare: round(s.cpuMean / totalCpu, 3),
    })),
    totalMeanMs: round(total, 3),
    cpuMsPerRequest: round(totalCpu, 3),
    roundTripsPerRequest: counting
      ? round(
          stages.reduce((a, st) => a + (st.roundTrips ?? 0), 0),
          2,
        )
      : null,
  }
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
    return
  }
  console.log(`${report.database}: ${ITERATIONS} requests one at a time, mean body ${bodies.meanBytes} bytes`)
  console.log(`${'stage'.padEnd(62)}  wall mean    p50     p99  share   CPU mean  share  round trips`)
  const cell = (value: number | string, width: number) => String(value).padStart(width)
  for (const s of report.stages)
    console.log(
      `${s.stage.padEnd(62)} ${cell(s.mean, 8)} ${cell(s.p50, 7)} ${cell(s.p99, 7)} ${cell(Math.round(s.share * 100), 5)}%  ${cell(s.cpuMean, 8)} ${cell(Math.round(s.cpuShare * 100), 5)}%  ${cell(s.roundTrips ?? '-', 11)}`,
    )
  console.log(
    `total ${report.totalMeanMs} ms wall, ${report.cpuMsPerRequest} ms CPU per request (ms; CPU of all threads of this process)${report.roundTripsPerRequest === null ? '' : `, ${report.roundTripsPerRequest} database round trips per request`}`,
  )
}

await main()
