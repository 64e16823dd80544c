/**
 * BENCH_SECONDS: how long each measured phase runs, for every benchmark that has timed phases.
 * The default is the benchmark's own (the figures in docs/performance come from it); a short
 * value only proves the benchmark still runs end to end, its figures are not comparable.
 */
export function phaseSeconds(fallback: number): number {
  const raw = process.env.BENCH_SECONDS
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`BENCH_SECONDS must be a positive number, not ${raw}`)
  return value
}
