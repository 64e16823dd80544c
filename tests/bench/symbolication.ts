/**
 * What symbolication costs (docs/source-maps.md, "Symbolication"): an esbuild bundle of a few
 * hundred KB built from generated sources, 50 errors of 10 frames each thrown from it, then
 *
 *  1. the engine on this thread: parsing the map (cold), and resolving a frame once the map
 *     is parsed (cached);
 *  2. end to end through createSymbolicator (an in-memory PGlite, local blob files, a real
 *     analysis worker): a session's 500 frames with the map not yet in the worker (cold), and
 *     again with it cached.
 *
 * Wall time beside process CPU time (all threads: the worker and PGlite count too).
 *
 *   npm run bench:symbolication
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { openMigratedDatabase } from '@/db/migrate'
import { sourcemapFiles } from '@/db/schema'
import { AnalysisPool } from '@/lib/analysis-worker/pool'
import { createOrganization } from '@/lib/orgs/create-organization'
import { LocalBlobStore } from '@/lib/storage/local'
import { parseSourceMap } from '@/lib/symbolication/parse-map'
import { symbolicateFrame } from '@/lib/symbolication/symbolicate-frames'
import { createSymbolicator } from '@/lib/symbolication/symbolicate-session'
import type { MinifiedFrame } from '@/lib/symbolication/types'
import { bundle, stackOf } from '../helpers/source-maps'

setFlagsFromString('--expose-gc')
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void

const URL = 'https://shop.example.com/assets/app-3f9a.js'
const ERRORS = 50
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
  for (let m = 0; m < ERRORS; m++) stacks.push(stackOf(built.js, URL, `errors[${m}]()`).slice(0, 10))
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
    await pool.symbolicate([], async () => [], budget)
    const first = await measure(() => symbolicate(request))
    const mapped = Object.values(first.result.frames).filter((frame) => frame.status === 'mapped').length
    const again: number[] = []
    const againCpu: number[] = []
    for (let r = 0; r < 10; r++) {
      const run = await measure(() => symbolicate(request))
      again.push(run.wallMs)
      againCpu.push(run.cpuMs)
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.log(
      `\nend to end, ${ERRORS} errors × 10 frames (${Object.keys(first.result.frames).length} distinct positions, ${mapped} mapped)`,
    )
    console.log(
      `  map not cached in the worker  wall ${ms(first.wallMs)}, cpu ${ms(first.cpuMs)} (${us((first.wallMs * 1000) / frames.length)} per frame)`,
    )
    console.log(
      `  map cached (median of 10)     wall ${ms(median(again))}, cpu ${ms(median(againCpu))} (${us((median(again) * 1000) / frames.length)} per frame)`,
    )
    console.log(
      '\nprocessSession is not measured here: the processing wiring that calls the symbolicator is another branch.',
    )
  } finally {
    await pool.close()
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
