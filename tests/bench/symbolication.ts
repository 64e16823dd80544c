/**
 * What symbolication costs (docs/source-maps.md, "Symbolication"): an esbuild bundle of a few
 * hundred KB built from generated sources, 50 errors of 10 frames each thrown from it, then
 *
 *  1. the engine on this thread: parsing the map (cold), and resolving a frame once the map
 *     is parsed (cached);
 *  2. end to end through createSymbolicator (an in-memory PGlite, local blob files, a real
 *     analysis worker): a session's 500 frames with the map not yet in the worker (cold), and
 *     again with it cached;
 *  3. a whole session through processSession, on PGlite and on Postgres (a scratch database on
 *     DATABASE_URL's server, default the local test one; skipped when unreachable): one session
 *     with 50 uncaught errors thrown from the bundle, ingested through the ingest verb, the map
 *     uploaded through the upload domain function, processed with the real symbolicator and
 *     analysis worker, without a release (the baseline), with the map not cached in the worker,
 *     and cached. It throws unless the issues are filed by original frames.
 *
 * Wall time beside process CPU time (all threads: the worker and PGlite count too; a Postgres
 * server's own CPU does not).
 *
 *   npm run bench:symbolication [-- --rounds=5]
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { createContext, runInContext, runInNewContext } from 'node:vm'
import { and, eq } from 'drizzle-orm'
import type { DatabaseHandle } from '@/db/client'
import { openMigratedDatabase } from '@/db/migrate'
import { issues, replaySessions, sourcemapFiles } from '@/db/schema'
import { fingerprint, normaliseMessage } from '@/lib/analysis'
import type { MinifiedFrame } from '@/lib/analysis/frames'
import { page, SessionBuilder } from '@/lib/analysis/testing/events'
import type { RrwebEvent } from '@/lib/analysis/types'
import { AnalysisPool } from '@/lib/analysis-worker/pool'
import { acceptReplayBatch } from '@/lib/ingest/accept-batch'
import type { JobsEngine, StepTools } from '@/lib/jobs/types'
import { logger } from '@/lib/log'
import { createOrganization } from '@/lib/orgs/create-organization'
import { type ProcessingDeps, processSession } from '@/lib/processing/process-session'
import { createSymbolicator } from '@/lib/processing/symbolicator'
import { uploadSourcemaps } from '@/lib/sourcemaps/upload'
import { LocalBlobStore } from '@/lib/storage/local'
import { parseSourceMap } from '@/lib/symbolication/parse-map'
import { symbolicateFrame } from '@/lib/symbolication/symbolicate-frames'
import { recorderBatches } from '../helpers/batches'
import { bundle, stackOf } from '../helpers/source-maps'
import { createScratchDatabase, postgresServerUrl } from './harness/database'

// One line per processed session would bury the figures.
logger.level = 'warn'
setFlagsFromString('--expose-gc')
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void

const BUNDLE_URL = 'https://shop.example.com/assets/app-3f9a.js'
const ERRORS = 50
/** Runs of each processing case (interleaved); `-- --rounds=N`. */
const ROUNDS = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length) ?? 5)
const FILLER_FUNCTIONS = 60

/** Module `m`: a chain of ten functions, the last one throws, and filler code around it. */
function moduleSource(m: number): string {
  const lines: string[] = [`// Module ${m}: generated for the symbolication benchmark.`]
  for (let f = 0; f < FILLER_FUNCTIONS; f++)
    lines.push(
      `export function helper${m}x${f}(items: { price: number; quantity: number }[], discount = ${f % 7}): number {`,
      `  let total = 0`,
      `  for (const item of items) total += item.price * item.quantity`,
      `  const label = \`order-${m}-${f}-\${items.length}\``,
      `  return label.length > ${f} ? total - discount : total + discount`,
      `}`,
    )
  for (let k = 0; k < 10; k++) {
    const body =
      k === 9
        ? `  const cart = (globalThis as { cart?: { lines: number[] } }).cart\n  return cart!.lines.length + depth`
        : `  return step${m}x${k + 1}(depth + 1) + 1`
    lines.push(`export function step${m}x${k}(depth: number): number {`, body, `}`)
  }
  return lines.join('\n')
}

function entrySource(): string {
  const imports: string[] = []
  const calls: string[] = []
  for (let m = 0; m < ERRORS; m++) {
    imports.push(`import * as m${m} from './m${m}'`)
    calls.push(`  ${m}: () => m${m}.step${m}x0(0) + Object.keys(m${m}).length,`)
  }
  return `${imports.join('\n')}\n;(globalThis as Record<string, unknown>).errors = {\n${calls.join('\n')}\n}\n`
}

const ms = (value: number) => `${value.toFixed(1)} ms`
const us = (value: number) => `${value.toFixed(1)} µs`

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}

async function measure<T>(work: () => Promise<T> | T): Promise<{ result: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const result = await work()
  return { result, wallMs: performance.now() - started, cpuMs: cpuMs(cpu) }
}

async function main(): Promise<void> {
  console.log(
    `node ${process.version}, load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores (shared machine: figures vary run to run)`,
  )
  const files: Record<string, string> = { 'entry.ts': entrySource() }
  for (let m = 0; m < ERRORS; m++) files[`m${m}.ts`] = moduleSource(m)
  const built = await bundle(files, 'entry.ts')
  const mapBytes = new TextEncoder().encode(built.map)
  console.log(
    `bundle ${(built.js.length / 1024).toFixed(0)} KB, map ${(mapBytes.byteLength / 1024).toFixed(0)} KB`,
  )

  const stacks: MinifiedFrame[][] = []
  for (let m = 0; m < ERRORS; m++) stacks.push(stackOf(built.js, BUNDLE_URL, `errors[${m}]()`).slice(0, 10))
  const frames = stacks.flat()
  console.log(`${ERRORS} errors, ${frames.length} frames`)

  // 1. The engine on this thread.
  gc()
  const heapBefore = process.memoryUsage().heapUsed
  const cold = await measure(() => parseSourceMap(mapBytes))
  const parsed = cold.result
  gc()
  const heapHeld = process.memoryUsage().heapUsed - heapBefore
  const firstPass = await measure(() => {
    for (const frame of frames) symbolicateFrame({ frame, map: parsed, callers: [] })
  })
  const rounds = 20
  const cachedPass = await measure(() => {
    for (let r = 0; r < rounds; r++)
      for (const frame of frames) symbolicateFrame({ frame, map: parsed, callers: [] })
  })
  const sample = symbolicateFrame({ frame: frames[0]!, map: parsed, callers: [] })
  console.log(
    `sample: ${frames[0]!.fn} (${frames[0]!.line}:${frames[0]!.column}) → ${sample.original?.fn} ${sample.original?.source}:${sample.original?.line}`,
  )
  console.log('\nengine, this thread')
  console.log(`  parse map (cold)            wall ${ms(cold.wallMs)}, cpu ${ms(cold.cpuMs)}`)
  console.log(
    `  heap of the parsed map      ${(heapHeld / 1024 / 1024).toFixed(1)} MB measured, ${(parsed.heapBytes / 1024 / 1024).toFixed(1)} MB estimated (what the cache counts)`,
  )
  console.log(
    `  first lookups (line index)  ${us((firstPass.wallMs * 1000) / frames.length)} per frame wall, ${us((firstPass.cpuMs * 1000) / frames.length)} cpu`,
  )
  console.log(
    `  cached lookups              ${us((cachedPass.wallMs * 1000) / (frames.length * rounds))} per frame wall, ${us((cachedPass.cpuMs * 1000) / (frames.length * rounds))} cpu`,
  )
  console.log(
    `  cold, per frame of one session (parse + lookup): ${us(((cold.wallMs + firstPass.wallMs) * 1000) / frames.length)} wall`,
  )

  // 2. End to end through createSymbolicator.
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-symbolication-'))
  const handle = await openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true })
  const pool = new AnalysisPool({ size: 1, idleMs: 60_000 })
  try {
    const blobs = new LocalBlobStore(path.join(dir, 'blobs'))
    const blobKey = `sourcemaps/${createHash('sha256').update(mapBytes).digest('hex')}.map`
    await blobs.put(blobKey, mapBytes)
    const org = await createOrganization(handle.db, { name: 'Bench' })
    await handle.db.insert(sourcemapFiles).values({
      organizationId: org.id,
      release: 'r1',
      url: '~/assets/app-3f9a.js',
      blobKey,
      sizeBytes: mapBytes.byteLength,
    })
    const budget = { timeoutMs: 60_000, memoryMb: 256 }
    const symbolicate = createSymbolicator({ db: handle.db, blobs, analysis: { pool, budget } })
    const request = { organizationId: org.id, release: 'r1', debugIds: null, frames, stacks }
    // The worker's start-up (seconds from TypeScript source) is no part of a session's cost.
    await symbolicate({ ...request, frames: [{ fn: '', url: 'https://x/none.js', line: 1, column: 1 }] })
    await pool.symbolicate([], async () => null, budget)
    const first = await measure(() => symbolicate(request))
    const mapped = Object.values(first.result.frames).filter((frame) => frame.status === 'mapped').length
    const again: number[] = []
    const againCpu: number[] = []
    for (let r = 0; r < 10; r++) {
      const run = await measure(() => symbolicate(request))
      again.push(run.wallMs)
      againCpu.push(run.cpuMs)
    }
    console.log(
      `\nend to end, ${ERRORS} errors × 10 frames (${Object.keys(first.result.frames).length} distinct positions, ${mapped} mapped)`,
    )
    console.log(
      `  map not cached in the worker  wall ${ms(first.wallMs)}, cpu ${ms(first.cpuMs)} (${us((first.wallMs * 1000) / frames.length)} per frame)`,
    )
    console.log(
      `  map cached (median of 10)     wall ${ms(median(again))}, cpu ${ms(median(againCpu))} (${us((median(again) * 1000) / frames.length)} per frame)`,
    )
  } finally {
    await pool.close()
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  }

  // 3. A whole session through processSession, on each engine.
  const thrown: ThrownError[] = []
  for (let m = 0; m < ERRORS; m++) thrown.push(thrownError(built.js, BUNDLE_URL, `errors[${m}]()`))
  console.log(`\nprocessSession, one session with ${ERRORS} uncaught errors (stacks as V8 printed them)`)
  console.log(`  e.g. ${thrown[0]!.stack.split('\n').slice(0, 2).join(' | ')}`)
  await processingBench('PGlite (in memory)', built, thrown, async () =>
    openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true }),
  )
  const scratch = await createScratchDatabase('bench_symbolication').catch((error: unknown) => {
    console.log(`\nPostgres not reachable at ${postgresServerUrl()} (${String(error)}): skipped`)
    return null
  })
  if (scratch)
    try {
      await processingBench(
        `Postgres (${new URL(scratch.url).host}/${scratch.name})`,
        built,
        thrown,
        async () => openMigratedDatabase({ kind: 'postgres', url: scratch.url }, { maxConnections: 5 }),
      )
    } finally {
      await scratch.drop()
    }
}

interface ThrownError {
  type: string
  message: string
  /** `error.stack` exactly as V8 formatted it. */
  stack: string
}

/**
 * Runs the bundle as the browser would load it from `url`, then `call`, and returns the
 * thrown error as V8 printed it. Node's stack rewriting leaves it alone: no map is known for
 * the bundle's URL.
 */
function thrownError(js: string, url: string, call: string): ThrownError {
  const context = createContext({})
  runInContext(js, context, { filename: url })
  const capture = `(() => {
    try { ${call} } catch (error) { return { type: error.name, message: error.message, stack: error.stack } }
    throw new Error('the call did not throw')
  })()`
  const error = runInContext(capture, context, { filename: 'test-caller.js' }) as ThrownError
  // Frames of the harness below the bundle's (if the stack reaches them) are not the page's.
  const stack = error.stack
    .split('\n')
    .filter((line, i) => i === 0 || line.includes(url))
    .join('\n')
  return { type: error.type, message: error.message, stack }
}

// Events handed to the engine are not run here: only the processing of one session is measured.
const idleEngine: JobsEngine = {
  kind: 'in-process',
  send: async () => {},
  start: async () => {},
  stop: async () => {},
}

/** Steps as an engine runs them (each result memoized as JSON), each one's wall time kept. */
function timedSteps(): StepTools & { wallMs: Record<string, number> } {
  const wallMs: Record<string, number> = {}
  return {
    wallMs,
    run: async (id, fn) => {
      const started = performance.now()
      const result = JSON.parse(JSON.stringify((await fn()) ?? null))
      wallMs[id] = performance.now() - started
      return result
    },
    sleep: async () => {},
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * One organization, the map uploaded for release r1 through the upload domain function, and
 * the same recording ingested twice through the ingest verb: once without a release (the
 * baseline: one analysis pass, minified frames) and once with r1 (analyse, symbolicate,
 * analyse again). Every run deletes the organization's issues first, so each run files the
 * same 50 new issues; a cold run first uploads the map again with other bytes (a trailing
 * newline more), so its blob key, and the worker's cache entry, are new.
 */
async function processingBench(
  engine: string,
  built: { js: string; map: string },
  thrown: ThrownError[],
  open: () => Promise<DatabaseHandle>,
): Promise<void> {
  const handle = await open()
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-processing-'))
  const pool = new AnalysisPool({ size: 1, idleMs: 60_000 })
  try {
    const { db } = handle
    const blobs = new LocalBlobStore(path.join(dir, 'blobs'))
    const organizationId = (await createOrganization(db, { name: 'Bench' })).id
    const upload = (newlines: number) =>
      uploadSourcemaps(db, blobs, {
        organizationId,
        release: 'r1',
        urlPrefix: 'https://shop.example.com/assets',
        files: [
          { name: 'app-3f9a.js', bytes: new TextEncoder().encode(built.js) },
          { name: 'app-3f9a.js.map', bytes: new TextEncoder().encode(built.map + '\n'.repeat(newlines)) },
        ],
      })
    await upload(0)

    const events = sessionWithErrors(thrown)
    const ingest = async (externalId: string, release?: string) => {
      let sessionId = ''
      for (const batch of recorderBatches({
        sessionId: externalId,
        events,
        perBatch: 40,
        final: false,
        release,
      }))
        sessionId = (await acceptReplayBatch(
          { db, blobs, jobs: idleEngine },
          { organizationId, body: Buffer.from(JSON.stringify(batch)) },
        ))!.sessionId
      return sessionId
    }
    const plain = await ingest('bench-no-release')
    const released = await ingest('bench-release-r1', 'r1')

    const analysis = { pool, budget: { timeoutMs: 60_000, memoryMb: 256 } }
    const deps: ProcessingDeps = {
      db,
      blobs,
      jobs: idleEngine,
      baseUrl: 'https://replay.example.com',
      ingestUrl: 'https://replay.example.com/api/sdk/replay',
      analysis,
      symbolicate: createSymbolicator({ db, blobs, analysis }),
    }
    const expected = new Set(
      thrown.map((error, m) =>
        fingerprint('js_error', [error.type, normaliseMessage(error.message), `step${m}x9 src/m${m}.ts`]),
      ),
    )
    let runCount = 0
    const run = async (sessionId: string, byOriginalFrames: boolean) => {
      await db.delete(issues).where(eq(issues.organizationId, organizationId))
      await db
        .update(replaySessions)
        .set({ status: 'receiving', processingClaim: null })
        .where(eq(replaySessions.id, sessionId))
      const runId = `bench-${++runCount}`
      const step = timedSteps()
      const timed = await measure(() => processSession(deps, { sessionId, runId, step }))
      const outcome = timed.result
      if (outcome.status !== 'processed' || outcome.created.length !== ERRORS)
        throw new Error(`expected ${ERRORS} new issues, got ${JSON.stringify(outcome).slice(0, 300)}`)
      const filed = await db
        .select({ fingerprint: issues.fingerprint })
        .from(issues)
        .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'js_error')))
      const original = filed.filter((issue) => expected.has(issue.fingerprint)).length
      if (filed.length !== ERRORS || original !== (byOriginalFrames ? ERRORS : 0))
        throw new Error(
          `${engine}: ${filed.length} js_error issues, ${original} by original frames; expected ${ERRORS} and ${byOriginalFrames ? ERRORS : 0}`,
        )
      return { ...timed, steps: step.wallMs }
    }

    // Worker start-up, first compilation and the first map parse are no part of a session's cost.
    await run(plain, false)
    await run(released, true)

    type Figures = { wall: number[]; cpu: number[]; steps: Record<string, number[]> }
    const figures = (): Figures => ({ wall: [], cpu: [], steps: {} })
    const baseline = figures()
    const cold = figures()
    const cached = figures()
    const add = (into: Figures, timed: { wallMs: number; cpuMs: number; steps: Record<string, number> }) => {
      into.wall.push(timed.wallMs)
      into.cpu.push(timed.cpuMs)
      for (const [id, wallMs] of Object.entries(timed.steps)) {
        into.steps[id] ??= []
        into.steps[id].push(wallMs)
      }
    }
    // Interleaved, so that whatever else the machine does weighs on the three alike.
    for (let round = 1; round <= ROUNDS; round++) {
      add(baseline, await run(plain, false))
      await upload(round)
      add(cold, await run(released, true))
      add(cached, await run(released, true))
    }
    const line = (label: string, of: Figures) => {
      console.log(
        `  ${label.padEnd(44)} wall ${ms(median(of.wall))} (${ms(Math.min(...of.wall))}–${ms(Math.max(...of.wall))}), cpu ${ms(median(of.cpu))} (${ms(Math.min(...of.cpu))}–${ms(Math.max(...of.cpu))})`,
      )
      const steps = ['analyze', 'symbolicate', 'analyze-symbolicated', 'record', 'dispatch']
        .filter((id) => of.steps[id])
        .map((id) => `${id} ${ms(median(of.steps[id]!))}`)
      console.log(`    steps, median wall: ${steps.join(', ')}`)
    }
    console.log(
      `\n${engine}: medians of ${ROUNDS} runs (min–max), each filing ${ERRORS} new issues; load average now ${loadavg()[0]?.toFixed(1)}`,
    )
    line('no release (one analysis pass, baseline)', baseline)
    line('release r1, map not cached in the worker', cold)
    line('release r1, map cached', cached)
    // The added steps, not a difference of totals: on a busy machine the totals' spread (the
    // record step's above all) is larger than what symbolication adds.
    const added = (of: Figures) =>
      ms(median(of.steps.symbolicate!.map((wallMs, i) => wallMs + of.steps['analyze-symbolicated']![i]!)))
    console.log(
      `  added steps (symbolicate + analyze-symbolicated), median wall: ${added(cold)} cold, ${added(cached)} cached; issues checked: ${ERRORS} by original frames with r1, ${ERRORS} by minified ones without`,
    )
  } finally {
    await pool.close()
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A checkout page on which the 50 errors are thrown 2 s apart, each after some mouse movement. */
function sessionWithErrors(thrown: ThrownError[]): RrwebEvent[] {
  const b = new SessionBuilder(Date.now() - 5 * 60_000).load(`https://shop.example.com/checkout`, page([]))
  for (const error of thrown) b.wait(2000).mouseMove().sdkError(error.type, error.message, error.stack)
  return b.wait(1000).mouseMove().events
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
