import { createHash } from 'node:crypto'
import path from 'node:path'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import type { RrwebEvent } from '@/lib/analysis/types'
import {
  AnalysisFailed,
  AnalysisPool,
  AnalysisStopped,
  type CheckedUpload,
  type StoredBatch,
  spawnAnalysisWorker,
  typeScriptWorker,
  type UploadedMap,
} from '@/lib/analysis-worker/pool'
import { parseConfig } from '@/lib/config'
import { mapHeapEstimate } from '@/lib/symbolication/heap-estimate'
import { recorderBatches } from '../helpers/batches'
import { loadRecording } from '../helpers/pipeline'
import { waitFor } from '../helpers/wait'

const BUDGET = { timeoutMs: 60_000, memoryMb: 128 }
const pools: AnalysisPool[] = []

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

/** A pool that counts the workers it starts. */
function countingPool(size: number, idleMs = 60_000) {
  const counter = { started: 0 }
  const pool = new AnalysisPool({
    size,
    idleMs,
    spawn: (options: WorkerOptions) => {
      counter.started++
      return spawnAnalysisWorker(options)
    },
  })
  pools.push(pool)
  return { pool, counter }
}

function storedBatches(events: RrwebEvent[], perBatch = 10): StoredBatch[] {
  return recorderBatches({ sessionId: 's', events, perBatch }).map((batch, sequence) => ({
    sequence,
    bytes: new TextEncoder().encode(JSON.stringify(batch)),
  }))
}

async function* from(batches: StoredBatch[]): AsyncGenerator<StoredBatch> {
  for (const batch of batches) yield batch
}

describe('AnalysisPool', () => {
  it('answers what the analyser answers in this thread', async () => {
    const { pool } = countingPool(1)
    const { events } = loadRecording('js-error-after-click')
    const options = { ignoreRequestUrls: ['http://localhost:3000'] }
    const batches = storedBatches(events)
    const inWorker = await pool.analyse(from(batches), options, BUDGET)
    expect(inWorker).toEqual(await analyzeEvents(events, options))
    // The bytes were moved to the worker, not copied: this thread's buffers are now empty.
    expect(batches.every((batch) => batch.bytes.byteLength === 0)).toBe(true)
    expect(inWorker.findings.length).toBeGreaterThan(0)
  })

  it('keeps one warm worker for consecutive and concurrent sessions, within its size', async () => {
    const { pool, counter } = countingPool(1)
    const { events } = loadRecording('rage-click')
    const [a, b] = await Promise.all([
      pool.analyse(from(storedBatches(events)), {}, BUDGET),
      pool.analyse(from(storedBatches(events)), {}, BUDGET),
    ])
    const c = await pool.analyse(from(storedBatches(events)), {}, BUDGET)
    expect(a).toEqual(b)
    expect(c).toEqual(a)
    expect(counter.started).toBe(1)
    expect(pool.workerCount).toBe(1)
  })

  it('lets an idle worker exit', async () => {
    const { pool } = countingPool(1, 50)
    await pool.analyse(from(storedBatches(loadRecording('clean').events)), {}, BUDGET)
    await waitFor('the idle worker to exit', async () => pool.workerCount === 0)
  })

  it('reports a batch that is not JSON as an analysis failure and keeps the worker', async () => {
    const { pool, counter } = countingPool(1)
    const broken = [{ sequence: 0, bytes: new TextEncoder().encode('{"replay": {"events": [') }]
    await expect(pool.analyse(from(broken), {}, BUDGET)).rejects.toBeInstanceOf(AnalysisFailed)
    const { events } = loadRecording('clean')
    const result = await pool.analyse(from(storedBatches(events)), {}, BUDGET)
    expect(result.eventCount).toBe(events.length)
    expect(counter.started).toBe(1)
  })

  it('passes a read failure on and replaces the worker that held half a session', async () => {
    const { pool, counter } = countingPool(1)
    const { events } = loadRecording('multi-page')
    async function* failing(): AsyncGenerator<StoredBatch> {
      yield storedBatches(events)[0]!
      throw new Error('Replay batch 1 is missing from blob storage')
    }
    await expect(pool.analyse(failing(), {}, BUDGET)).rejects.toThrow('missing from blob storage')
    expect(pool.workerCount).toBe(0)
    const result = await pool.analyse(from(storedBatches(events)), {}, BUDGET)
    expect(result.summary.pageCount).toBeGreaterThan(0)
    expect(counter.started).toBe(2)
  })
})

describe('checking uploaded source maps (check-map)', () => {
  const encode = (text: string) => new TextEncoder().encode(text)
  const valid = JSON.stringify({
    version: 3,
    sources: ['src/app.ts'],
    names: [],
    mappings: 'AAAA',
    debugId: '4E4BA1C2-7D3F-4B8E-9C55-0D1E2F3A4B5C',
  })

  async function collect(checks: AsyncIterable<CheckedUpload>): Promise<CheckedUpload[]> {
    const all: CheckedUpload[] = []
    for await (const checked of checks) all.push(checked)
    return all
  }

  it('answers each map in order with its debug ID and SHA-256 or the refusal, moving the bytes there and back', async () => {
    const { pool, counter } = countingPool(1)
    const maps: UploadedMap[] = [
      { path: 'a.js.map', bytes: encode(valid) },
      { path: 'b.js.map', bytes: encode('{"version":3,') },
      { path: 'c.js.map', bytes: encode('[1]') },
      { path: 'd.js.map', bytes: encode('{"version":3,"sources":[]}') },
      { path: 'e.js.map', bytes: encode('{"version":3,"sources":[],"mappings":"","debug_id":"nope"}') },
      { path: 'f.js.map', bytes: new Uint8Array([0x7b, 0xff, 0x7d]) },
      // A view into a larger buffer: only its own bytes are checked.
      { path: 'g.js.map', bytes: Buffer.from(`xx${valid}yy`).subarray(2, 2 + valid.length) },
    ]
    const checked = await collect(pool.checkMaps(maps, BUDGET))
    const sha256 = createHash('sha256').update(valid).digest('hex')
    // The JSON's size and the four numbers of its mappings (`AAAA`), counted by the check.
    const heapEstimateBytes = mapHeapEstimate(valid.length, 4)
    expect(checked.map(({ path, check }) => ({ path, check }))).toEqual([
      {
        path: 'a.js.map',
        check: { ok: true, debugId: '4e4ba1c2-7d3f-4b8e-9c55-0d1e2f3a4b5c', heapEstimateBytes, sha256 },
      },
      {
        path: 'b.js.map',
        check: { ok: false, error: 'b.js.map is not valid JSON: a source map must be a JSON object' },
      },
      {
        path: 'c.js.map',
        check: { ok: false, error: 'c.js.map is not a source map: expected a JSON object' },
      },
      { path: 'd.js.map', check: { ok: false, error: 'd.js.map has no "mappings" string' } },
      { path: 'e.js.map', check: { ok: false, error: 'e.js.map: "debugId" must be a UUID' } },
      {
        path: 'f.js.map',
        check: { ok: false, error: 'f.js.map is not valid JSON: a source map must be a JSON object' },
      },
      {
        path: 'g.js.map',
        check: { ok: true, debugId: '4e4ba1c2-7d3f-4b8e-9c55-0d1e2f3a4b5c', heapEstimateBytes, sha256 },
      },
    ])
    expect(new TextDecoder().decode(checked[0]!.bytes)).toBe(valid)
    expect(new TextDecoder().decode(checked[6]!.bytes)).toBe(valid)
    // Moved, not copied: the caller's own buffer is empty now.
    expect(maps[0]!.bytes.byteLength).toBe(0)
    expect(counter.started).toBe(1)
  })

  it('frees the worker when the caller stops at the first refusal', async () => {
    const { pool, counter } = countingPool(1)
    const maps = ['{', valid].map((text, i) => ({ path: `${i}.js.map`, bytes: encode(text) }))
    for await (const { check } of pool.checkMaps(maps, BUDGET)) if (!check.ok) break
    // The second map was never sent.
    expect(maps[1]!.bytes.byteLength).toBe(valid.length)
    const [again] = await collect(pool.checkMaps([{ path: 'x.js.map', bytes: encode(valid) }], BUDGET))
    expect(again!.check.ok).toBe(true)
    expect(counter.started).toBe(1)
  })

  it('stops a map that runs over the time budget and replaces the worker', async () => {
    const pool = new AnalysisPool({
      size: 1,
      idleMs: 60_000,
      spawn: (options) =>
        typeScriptWorker(path.join(process.cwd(), 'tests/helpers/stuck-map-worker.ts'), options),
    })
    pools.push(pool)
    const stopped = await collect(
      pool.checkMaps([{ path: 'slow.js.map', bytes: encode(valid) }], { timeoutMs: 1_000, memoryMb: 128 }),
    ).catch((error: unknown) => error)
    expect(stopped).toBeInstanceOf(AnalysisStopped)
    expect((stopped as AnalysisStopped).stopCause).toBe('time')
    expect(pool.workerCount).toBe(0)
  })
})

describe('analysis budget configuration', () => {
  it("does not count a worker's start-up against the session's time budget", async () => {
    // The real worker, loaded only after 1.5 s: longer than the whole budget below.
    const entry = new URL(`file://${path.resolve('lib/analysis-worker/worker.ts')}`).href
    const slowStart = `setTimeout(() => import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) }), 1500)`
    const pool = new AnalysisPool({
      size: 1,
      idleMs: 60_000,
      spawn: (options) => new Worker(slowStart, { ...options, eval: true }),
    })
    pools.push(pool)
    const { events } = loadRecording('js-error-after-click')
    const result = await pool.analyse(from(storedBatches(events)), {}, { timeoutMs: 1_000, memoryMb: 128 })
    expect(result.findings.length).toBeGreaterThan(0)
  })

  it('fails a worker that dies while starting with an error to retry, not as a stopped session', async () => {
    const pool = new AnalysisPool({
      size: 1,
      idleMs: 60_000,
      spawn: (options) => new Worker('process.exit(3)', { ...options, eval: true }),
    })
    pools.push(pool)
    const failure = await pool.analyse(from([]), {}, BUDGET).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect(failure).not.toBeInstanceOf(AnalysisStopped)
    expect((failure as Error).message).toBe('The analysis worker exited while starting')
    expect(pool.workerCount).toBe(0)
  })

  it('defaults to 60 seconds and 256 MB and reads ANALYSIS_TIMEOUT_SECONDS and ANALYSIS_MEMORY_MB', () => {
    // The test file's own data directory and secret: nothing is written beside the checkout.
    const env = { DATA_DIR: process.env.DATA_DIR, AUTH_SECRET: process.env.AUTH_SECRET }
    expect(parseConfig(env).analysis).toEqual({ timeoutSeconds: 60, memoryMb: 256 })
    expect(parseConfig({ ...env, ANALYSIS_TIMEOUT_SECONDS: '5', ANALYSIS_MEMORY_MB: '64' }).analysis).toEqual(
      {
        timeoutSeconds: 5,
        memoryMb: 64,
      },
    )
    expect(() => parseConfig({ ...env, ANALYSIS_TIMEOUT_SECONDS: '0' })).toThrow(
      'Invalid environment variable ANALYSIS_TIMEOUT_SECONDS: must be greater than 0',
    )
    expect(() => parseConfig({ ...env, ANALYSIS_MEMORY_MB: '8' })).toThrow(
      'Invalid environment variable ANALYSIS_MEMORY_MB: must be at least 32 (megabytes)',
    )
  })
})
