/**
 * Analyser throughput and memory on synthetic sessions of 10,000 and 1,000,000 events, generated
 * lazily and streamed through one analyser on one core — the whole session is never held.
 * Goal: ≥ 200,000 events/s and a retained heap that does not grow with session length.
 *
 *   npm run bench:analysis
 */

import { cpus, loadavg } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createAnalyzer } from '@/lib/analysis'
import type { RrwebEvent } from '@/lib/analysis/types'
import { ORIGIN, session } from './analysis-session'

setFlagsFromString('--expose-gc')
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void

interface Run {
  events: number
  /** Wall-clock seconds inside analyser.push/finish only. */
  analyserSeconds: number
  /**
   * CPU seconds of this process inside push/finish: on a busy machine wall time also counts
   * the time other processes held the core, CPU time does not.
   */
  analyserCpuSeconds: number
  /** Seconds including generating the events. */
  totalSeconds: number
  peakHeapMb: number
  retainedHeapMb: number[]
  findings: Record<string, number>
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
const BATCH = 1000

/** Events are generated a batch at a time, as ingest hands them over. */
function nextBatch(source: Iterator<RrwebEvent>, batch: RrwebEvent[]): void {
  batch.length = 0
  while (batch.length < BATCH) {
    const next = source.next()
    if (next.done) return
    batch.push(next.value)
  }
}

/**
 * Only the pushes are timed: the generator is slower than the analyser and would hide it.
 * `retainedEvery` > 0 measures memory: a forced GC first and at each step. Timed runs (0) skip
 * it, because a forced GC also shrinks the young generation and the next seconds then pay for
 * extra scavenges that a running service does not.
 */
function run(count: number, retainedEvery: number): Run {
  if (retainedEvery > 0) gc()
  const baseline = process.memoryUsage().heapUsed
  let peak = 0
  const retained: number[] = []
  const analyzer = createAnalyzer({ ignoreRequestUrls: [`${ORIGIN}/ingest`] })
  const source = session(count)
  const batch: RrwebEvent[] = []
  let analyserMs = 0
  let analyserCpu = 0
  let n = 0
  const start = performance.now()
  for (;;) {
    nextBatch(source, batch)
    if (batch.length === 0) break
    const pushStart = performance.now()
    const cpuStart = process.cpuUsage()
    for (const event of batch) analyzer.push(event)
    const cpu = process.cpuUsage(cpuStart)
    analyserMs += performance.now() - pushStart
    analyserCpu += cpu.user + cpu.system
    const before = n
    n += batch.length
    peak = Math.max(peak, process.memoryUsage().heapUsed - baseline)
    // Forced collections show what the analyser keeps, apart from garbage not yet collected.
    if (retainedEvery > 0 && Math.floor(n / retainedEvery) > Math.floor(before / retainedEvery)) {
      gc()
      retained.push(mb(process.memoryUsage().heapUsed - baseline))
    }
  }
  const finishStart = performance.now()
  const finishCpu = process.cpuUsage()
  const result = analyzer.finish()
  const cpu = process.cpuUsage(finishCpu)
  analyserMs += performance.now() - finishStart
  analyserCpu += cpu.user + cpu.system
  const findings: Record<string, number> = {}
  for (const finding of result.findings) findings[finding.kind] = (findings[finding.kind] ?? 0) + 1
  return {
    events: n,
    analyserSeconds: analyserMs / 1000,
    analyserCpuSeconds: analyserCpu / 1e6,
    totalSeconds: (performance.now() - start) / 1000,
    peakHeapMb: mb(peak),
    retainedHeapMb: retained,
    findings,
  }
}

const rate = (events: number, seconds: number) => Math.round(events / seconds).toLocaleString('en')

function main(): void {
  const load = loadavg()[0]?.toFixed(1)
  console.log(
    `node ${process.version}, one core, gc ${typeof gc === 'function' ? 'exposed' : 'unavailable'}, load average ${load} on ${cpus().length} cores`,
  )
  // Warm-up: let the JIT settle before anything is timed.
  run(100_000, 0)
  for (const count of [10_000, 1_000_000]) {
    // Short runs are timed a few times: one GC pause would otherwise decide the figure.
    const runs = Array.from({ length: count < 100_000 ? 7 : 1 }, () => run(count, 0))
    const timed = runs.sort((a, b) => a.analyserCpuSeconds - b.analyserCpuSeconds)[
      Math.floor(runs.length / 2)
    ]!
    const retained = run(count, count / 10)
    console.log(
      [
        `${count.toLocaleString('en')} events${runs.length > 1 ? ` (median of ${runs.length} runs)` : ''}:`,
        `  analyser (CPU)   ${rate(timed.events, timed.analyserCpuSeconds)} events/s (${timed.analyserCpuSeconds.toFixed(3)} s of CPU)`,
        `  analyser (wall)  ${rate(timed.events, timed.analyserSeconds)} events/s (${timed.analyserSeconds.toFixed(3)} s)`,
        `  with generation  ${rate(timed.events, timed.totalSeconds)} events/s (${timed.totalSeconds.toFixed(3)} s)`,
        `  peak heap        ${retained.peakHeapMb} MB above the post-GC baseline (sampled per batch, garbage included)`,
        `  retained heap    ${retained.retainedHeapMb.join(', ')} MB after a forced GC at each tenth`,
        `  findings         ${JSON.stringify(timed.findings)}`,
      ].join('\n'),
    )
  }
}

main()
