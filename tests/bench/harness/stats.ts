/** The figures every benchmark reports latencies in: exact milliseconds, rounded for print. */

export interface Latency {
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/** The nearest-rank percentile of an ascending list (0 for none). */
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export function summarize(latencies: number[]): Latency {
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    p50: round(percentile(sorted, 50), 2),
    p90: round(percentile(sorted, 90), 2),
    p99: round(percentile(sorted, 99), 2),
    max: round(sorted[sorted.length - 1] ?? 0, 2),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length), 2),
  }
}
