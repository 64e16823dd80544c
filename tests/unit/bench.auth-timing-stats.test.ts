import { describe, expect, it } from 'vitest'
import {
  bootstrapMedianDifference,
  erfc,
  kolmogorovSmirnov,
  mannWhitneyU,
  median,
  percentile,
  shuffle,
} from '../bench/auth-timing'

// The statistics of the invalid-key timing benchmark are written by hand (no statistics
// package is installed); these are SciPy 1.17's figures for the same samples
// (mannwhitneyu(method='asymptotic', use_continuity=True), ks_2samp), and the Numerical
// Recipes asymptotic p-value of the KS distance.

describe('Mann–Whitney U', () => {
  it('matches SciPy on separated samples', () => {
    const result = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    expect(result.u).toBe(0)
    expect(result.p).toBeCloseTo(0.012185780355344813, 6)
    expect(result.probabilityGreater).toBe(0)
  })

  it('matches SciPy with ties', () => {
    const a = [1.1, 2.2, 2.2, 3.0, 5.5, 6.1, 7.0, 7.0]
    const b = [2.2, 3.0, 4.4, 6.1, 8.0, 9.5, 9.5]
    const result = mannWhitneyU(a, b)
    expect(result.u).toBe(17)
    expect(result.p).toBeCloseTo(0.22098521466739518, 6)
  })

  it('matches SciPy on larger samples with many ties, and is symmetric', () => {
    const a = Array.from({ length: 200 }, (_, i) => i % 17)
    const b = Array.from({ length: 180 }, (_, i) => ((i * 7) % 19) + 1)
    const ab = mannWhitneyU(a, b)
    const ba = mannWhitneyU(b, a)
    expect(ab.u).toBe(14032.5)
    expect(ab.p).toBeCloseTo(0.00020250606122387482, 8)
    expect(ba.p).toBeCloseTo(ab.p, 12)
    expect(ab.u + ba.u).toBe(200 * 180)
  })

  it('finds nothing between identical samples', () => {
    const same = [3, 1, 2, 2, 5]
    expect(mannWhitneyU(same, [...same]).p).toBe(1)
  })
})

describe('Kolmogorov–Smirnov', () => {
  it('computes the distance SciPy computes, and the asymptotic p-value', () => {
    const small = kolmogorovSmirnov(
      [1.1, 2.2, 2.2, 3.0, 5.5, 6.1, 7.0, 7.0],
      [2.2, 3.0, 4.4, 6.1, 8.0, 9.5, 9.5],
    )
    expect(small.d).toBeCloseTo(0.4285714285714286, 12)
    expect(small.p).toBeCloseTo(0.38736024000540825, 6)
    const a = Array.from({ length: 200 }, (_, i) => i % 17)
    const b = Array.from({ length: 180 }, (_, i) => ((i * 7) % 19) + 1)
    const large = kolmogorovSmirnov(a, b)
    expect(large.d).toBeCloseTo(0.16111111111111112, 12)
    expect(large.p).toBeCloseTo(0.012796709107752826, 6)
    expect(kolmogorovSmirnov(a, a).d).toBe(0)
  })
})

describe('helpers', () => {
  it('erfc agrees with known values', () => {
    expect(erfc(0)).toBeCloseTo(1, 6)
    expect(erfc(1)).toBeCloseTo(0.157299207050285, 7)
    expect(erfc(-1)).toBeCloseTo(1.842700792949715, 7)
    expect(erfc(4) / 1.541725790028002e-8).toBeCloseTo(1, 5)
  })

  it('median and percentile', () => {
    expect(median([5, 1, 3])).toBe(3)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(sorted, 50)).toBe(50)
    expect(percentile(sorted, 99)).toBe(99)
    expect(percentile(sorted, 100)).toBe(100)
  })

  it('the bootstrap interval holds the difference of medians and excludes 0 for a clear shift', () => {
    const a = Array.from({ length: 400 }, (_, i) => 2 + (i % 40) / 100)
    const b = a.map((v) => v + 0.5)
    const shifted = bootstrapMedianDifference(a, b, 500, 7)
    expect(shifted.estimate).toBeCloseTo(0.5, 12)
    expect(shifted.low).toBeGreaterThan(0.4)
    expect(shifted.high).toBeLessThan(0.6)
    const same = bootstrapMedianDifference(a, [...a].reverse(), 500, 7)
    expect(same.low).toBeLessThanOrEqual(0)
    expect(same.high).toBeGreaterThanOrEqual(0)
    // Seeded: the same call gives the same interval.
    expect(bootstrapMedianDifference(a, b, 500, 7)).toEqual(shifted)
  })

  it('shuffle keeps every item', () => {
    let state = 1
    const random = () => {
      state = (state * 16807) % 2147483647
      return state / 2147483647
    }
    const items = Array.from({ length: 50 }, (_, i) => i)
    const shuffled = shuffle([...items], random)
    expect(shuffled).not.toEqual(items)
    expect([...shuffled].sort((x, y) => x - y)).toEqual(items)
  })
})
