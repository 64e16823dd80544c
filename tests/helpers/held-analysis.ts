import path from 'node:path'
import { AnalysisPool, typeScriptWorker } from '@/lib/analysis-worker/pool'

// Slots of the shared control array: batches the worker started holding, and the release flag.
export const HELD = 0
export const RELEASED = 1

/**
 * A pool of one analysis worker that stops before every batch until `release()`; `held()`
 * answers how many batches it has stopped at so far (the test's view of the worker's progress).
 */
export function heldAnalysisPool() {
  const control = new SharedArrayBuffer(8)
  const flags = new Int32Array(control)
  const entry = path.join(process.cwd(), 'tests/helpers/held-analysis-worker.ts')
  const pool = new AnalysisPool({
    size: 1,
    idleMs: 60_000,
    spawn: (options) => typeScriptWorker(entry, { ...options, workerData: { control } }),
  })
  return {
    pool,
    held: () => Atomics.load(flags, HELD),
    release: () => {
      Atomics.store(flags, RELEASED, 1)
      Atomics.notify(flags, RELEASED)
    },
  }
}
