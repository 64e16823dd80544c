// Preloaded into the soak's server (`node --import`): every 2 s it writes the V8 heap figures
// to the file HEAP_PROBE_FILE names, since the heap cannot be read from outside the process.
// Written aside and renamed, so a reader never sees half a line. Nothing is added to the app.
//
// `heapUsed` at a random moment is a saw-tooth of garbage; what shows a leak is the heap
// still in use right after a full (mark-compact) collection, taken from the GC's own
// performance entries rather than by forcing collections that would disturb the latencies.
import { renameSync, writeFileSync } from 'node:fs'
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

// Main thread only: `--import` runs in every worker thread too (the analysis workers), whose
// own small heaps and GC counts overwrote the server's figures in the same file.
const file = isMainThread ? process.env.HEAP_PROBE_FILE : undefined
if (file) {
  let liveAfterMajorGc = null
  let majorGcs = 0
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        majorGcs++
        liveAfterMajorGc = process.memoryUsage().heapUsed
      }
  }).observe({ entryTypes: ['gc'] })
  // How long the event loop was held up (a stall delays every request behind it): the worst
  // of the last 10 s, so that a reader every 10 s misses none.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  const recentMaxima = []
  const write = () => {
    recentMaxima.push(loopDelay.max / 1e6)
    if (recentMaxima.length > 5) recentMaxima.shift()
    loopDelay.reset()
    const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
    const figures = {
      at: Date.now(),
      heapUsed,
      heapTotal,
      external,
      arrayBuffers,
      liveAfterMajorGc,
      majorGcs,
      loopDelayMaxMs: Math.max(0, ...recentMaxima),
    }
    writeFileSync(`${file}.tmp`, JSON.stringify(figures))
    renameSync(`${file}.tmp`, file)
  }
  write()
  setInterval(write, 2000).unref()
}
