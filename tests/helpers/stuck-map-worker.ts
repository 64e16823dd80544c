// A test-only analysis worker entry: the real worker, except that parsing a source map spins
// the thread for a minute, as a hostile map would. Only the pool's time budget ends it. With
// `workerData.stuckOn` (a blob key or path), only that map spins; the others parse as usual.
// With `workerData.afterFirst`, only maps after this worker's first spin: an innocent map
// whose budget the maps before it spent.
import { parentPort, workerData } from 'node:worker_threads'
import { serveAnalysis } from '@/lib/analysis-worker/serve'

if (!parentPort) throw new Error('runs in a worker thread')
const { stuckOn, afterFirst } = (workerData ?? {}) as { stuckOn?: string; afterFirst?: boolean }
let parsed = 0
serveAnalysis(parentPort, {
  beforeMapParse(name) {
    parsed++
    if (afterFirst && parsed === 1) return
    if (stuckOn !== undefined && name !== stuckOn) return
    const until = Date.now() + 60_000
    while (Date.now() < until) {
      // Spinning, like a parser on a hostile map.
    }
  },
})
