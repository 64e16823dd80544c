import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { LRUCache } from 'lru-cache'
import type { SymbolicatedFrame } from '../analysis/frames'
import type { AnalysisResult, AnalyzerOptions } from '../analysis/types'
import type { FrameLookup } from '../symbolication/symbolicate-frames'
import type { CheckedMap, FromWorker, ToWorker } from './protocol'

/** What one session's analysis may take: worker time and heap. */
export interface AnalysisBudget {
  timeoutMs: number
  memoryMb: number
}

export type StopCause = 'time' | 'memory' | 'crash'

/**
 * The analysis of one session was stopped: it ran over its time or memory budget, or its
 * worker died. The same content would do the same again, so this is no reason to retry.
 */
export class AnalysisStopped extends Error {
  override name = 'AnalysisStopped'

  constructor(
    readonly stopCause: StopCause,
    readonly budget: AnalysisBudget,
    options?: { cause?: unknown },
  ) {
    super(`analysis stopped (${stopCause})`, options)
  }
}

/**
 * A symbolication stopped while its worker was parsing one map (`blobKey`): over the budget,
 * or the worker died. `alone`: the map was the first its worker parsed, in a worker started
 * for this call, so nothing else held the worker's memory or time; only then is the map to
 * blame, and the pool remembers it (AnalysisPool.stoppedOn). Otherwise the maps before it may
 * have spent the budget: the caller retries it alone (`fresh`) and the others without it.
 */
export class MapStopped extends AnalysisStopped {
  override name = 'MapStopped'

  constructor(
    readonly blobKey: string,
    readonly alone: boolean,
    stopped: AnalysisStopped,
  ) {
    super(stopped.stopCause, stopped.budget, { cause: stopped.cause })
  }
}

/**
 * Maps a worker was stopped on alone, remembered on this thread: the worker's own memory of
 * failed maps goes with the worker. Bounded, and for a while only: a map may have been
 * unlucky (a busy machine).
 */
const STOPPED_MAPS = { max: 500, ttlMs: 10 * 60_000 }

/** The analyser reported an error (unparsable batch, analyser bug); the worker stays usable. */
export class AnalysisFailed extends Error {
  override name = 'AnalysisFailed'
}

export interface StoredBatch {
  sequence: number
  bytes: Uint8Array
}

/** Reads a source map's JSON from storage; null when storage had none under the key. */
export type ReadMap = (blobKey: string) => Promise<Uint8Array | null>

/** One map of an upload: the relative path it was sent as, and its JSON. */
export interface UploadedMap {
  path: string
  bytes: Uint8Array
}

/** An uploaded map after its check: the same bytes (moved back from the worker) and what was found. */
export interface CheckedUpload {
  path: string
  bytes: Uint8Array
  check: CheckedMap
}

export type SpawnWorker = (options: WorkerOptions) => Worker

export interface AnalysisPoolOptions {
  /** Workers at most, busy or idle; more analyses at once wait for one. */
  size: number
  /** An idle worker exits after this long. */
  idleMs: number
  /** Starts a worker; the bundled analysis worker by default (tests pass their own entry). */
  spawn?: SpawnWorker
}

interface Slot {
  worker: Worker
  memoryMb: number
  busy: boolean
  /** Released at least once: it has served a call and may hold that call's cached maps. */
  used: boolean
  idleTimer?: ReturnType<typeof setTimeout>
  /** The last 'error' the worker emitted: it tells an out-of-memory exit from a crash. */
  error?: unknown
}

/**
 * A worker started from TypeScript source (vitest, `tsx`): a plain worker cannot load a .ts
 * file, and on Node 20 a worker does not take the parent's `--import tsx` loader either, so
 * the worker registers tsx itself before importing the entry.
 */
export function typeScriptWorker(entry: string, options: WorkerOptions): Worker {
  const href = JSON.stringify(new URL(`file://${entry}`).href)
  const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${href}) })`
  return new Worker(code, { ...options, eval: true })
}

/**
 * The analysis worker. Under Next, Turbopack bundles the entry into a worker chunk from this
 * very expression, and only when the options are an object literal: with a plain variable it
 * copies worker.ts as a file that Node cannot run. Elsewhere (vitest, tsx) it is the source.
 */
export function spawnAnalysisWorker(options: WorkerOptions): Worker {
  if (process.env.NEXT_RUNTIME) return new Worker(new URL('./worker.ts', import.meta.url), { ...options })
  return typeScriptWorker(path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker.ts'), options)
}

/**
 * A worker that fails to start says nothing about the session: its analysis fails with an
 * ordinary error and is retried, unlike one stopped over its budget.
 */
const WORKER_START_TIMEOUT_MS = 60_000

function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
}

/**
 * The bytes as an ArrayBuffer of their own, to transfer: a view into a larger buffer is copied
 * (with the Uint8Array constructor: a Buffer's `slice` is a view, and transferring a small
 * Buffer's backing store would detach Node's shared allocation pool).
 */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength)
    return buffer
  return new Uint8Array(bytes).buffer as ArrayBuffer
}

/** Time the worker spent on this session's messages; waiting for storage does not count. */
class BusyClock {
  private usedMs = 0

  constructor(private readonly limitMs: number) {}

  get remainingMs(): number {
    return Math.max(0, this.limitMs - this.usedMs)
  }

  add(ms: number): void {
    this.usedMs += ms
  }
}

/**
 * A few warm worker threads that analyse sessions off the server thread. The server thread
 * only reads batches and hands their bytes over; a worker that runs over its budget or dies
 * is terminated and replaced by a fresh one on the next request.
 */
export class AnalysisPool {
  private readonly slots: Slot[] = []
  private readonly waiting: (() => void)[] = []
  private readonly spawn: SpawnWorker
  private readonly stoppedMaps = new LRUCache<string, StopCause>({
    max: STOPPED_MAPS.max,
    ttl: STOPPED_MAPS.ttlMs,
  })

  constructor(private readonly options: AnalysisPoolOptions) {
    this.spawn = options.spawn ?? spawnAnalysisWorker
  }

  /**
   * Why a fresh worker was stopped while parsing the map under `blobKey` alone in the last 10
   * minutes; undefined when it was not. Its frames are better failed than sent to a worker
   * again.
   */
  stoppedOn(blobKey: string): StopCause | undefined {
    return this.stoppedMaps.get(blobKey)
  }

  /** Workers alive now (busy or idle). */
  get workerCount(): number {
    return this.slots.length
  }

  /**
   * Analyses a session's batches, in the order given, within `budget`. Throws AnalysisStopped
   * when the budget ran out or the worker died, AnalysisFailed when the analyser reported an
   * error, and whatever reading a batch threw.
   */
  async analyse(
    batches: AsyncIterable<StoredBatch>,
    analyzerOptions: AnalyzerOptions,
    budget: AnalysisBudget,
  ): Promise<AnalysisResult> {
    const slot = await this.acquire(budget.memoryMb)
    const clock = new BusyClock(budget.timeoutMs)
    let reusable = false
    try {
      this.post(slot, { type: 'begin', options: analyzerOptions })
      const iterator = batches[Symbol.asyncIterator]()
      let next = iterator.next()
      for (;;) {
        const item = await next
        if (item.done) break
        // The next batch is read while the worker parses this one: two batches in memory at most.
        next = iterator.next()
        next.catch(() => undefined)
        const bytes = ownBuffer(item.value.bytes)
        const reply = await this.request(
          slot,
          { type: 'batch', sequence: item.value.sequence, bytes },
          [bytes],
          clock,
          budget,
        )
        if (reply.type === 'failed') {
          reusable = true
          throw new AnalysisFailed(reply.message.slice(0, 500))
        }
      }
      const reply = await this.request(slot, { type: 'finish' }, [], clock, budget)
      reusable = true
      if (reply.type !== 'result')
        throw new AnalysisFailed(reply.type === 'failed' ? reply.message.slice(0, 500) : 'unexpected reply')
      return reply.result
    } finally {
      // A worker stopped mid-batch (over budget, or a read failed meanwhile) holds half a session.
      if (reusable) this.release(slot)
      else this.retire(slot)
    }
  }

  /**
   * Resolves stack frames through source maps in a worker (docs/source-maps.md), within
   * `budget`: the worker names the maps it has not cached and `readMap` reads each here when
   * its turn comes (storage time is not counted); they are sent one per message, and the
   * worker drops each once its frames are resolved. `fresh`: in a newly started worker, with
   * nothing cached (to try a map alone). Throws as `analyse` does: AnalysisStopped when the
   * worker ran over the budget or died, MapStopped when that happened while it parsed a map
   * (remembered, see `stoppedOn`, only when the map was alone), AnalysisFailed when it
   * reported an error.
   */
  async symbolicate(
    lookups: FrameLookup[],
    readMap: ReadMap,
    budget: AnalysisBudget,
    options: { fresh?: boolean } = {},
  ): Promise<Record<string, SymbolicatedFrame>> {
    const slot = await this.acquire(budget.memoryMb, options.fresh)
    const clock = new BusyClock(budget.timeoutMs)
    let reusable = false
    try {
      let reply = await this.request(slot, { type: 'symbolicate', lookups }, [], clock, budget)
      if (reply.type === 'maps-needed') {
        let first = !slot.used
        for (const blobKey of reply.blobKeys) {
          const bytes = await readMap(blobKey)
          const buffer = bytes ? ownBuffer(bytes) : null
          const alone = first
          first = false
          try {
            reply = await this.request(
              slot,
              { type: 'map', blobKey, bytes: buffer },
              buffer ? [buffer] : [],
              clock,
              budget,
            )
          } catch (error) {
            if (!(error instanceof AnalysisStopped)) throw error
            if (alone) this.stoppedMaps.set(blobKey, error.stopCause)
            throw new MapStopped(blobKey, alone, error)
          }
          if (reply.type !== 'map-loaded') break
        }
        if (reply.type === 'map-loaded' || reply.type === 'maps-needed')
          reply = await this.request(slot, { type: 'maps', maps: [] }, [], clock, budget)
      }
      if (reply.type === 'failed') {
        reusable = true
        throw new AnalysisFailed(reply.message.slice(0, 500))
      }
      if (reply.type !== 'symbolicated') throw new AnalysisFailed('unexpected reply')
      reusable = true
      return reply.frames
    } finally {
      // A worker left waiting for maps (reading them failed) or stopped mid-parse is replaced.
      if (reusable) this.release(slot)
      else this.retire(slot)
    }
  }

  /**
   * Checks an upload's source maps in a worker (docs/source-maps.md, "Where the upload's work
   * runs"), one at a time and in order, all of them within `budget`: their JSON is parsed and
   * checked and, when valid, hashed there, never on this thread. Each map's bytes are moved
   * to the worker and back, not copied: the `bytes` given are empty afterwards, and those
   * yielded are the same memory. Stopping early (the caller refuses the upload at the first
   * bad map) frees the worker. Throws AnalysisStopped when the worker ran over the budget on a
   * map (it is replaced) or died, AnalysisFailed when it reported an error.
   */
  async *checkMaps(maps: UploadedMap[], budget: AnalysisBudget): AsyncGenerator<CheckedUpload> {
    const slot = await this.acquire(budget.memoryMb)
    const clock = new BusyClock(budget.timeoutMs)
    let reusable = true
    try {
      for (const map of maps) {
        const bytes = ownBuffer(map.bytes)
        reusable = false
        const reply = await this.request(
          slot,
          { type: 'check-map', path: map.path, bytes },
          [bytes],
          clock,
          budget,
        )
        reusable = true
        if (reply.type === 'failed') throw new AnalysisFailed(reply.message.slice(0, 500))
        if (reply.type !== 'map-checked') throw new AnalysisFailed('unexpected reply')
        yield { path: map.path, bytes: new Uint8Array(reply.bytes), check: reply.check }
      }
    } finally {
      // Only a worker stopped mid-map is replaced; one that answered is between messages.
      if (reusable) this.release(slot)
      else this.retire(slot)
    }
  }

  /** Terminates every worker; analyses running now end with AnalysisStopped('crash'). */
  async close(): Promise<void> {
    await Promise.all([...this.slots].map((slot) => this.retire(slot)))
  }

  /** A worker for one call: an idle one with this heap limit, or (`fresh`, or none idle) a new one. */
  private async acquire(memoryMb: number, fresh = false): Promise<Slot> {
    for (;;) {
      const idle = fresh ? undefined : this.slots.find((slot) => !slot.busy && slot.memoryMb === memoryMb)
      if (idle) {
        clearTimeout(idle.idleTimer)
        idle.busy = true
        idle.worker.ref()
        return idle
      }
      if (this.slots.length < this.options.size) return this.start(memoryMb)
      // An idle worker with another heap limit (or any, for a fresh one) makes room.
      const other = this.slots.find((slot) => !slot.busy)
      if (other) {
        void this.retire(other)
        continue
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    }
  }

  /**
   * A new worker, once it has loaded the analyser: starting one (seconds from TypeScript source
   * on a busy machine) is not counted against the session that happens to need it.
   */
  private async start(memoryMb: number): Promise<Slot> {
    const worker = this.spawn({
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(memoryMb / 8))),
      },
    })
    const slot: Slot = { worker, memoryMb, busy: true, used: false }
    // Always listened to: an unheard 'error' would be thrown on the server thread.
    worker.on('error', (error) => {
      slot.error = error
    })
    worker.once('exit', () => this.forget(slot))
    this.slots.push(slot)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        settle()
        reject(new Error(`The analysis worker did not start within ${WORKER_START_TIMEOUT_MS / 1000} s`))
        void this.retire(slot)
      }, WORKER_START_TIMEOUT_MS)
      const onReady = (message: FromWorker) => {
        if (message.type !== 'ready') return
        settle()
        resolve()
      }
      const onExit = () => {
        settle()
        reject(new Error('The analysis worker exited while starting', { cause: slot.error }))
      }
      const settle = () => {
        clearTimeout(timer)
        worker.off('message', onReady)
        worker.off('exit', onExit)
      }
      worker.on('message', onReady)
      worker.once('exit', onExit)
    })
    return slot
  }

  private release(slot: Slot): void {
    if (!this.slots.includes(slot)) return
    slot.busy = false
    slot.used = true
    // An idle worker does not keep the process (a CLI command, a test) alive.
    slot.worker.unref()
    slot.idleTimer = setTimeout(() => void this.retire(slot), this.options.idleMs)
    slot.idleTimer.unref()
    this.waiting.shift()?.()
  }

  private async retire(slot: Slot): Promise<void> {
    this.forget(slot)
    await slot.worker.terminate()
  }

  private forget(slot: Slot): void {
    clearTimeout(slot.idleTimer)
    const index = this.slots.indexOf(slot)
    if (index === -1) return
    this.slots.splice(index, 1)
    this.waiting.shift()?.()
  }

  private post(slot: Slot, message: ToWorker, transfer: ArrayBuffer[] = []): void {
    slot.worker.postMessage(message, transfer)
  }

  /** Sends one message and waits for the worker's answer, within what is left of the budget. */
  private request(
    slot: Slot,
    message: ToWorker,
    transfer: ArrayBuffer[],
    clock: BusyClock,
    budget: AnalysisBudget,
  ): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      const startedAt = performance.now()
      const done = () => {
        clearTimeout(timer)
        slot.worker.off('message', onMessage)
        slot.worker.off('exit', onExit)
        clock.add(performance.now() - startedAt)
      }
      const onMessage = (reply: FromWorker) => {
        done()
        resolve(reply)
      }
      const onExit = () => {
        done()
        const cause = isOutOfMemory(slot.error) ? 'memory' : 'crash'
        reject(new AnalysisStopped(cause, budget, { cause: slot.error }))
      }
      const timer = setTimeout(() => {
        done()
        reject(new AnalysisStopped('time', budget))
      }, clock.remainingMs)
      slot.worker.on('message', onMessage)
      slot.worker.once('exit', onExit)
      this.post(slot, message, transfer)
    })
  }
}
