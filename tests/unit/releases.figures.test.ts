import { describe, expect, it } from 'vitest'
import { crashFreePercent, dayShare, roundedRatio } from '@/lib/releases/figures'

describe('release health ratios (docs/releases.md#health)', () => {
  it('crash-free percent is exact to 2 decimals, half away from zero', () => {
    expect(crashFreePercent(3, 1)).toBe(66.67) // 200/3 = 66.666…
    expect(crashFreePercent(3, 2)).toBe(33.33) // 100/3 = 33.333…
    expect(crashFreePercent(7, 1)).toBe(85.71) // 600/7 = 85.714…
    expect(crashFreePercent(7, 6)).toBe(14.29) // 100/7 = 14.285…
    expect(crashFreePercent(8, 1)).toBe(87.5)
    expect(crashFreePercent(5, 5)).toBe(0) // 0/n
    expect(crashFreePercent(5, 0)).toBe(100) // n/n
    expect(crashFreePercent(0, 0)).toBeNull()
    // 1 - 1/80000 = 99.99875 %: exactly half a hundredth, rounded away from zero.
    expect(crashFreePercent(80_000, 1)).toBe(100)
    // 1 - 3/80000 = 99.99625 %, again a half.
    expect(crashFreePercent(80_000, 3)).toBe(100)
    expect(crashFreePercent(80_000, 5)).toBe(99.99) // 99.99375
    expect(crashFreePercent(200_000, 1)).toBe(100) // 99.9995
    expect(crashFreePercent(2_000_000, 11)).toBe(100) // 99.99945
    expect(crashFreePercent(2_000_000, 190)).toBe(99.99) // 99.9905
  })

  it('a half is rounded away from zero, not to even', () => {
    expect(roundedRatio(1, 8, 2)).toBe(0.13) // 0.125
    expect(roundedRatio(3, 8, 2)).toBe(0.38) // 0.375
    expect(roundedRatio(1, 3, 4)).toBe(0.3333)
    expect(roundedRatio(2, 3, 4)).toBe(0.6667)
    expect(roundedRatio(1, 7, 4)).toBe(0.1429)
  })

  it('day shares are 0..1 with 4 decimals, 0 on a day without sessions', () => {
    expect(dayShare(0, 0)).toBe(0)
    expect(dayShare(0, 9)).toBe(0)
    expect(dayShare(9, 9)).toBe(1)
    expect(dayShare(1, 3)).toBe(0.3333)
    expect(dayShare(2, 3)).toBe(0.6667)
    expect(dayShare(1, 7)).toBe(0.1429)
  })

  it('refuses what is not a count', () => {
    expect(() => roundedRatio(-1, 3, 2)).toThrow(RangeError)
    expect(() => roundedRatio(1.5, 3, 2)).toThrow(RangeError)
  })
})
