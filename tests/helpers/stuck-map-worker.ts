// A test-only analysis worker entry: the real worker, except that parsing a source map spins
// the thread for a minute, as a hostile map would. Only the pool's time budget ends it.
import { parentPort } from 'node:worker_threads'
import { serveAnalysis } from '@/lib/analysis-worker/serve'

if (!parentPort) throw new Error('runs in a worker thread')
serveAnalysis(parentPort, {
  beforeMapParse() {
    const until = Date.now() + 60_000
    while (Date.now() < until) {
      // Spinning, like a parser on a hostile map.
    }
  },
})
