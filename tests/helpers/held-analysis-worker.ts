// A test-only analysis worker entry: the real worker, held before each batch until the test
// releases it. The hold blocks the worker thread synchronously (Atomics.wait), as a
// pathological recording would; if analysis ran on the server thread, nothing would answer.
import { parentPort, workerData } from 'node:worker_threads'
import { serveAnalysis } from '@/lib/analysis-worker/serve'
import { HELD, RELEASED } from './held-analysis'

const flags = new Int32Array((workerData as { control: SharedArrayBuffer }).control)
if (!parentPort) throw new Error('runs in a worker thread')
serveAnalysis(parentPort, {
  beforeBatch() {
    Atomics.add(flags, HELD, 1)
    Atomics.wait(flags, RELEASED, 0)
  },
})
