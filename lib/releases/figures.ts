/**
 * Exact ratios for release health (docs/releases.md#health). Counts are integers; a ratio is
 * rounded in integer arithmetic, half away from zero, so that 2 of 3 is 66.67 and never
 * 66.66999… or a value that depends on how a float happened to round.
 */

/**
 * `numerator / denominator` rounded to `decimals` places, half away from zero, for
 * non-negative integers; null when the denominator is 0.
 */
export function roundedRatio(numerator: number, denominator: number, decimals: number): number | null {
  if (
    !Number.isSafeInteger(numerator) ||
    !Number.isSafeInteger(denominator) ||
    numerator < 0 ||
    denominator < 0
  )
    throw new RangeError('roundedRatio takes non-negative integers')
  if (denominator === 0) return null
  const scale = 10n ** BigInt(decimals)
  const n = BigInt(numerator) * scale
  const d = BigInt(denominator)
  // floor(n / d + 1/2) = floor((2n + d) / 2d): half rounds up, which for non-negative values is away from zero.
  const units = (2n * n + d) / (2n * d)
  // One division of two exact integers: the nearest double to the decimal, which JSON prints as written.
  return Number(units) / Number(scale)
}

/** Percent of analysed sessions without an error, 2 decimals; null when none was analysed. */
export function crashFreePercent(analysed: number, withErrors: number): number | null {
  return roundedRatio(100 * (analysed - withErrors), analysed, 2)
}

/** A day's share of sessions, 0..1 with 4 decimals; 0 on a day without any session. */
export function dayShare(sessions: number, total: number): number {
  return roundedRatio(sessions, total, 4) ?? 0
}
