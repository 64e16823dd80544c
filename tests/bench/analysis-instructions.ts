/**
 * Instructions the analyser executes per event on the benchmark's session
 * (analysis-session.ts), for comparing commits on a machine other work shares: time depends on
 * that work, the count of instructions does not. Run under callgrind:
 *
 *   npx esbuild tests/bench/analysis-instructions.ts --bundle --platform=node \
 *     --outfile=/tmp/analysis-instructions.js
 *   valgrind --tool=callgrind '--dump-before=node::ResourceUsage*' \
 *     --callgrind-out-file=/tmp/analysis.cg \
 *     node --single-threaded /tmp/analysis-instructions.js 10000 5
 *   grep '^totals:' /tmp/analysis.cg.2
 *
 * Part 2 (`analysis.cg.2`) holds exactly the counted runs: the script calls
 * `process.resourceUsage()`, which nothing else calls, right before and right after them, and
 * callgrind starts a new part before each call. The session is generated before part 2, and
 * the same runs are made once uncounted first (after a 100,000-event session, as in
 * `analysis.ts`), so the count is the analyser's steady state, not the JIT compiling it.
 * `--single-threaded` keeps garbage collection and compilation on the counted thread, so what
 * the analyser causes there is counted and no run depends on thread timing.
 *
 * It prints the findings, the trail's size and a hash of the whole result: two versions of
 * the analyser that should behave the same must print the same hash.
 */

import { createHash } from 'node:crypto'
import { createAnalyzer } from '@/lib/analysis'
import type { AnalysisResult, Analyzer, RrwebEvent } from '@/lib/analysis/types'
import { ORIGIN, session } from './analysis-session'

const BATCH = 1000

function batches(count: number): RrwebEvent[][] {
  const out: RrwebEvent[][] = []
  let batch: RrwebEvent[] = []
  for (const event of session(count)) {
    batch.push(event)
    if (batch.length === BATCH) {
      out.push(batch)
      batch = []
    }
  }
  if (batch.length > 0) out.push(batch)
  return out
}

// The loop is a function of its own: a loop that also calls finish() once per session gets
// its optimised code thrown away at that call every run, and recompiling it would be counted.
function pushAll(analyzer: Analyzer, events: RrwebEvent[][]): void {
  for (const batch of events) for (const event of batch) analyzer.push(event)
}

function analyse(events: RrwebEvent[][]): AnalysisResult {
  const analyzer = createAnalyzer({ ignoreRequestUrls: [`${ORIGIN}/ingest`] })
  pushAll(analyzer, events)
  return analyzer.finish()
}

function main(): void {
  const count = Number(process.argv[2] ?? 10_000)
  const runs = Number(process.argv[3] ?? 1)
  const warmUps = Number(process.argv[4] ?? runs)
  if (![count, runs, warmUps].every((n) => Number.isInteger(n) && n > 0))
    throw new Error('usage: analysis-instructions.js <events> [runs] [uncounted runs first]')
  analyse(batches(100_000))
  const events = batches(count)
  for (let i = 0; i < warmUps; i++) analyse(events)
  let result: AnalysisResult | null = null
  process.resourceUsage()
  for (let i = 0; i < runs; i++) result = analyse(events)
  process.resourceUsage()
  const findings: Record<string, number> = {}
  for (const finding of result!.findings) findings[finding.kind] = (findings[finding.kind] ?? 0) + 1
  const trail = result!.trail
  console.log(
    JSON.stringify({
      events: count,
      runs,
      findings,
      trail: trail ? { entries: trail.entries.length, truncated: trail.truncated } : null,
      resultSha256: createHash('sha256').update(JSON.stringify(result)).digest('hex'),
    }),
  )
}

main()
