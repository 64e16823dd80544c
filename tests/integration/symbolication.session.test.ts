import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Worker, WorkerOptions } from 'node:worker_threads'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sourcemapFiles } from '@/db/schema'
import { frameKey, type MinifiedFrame } from '@/lib/analysis/frames'
import { AnalysisPool, typeScriptWorker } from '@/lib/analysis-worker/pool'
import type { ToWorker } from '@/lib/analysis-worker/protocol'
import { createOrganization } from '@/lib/orgs/create-organization'
import {
  createSymbolicator,
  MAX_SESSION_MAPS,
  type SymbolicateFrames,
  symbolicateSession,
} from '@/lib/processing/symbolicator'
import { uploadSourcemaps } from '@/lib/sourcemaps/upload'
import { LocalBlobStore } from '@/lib/storage/local'
import type { BlobStore } from '@/lib/storage/types'
import { mapHeapBudgetBytes } from '@/lib/symbolication/heap-estimate'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { bundle, stackOf } from '../helpers/source-maps'

const BUDGET = { timeoutMs: 30_000, memoryMb: 256 }
const FRAME_URL = 'https://shop.example/assets/app.js?v=3'
const DEBUG_ID = '5e1f6b8a-3c2d-4e5f-8a9b-0c1d2e3f4a5b'

let database: TestDatabase
let blobs: LocalBlobStore
let pool: AnalysisPool
let orgA: string
let orgB: string
let stack: MinifiedFrame[]
let appJs: string
let appMapJson: string
let appMapKey: string
let otherMapKey: string

async function putMap(json: string): Promise<{ blobKey: string; sizeBytes: number }> {
  const bytes = new TextEncoder().encode(json)
  const blobKey = `sourcemaps/${createHash('sha256').update(bytes).digest('hex')}.map`
  await blobs.put(blobKey, bytes)
  return { blobKey, sizeBytes: bytes.byteLength }
}

async function addRow(row: {
  organizationId: string
  release: string
  url: string
  debugId?: string
  blobKey: string
  sizeBytes: number
  heapEstimateBytes?: number
}) {
  await database.db.insert(sourcemapFiles).values(row)
}

beforeAll(async () => {
  database = await createTestDatabase()
  blobs = new LocalBlobStore(mkdtempSync(path.join(tmpdir(), 'sm-blobs-')))
  pool = new AnalysisPool({ size: 1, idleMs: 60_000 })
  orgA = (await createOrganization(database.db, { name: 'A' })).id
  orgB = (await createOrganization(database.db, { name: 'B' })).id
  const app = await bundle(
    {
      'checkout.ts': `import { formatTotal } from './format'\n\nexport function submitOrder(order: { items: number[] }): string {\n  const total = order.items.reduce((sum, item) => sum + item, 0)\n  return formatTotal(total)\n}\n\n;(globalThis as Record<string, unknown>).go = () => submitOrder({ items: [1, 2] })\n`,
      'format.ts': `export function formatTotal(total: number): string {\n  const currency = (globalThis as { currency?: { symbol: string } }).currency\n  return currency!.symbol + total.toFixed(2)\n}\n`,
    },
    'checkout.ts',
  )
  // Another bundle's map: what a frame resolves to when the wrong map is used.
  const other = await bundle(
    {
      'other.ts': `export function other(): number {\n  return 1 + Math.random() * 2 + Math.random() * 3\n}\n(globalThis as Record<string, unknown>).o = other\n`,
    },
    'other.ts',
  )
  stack = stackOf(app.js, FRAME_URL, 'go()')
  appJs = app.js
  appMapJson = app.map
  ;({ blobKey: appMapKey } = await putMap(app.map))
  ;({ blobKey: otherMapKey } = await putMap(other.map))
  const appSize = new TextEncoder().encode(app.map).byteLength
  const otherSize = new TextEncoder().encode(other.map).byteLength
  await addRow({
    organizationId: orgA,
    release: 'r1',
    url: '~/assets/app.js',
    blobKey: appMapKey,
    sizeBytes: appSize,
  })
  // Org B uploaded another map for the same release and address: never used for org A.
  await addRow({
    organizationId: orgB,
    release: 'r1',
    url: '~/assets/app.js',
    blobKey: otherMapKey,
    sizeBytes: otherSize,
  })
  await addRow({
    organizationId: orgB,
    release: 'r9',
    url: '~/b.js',
    debugId: '00000000-0000-4000-8000-00000000000b',
    blobKey: appMapKey,
    sizeBytes: appSize,
  })
  // Org A: the right map by debug ID in an older release, a wrong one by address in r2.
  await addRow({
    organizationId: orgA,
    release: 'r0',
    url: 'https://old.example/app.js',
    debugId: DEBUG_ID,
    blobKey: appMapKey,
    sizeBytes: appSize,
  })
  await addRow({
    organizationId: orgA,
    release: 'r2',
    url: FRAME_URL.split('?')[0]!,
    blobKey: otherMapKey,
    sizeBytes: otherSize,
  })
  const broken = await putMap('{"version":3,"sources":["a.ts"],"mappings":"!!!"}')
  await addRow({ organizationId: orgA, release: 'r1', url: '~/assets/broken.js', ...broken })
  await addRow({
    organizationId: orgA,
    release: 'r1',
    url: '~/assets/gone.js',
    blobKey: 'sourcemaps/missing.map',
    sizeBytes: 10,
  })
})

afterAll(async () => {
  await pool?.close()
  await database?.close()
})

const request = (
  organizationId: string,
  release: string,
  frames = stack,
  debugIds: Record<string, string> | null = null,
) => ({
  organizationId,
  release,
  debugIds,
  frames,
  stacks: [frames],
})

describe('createSymbolicator', () => {
  it("resolves a session's frames through its organization's map, by `~/path` and without the query", async () => {
    // Held as the contract's type, as the processing step may hold it.
    const symbolicate: SymbolicateFrames = createSymbolicator({
      db: database.db,
      blobs,
      analysis: { pool, budget: BUDGET },
    })
    const result = await symbolicate(request(orgA, 'r1'))
    expect(result.release).toBe('r1')
    const [top, caller] = stack
    expect(result.frames[frameKey(top!)]).toMatchObject({
      status: 'mapped',
      minified: top,
      original: {
        fn: 'formatTotal',
        source: '../src/format.ts',
        line: 3,
        context: { line: '  return currency!.symbol + total.toFixed(2)' },
      },
    })
    expect(result.frames[frameKey(caller!)]!.original).toMatchObject({ fn: 'submitOrder', line: 5 })
    // A release without maps, and a script without one, have no map.
    const none = await symbolicate(request(orgA, 'r7'))
    expect(Object.values(none.frames).map((frame) => frame.status)).toEqual(stack.map(() => 'no_map'))
  })

  it("never uses another organization's map, by address or by debug ID", async () => {
    const symbolicate = createSymbolicator({ db: database.db, blobs, analysis: { pool, budget: BUDGET } })
    const forB = await symbolicate(request(orgB, 'r1'))
    for (const frame of Object.values(forB.frames))
      expect(frame.original?.source).not.toBe('../src/format.ts')
    const byOthersDebugId = await symbolicate(
      request(orgA, 'r9', stack, { [FRAME_URL]: '00000000-0000-4000-8000-00000000000b' }),
    )
    expect(Object.values(byOthersDebugId.frames).map((frame) => frame.status)).toEqual(
      stack.map(() => 'no_map'),
    )
  })

  it('prefers the debug ID the recorder saw over the address, from another release of the organization', async () => {
    const symbolicate = createSymbolicator({ db: database.db, blobs, analysis: { pool, budget: BUDGET } })
    const byAddress = await symbolicate(request(orgA, 'r2'))
    expect(byAddress.frames[frameKey(stack[0]!)]!.original?.source).toBe('../src/other.ts')
    const byDebugId = await symbolicate(request(orgA, 'r2', stack, { [FRAME_URL]: DEBUG_ID.toUpperCase() }))
    expect(byDebugId.frames[frameKey(stack[0]!)]!.original).toMatchObject({
      fn: 'formatTotal',
      source: '../src/format.ts',
    })
    // A session that names no release ('') finds the map by its debug ID alone.
    const withoutRelease = await symbolicate(request(orgA, '', stack, { [FRAME_URL]: DEBUG_ID }))
    expect(withoutRelease.frames[frameKey(stack[0]!)]!.original).toMatchObject({ fn: 'formatTotal' })
    expect((await symbolicate(request(orgA, '', stack))).frames[frameKey(stack[0]!)]!.status).toBe('no_map')
  })

  it('fails only the frames of a broken or missing map, and reads cached maps from the worker', async () => {
    let streams = 0
    const counting: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      stream: (key: string) => {
        streams++
        return blobs.stream(key)
      },
    })
    const frames: MinifiedFrame[] = [
      ...stack,
      { fn: 'x', url: 'https://shop.example/assets/broken.js', line: 1, column: 10 },
      { fn: 'y', url: 'https://shop.example/assets/gone.js', line: 1, column: 10 },
      { fn: 'z', url: 'https://shop.example/assets/unknown.js', line: 1, column: 10 },
    ]
    const symbolicate = createSymbolicator({
      db: database.db,
      blobs: counting,
      analysis: { pool, budget: BUDGET },
    })
    const result = await symbolicate(request(orgA, 'r1', frames))
    expect(frames.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual([
      ...stack.map(() => 'mapped'),
      'failed',
      'failed',
      'no_map',
    ])
    const before = streams
    const again = await symbolicate(request(orgA, 'r1', frames))
    expect(again).toEqual(result)
    // The parsed map and the broken one are remembered; only the missing blob is asked for again.
    expect(streams - before).toBe(1)
  })

  it(`reads at most ${MAX_SESSION_MAPS} maps for a session and fails the frames of the rest`, async () => {
    const frames: MinifiedFrame[] = []
    for (let i = 0; i <= MAX_SESSION_MAPS; i++) {
      const map = await putMap(
        JSON.stringify({ version: 3, sources: [`s${i}.ts`], names: [], mappings: 'AAAA' }),
      )
      await addRow({ organizationId: orgA, release: 'many', url: `~/m${i}.js`, ...map })
      frames.push({ fn: '', url: `https://shop.example/m${i}.js`, line: 1, column: 1 })
    }
    const result = await symbolicateSession(
      { db: database.db, blobs, analysis: { pool, budget: BUDGET } },
      request(orgA, 'many', frames),
    )
    const statuses = frames.map((frame) => result.frames[frameKey(frame)]!.status)
    expect(statuses.slice(0, MAX_SESSION_MAPS)).toEqual(frames.slice(0, MAX_SESSION_MAPS).map(() => 'mapped'))
    expect(statuses.at(-1)).toBe('failed')
  })

  it('finds a map uploaded for a `[slug]` folder under a mixed-case urlPrefix from the percent-encoded URL a browser reports', async () => {
    const encoder = new TextEncoder()
    const uploaded = await uploadSourcemaps(
      database.db,
      blobs,
      {
        organizationId: orgA,
        release: 'next',
        urlPrefix: 'https://CDN.Example.com/static',
        files: [
          { name: 'app/[slug]/page-abc.js', bytes: encoder.encode(appJs) },
          { name: 'app/[slug]/page-abc.js.map', bytes: encoder.encode(appMapJson) },
        ],
      },
      { analysis: { pool, budget: BUDGET } },
    )
    expect(uploaded.files.map((file) => file.url)).toEqual([
      'https://cdn.example.com/static/app/[slug]/page-abc.js',
    ])
    const frames = stackOf(appJs, 'https://cdn.example.com/static/app/%5Bslug%5D/page-abc.js?v=2', 'go()')
    const result = await symbolicateSession(
      { db: database.db, blobs, analysis: { pool, budget: BUDGET } },
      request(orgA, 'next', frames),
    )
    expect(result.frames[frameKey(frames[0]!)]!.original).toMatchObject({
      fn: 'formatTotal',
      source: '../src/format.ts',
    })
  })

  it('finds the address rows however many uploads share a debug ID of the session', async () => {
    const vendorId = '7a7a7a7a-0000-4000-8000-000000000001'
    const rows = Array.from({ length: 5001 }, (_, i) => ({
      organizationId: orgA,
      release: `dup-${i}`,
      url: '~/vendor.js',
      debugId: vendorId,
      blobKey: otherMapKey,
      sizeBytes: 10,
    }))
    for (let i = 0; i < rows.length; i += 1000)
      await database.db.insert(sourcemapFiles).values(rows.slice(i, i + 1000))
    // Written after them: a scan in table order meets it last.
    const size = (
      await database.db.select().from(sourcemapFiles).where(eq(sourcemapFiles.blobKey, appMapKey))
    )[0]!.sizeBytes
    await addRow({
      organizationId: orgA,
      release: 'crowd',
      url: '~/assets/app.js',
      blobKey: appMapKey,
      sizeBytes: size,
    })
    const vendor: MinifiedFrame = { fn: 'v', url: 'https://shop.example/vendor.js', line: 1, column: 1 }
    const result = await symbolicateSession(
      { db: database.db, blobs, analysis: { pool, budget: BUDGET } },
      request(orgA, 'crowd', [...stack, vendor], { [vendor.url]: vendorId }),
    )
    expect(stack.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual(stack.map(() => 'mapped'))
    expect(result.frames[frameKey(vendor)]!.status).not.toBe('no_map')
  })

  /**
   * A pool of stuck-map workers (all maps, only `stuckOn`, or every map after a worker's first),
   * counting starts and map messages.
   */
  function stuckPool(workerData: { stuckOn?: string; afterFirst?: boolean } = {}) {
    const started: Worker[] = []
    const sentMaps: string[] = []
    const spawn = (options: WorkerOptions) => {
      const worker = typeScriptWorker(path.join(process.cwd(), 'tests/helpers/stuck-map-worker.ts'), {
        ...options,
        workerData,
      })
      const post = worker.postMessage.bind(worker)
      worker.postMessage = (message: ToWorker, transfer?: readonly ArrayBuffer[]) => {
        if (message.type === 'map') sentMaps.push(message.blobKey)
        if (message.type === 'maps') sentMaps.push(...message.maps.map((map) => map.blobKey))
        post(message, transfer)
      }
      started.push(worker)
      return worker
    }
    return { pool: new AnalysisPool({ size: 1, idleMs: 60_000, spawn }), started, sentMaps }
  }

  it('fails every frame when the worker runs over its time budget on a map, replaces the worker, and does not send that map again', async () => {
    const stuck = stuckPool()
    try {
      const symbolicate = createSymbolicator({
        db: database.db,
        blobs,
        analysis: { pool: stuck.pool, budget: { timeoutMs: 1_000, memoryMb: 128 } },
      })
      const result = await symbolicate(request(orgA, 'r1'))
      expect(Object.values(result.frames).map((frame) => frame.status)).toEqual(stack.map(() => 'failed'))
      expect(stuck.pool.workerCount).toBe(0)
      expect(stuck.pool.stoppedOn(appMapKey)).toBe('time')
      expect(stuck.sentMaps).toEqual([appMapKey])
      // The next session of the release: the map is remembered on this thread, no worker waits on it.
      const again = await symbolicate(request(orgA, 'r1'))
      expect(again).toEqual(result)
      expect(stuck.started).toHaveLength(1)
      expect(stuck.sentMaps).toEqual([appMapKey])
    } finally {
      await stuck.pool.close()
    }
  })

  it('blames only the map the worker was parsing: the other maps resolve in a retry, and only it is remembered', async () => {
    const slow = await putMap(
      JSON.stringify({ version: 3, sources: ['slow.ts'], names: [], mappings: 'AAAA' }),
    )
    await addRow({ organizationId: orgA, release: 'r1', url: '~/assets/slow.js', ...slow })
    const stuck = stuckPool({ stuckOn: slow.blobKey })
    try {
      const symbolicate = createSymbolicator({
        db: database.db,
        blobs,
        analysis: { pool: stuck.pool, budget: { timeoutMs: 1_000, memoryMb: 128 } },
      })
      const slowFrame: MinifiedFrame = {
        fn: 's',
        url: 'https://shop.example/assets/slow.js',
        line: 1,
        column: 1,
      }
      // The slow map's frame first: it is sent before the app's map.
      const frames = [slowFrame, ...stack]
      const result = await symbolicate(request(orgA, 'r1', frames))
      expect(frames.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual([
        'failed',
        ...stack.map(() => 'mapped'),
      ])
      expect(stuck.sentMaps).toEqual([slow.blobKey, appMapKey])
      expect(stuck.started).toHaveLength(2)
      expect(stuck.pool.stoppedOn(slow.blobKey)).toBe('time')
      expect(stuck.pool.stoppedOn(appMapKey)).toBeUndefined()
      // The warm worker has the app's map; the slow one is never sent again.
      const again = await symbolicate(request(orgA, 'r1', frames))
      expect(again).toEqual(result)
      expect(stuck.started).toHaveLength(2)
      expect(stuck.sentMaps).toEqual([slow.blobKey, appMapKey])
    } finally {
      await stuck.pool.close()
    }
  })

  it('tries a map stopped after other maps alone in a fresh worker, and remembers it only when it fails there', async () => {
    const late = await putMap(
      JSON.stringify({ version: 3, sources: ['late.ts'], names: [], mappings: 'AAAA' }),
    )
    await addRow({ organizationId: orgA, release: 'r1', url: '~/assets/late.js', ...late })
    const lateFrame: MinifiedFrame = {
      fn: 'l',
      url: 'https://shop.example/assets/late.js',
      line: 1,
      column: 1,
    }
    // The late map's frame last: the app's map is parsed before it in the same worker.
    const frames = [...stack, lateFrame]
    const budget = { timeoutMs: 1_000, memoryMb: 128 }
    // Innocent: the worker stops on it only because a map came before it.
    const crowded = stuckPool({ afterFirst: true })
    try {
      const symbolicate = createSymbolicator({
        db: database.db,
        blobs,
        analysis: { pool: crowded.pool, budget },
      })
      const result = await symbolicate(request(orgA, 'r1', frames))
      expect(frames.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual(
        frames.map(() => 'mapped'),
      )
      // Stopped with the app's map, the app's frames again without it, the late map alone.
      expect(crowded.sentMaps).toEqual([appMapKey, late.blobKey, appMapKey, late.blobKey])
      expect(crowded.started).toHaveLength(3)
      expect(crowded.pool.stoppedOn(late.blobKey)).toBeUndefined()
    } finally {
      await crowded.pool.close()
    }
    // Guilty: it stops a fresh worker alone too, and only then is it remembered.
    const stuck = stuckPool({ stuckOn: late.blobKey })
    try {
      const symbolicate = createSymbolicator({
        db: database.db,
        blobs,
        analysis: { pool: stuck.pool, budget },
      })
      const result = await symbolicate(request(orgA, 'r1', frames))
      expect(frames.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual([
        ...stack.map(() => 'mapped'),
        'failed',
      ])
      expect(stuck.sentMaps).toEqual([appMapKey, late.blobKey, appMapKey, late.blobKey])
      expect(stuck.pool.stoppedOn(late.blobKey)).toBe('time')
      expect(stuck.pool.stoppedOn(appMapKey)).toBeUndefined()
    } finally {
      await stuck.pool.close()
    }
  })

  it("keeps one map at a time in the worker: a session whose maps together exceed the worker's heap cannot switch symbolication off", async () => {
    // A small worker (ANALYSIS_MEMORY_MB=64), so that the maps can stay small.
    const budget = { timeoutMs: 30_000, memoryMb: 64 }
    const small = new AnalysisPool({ size: 1, idleMs: 60_000 })
    let streams = 0
    const counting: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      stream: (key: string) => {
        streams++
        return blobs.stream(key)
      },
    })
    const deps = { db: database.db, blobs: counting, analysis: { pool: small, budget } }
    try {
      // Six maps of 1 MB, each 800,000 numbers on one line: about 19 MB of heap each to parse.
      const encoder = new TextEncoder()
      const mappings = `AAAA${',CAAC'.repeat(200_000)}`
      const files = Array.from({ length: 6 }, (_, i) => ({
        name: `heavy${i}.js.map`,
        bytes: encoder.encode(JSON.stringify({ version: 3, sources: [`heavy${i}.ts`], names: [], mappings })),
      }))
      await uploadSourcemaps(
        database.db,
        blobs,
        { organizationId: orgA, release: 'heavy', files },
        { analysis: { pool: small, budget } },
      )
      const rows = await database.db.select().from(sourcemapFiles).where(eq(sourcemapFiles.release, 'heavy'))
      const estimates = rows.map((row) => row.heapEstimateBytes ?? 0)
      expect(estimates).toHaveLength(6)
      for (const estimate of estimates) expect(estimate).toBeLessThanOrEqual(mapHeapBudgetBytes(64))
      expect(estimates.reduce((sum, estimate) => sum + estimate, 0)).toBeGreaterThan(64 * 1024 * 1024)
      // And one map whose estimate is over what a worker gives one map: never read.
      await addRow({
        organizationId: orgA,
        release: 'heavy',
        url: '~/huge.js',
        blobKey: appMapKey,
        sizeBytes: 1_000,
        heapEstimateBytes: mapHeapBudgetBytes(64) + 1,
      })
      const frames: MinifiedFrame[] = [
        ...Array.from({ length: 6 }, (_, i) => ({
          fn: '',
          url: `https://shop.example/heavy${i}.js`,
          line: 1,
          column: 1_000 + i,
        })),
        { fn: '', url: 'https://shop.example/huge.js', line: 1, column: 1 },
      ]
      const result = await symbolicateSession(deps, request(orgA, 'heavy', frames))
      expect(frames.map((frame) => result.frames[frameKey(frame)]!.status)).toEqual([
        ...frames.slice(0, 6).map(() => 'mapped'),
        'failed',
      ])
      expect(result.frames[frameKey(frames[2]!)]!.original).toMatchObject({ source: 'heavy2.ts', line: 1 })
      expect(streams).toBe(6)
      for (const row of rows) expect(small.stoppedOn(row.blobKey)).toBeUndefined()
      expect(small.stoppedOn(appMapKey)).toBeUndefined()
      // The organization's other sessions, right after: symbolicated, in the same worker.
      const next = await symbolicateSession(deps, request(orgA, 'r1'))
      expect(Object.values(next.frames).map((frame) => frame.status)).toEqual(stack.map(() => 'mapped'))
      expect(small.workerCount).toBe(1)
    } finally {
      await small.close()
    }
  })

  it('throws a storage error, so that the processing step retries, and replaces the worker left waiting', async () => {
    const failing: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      stream: () => Promise.reject(new Error('storage is down')),
    })
    const fresh = new AnalysisPool({ size: 1, idleMs: 60_000 })
    try {
      const symbolicate = createSymbolicator({
        db: database.db,
        blobs: failing,
        analysis: { pool: fresh, budget: BUDGET },
      })
      await expect(symbolicate(request(orgA, 'r1'))).rejects.toThrow('storage is down')
      expect(fresh.workerCount).toBe(0)
    } finally {
      await fresh.close()
    }
  })
})
