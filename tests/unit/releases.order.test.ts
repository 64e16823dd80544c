import { describe, expect, it } from 'vitest'
import { isSemverVersion, type OrderedRelease, orderMode, sortReleases } from '@/lib/releases/order'

/** The order rule (docs/releases.md#order) on plain release rows. */

const at = (minutes: number) => new Date(Date.UTC(2026, 4, 1, 12, minutes))
function release(version: string, firstSeen: number, deployed?: number): OrderedRelease {
  return {
    version,
    semver: isSemverVersion(version),
    firstSeenAt: at(firstSeen),
    deployedAt: deployed === undefined ? null : at(deployed),
  }
}
const versions = (all: OrderedRelease[]) => sortReleases(all).map((r) => r.version)

describe('isSemverVersion', () => {
  it('takes semver with or without a v, with prerelease and build', () => {
    for (const v of ['1.2.3', 'v1.2.3', '2.0.0-rc.1', '2.0.0-rc.1+build.5', '0.0.1'])
      expect(isSemverVersion(v), v).toBe(true)
    for (const v of ['1.2', 'abc123', 'main-4f2a', ' 1.2.3', '1.2.3 ', '', '1.2.3.4', '01.2.3'])
      expect(isSemverVersion(v), v).toBe(false)
  })
})

describe('release order', () => {
  it('is semver when every release is semver: prereleases before their release, v-prefix ignored', () => {
    const all = [
      release('1.10.0', 0),
      release('2.0.0', 1),
      release('v1.9.0', 2),
      release('1.2.0', 3),
      release('2.0.0-alpha', 4),
      release('1.2.0-rc.1', 5),
    ]
    expect(orderMode(all)).toBe('semver')
    // First seen plays no part: 1.2.0-rc.1 was seen last.
    expect(versions(all)).toEqual(['1.2.0-rc.1', '1.2.0', 'v1.9.0', '1.10.0', '2.0.0-alpha', '2.0.0'])
  })

  it('orders names semver calls equal (build metadata, v-prefix) by name', () => {
    expect(versions([release('1.0.0+b', 0), release('1.0.0+a', 1)])).toEqual(['1.0.0+a', '1.0.0+b'])
    expect(versions([release('v1.0.0', 0), release('1.0.0', 1)])).toEqual(['1.0.0', 'v1.0.0'])
  })

  it('is by first seen when not every release is semver, not by name', () => {
    const all = [release('zeta-build', 0), release('alpha-build', 10), release('mid-build', 5)]
    expect(orderMode(all)).toBe('seen')
    expect(versions(all)).toEqual(['zeta-build', 'mid-build', 'alpha-build'])
  })

  it('takes the deploy time CI stated over first seen', () => {
    // "early" was seen first but CI says it was deployed after "late" was first seen.
    const all = [release('early', 0, 20), release('late', 10)]
    expect(versions(all)).toEqual(['late', 'early'])
    // And a deploy time before another's first sight moves it back.
    expect(versions([release('a', 30, 1), release('b', 10)])).toEqual(['a', 'b'])
  })

  it('orders releases placed at the same moment by name', () => {
    expect(versions([release('b', 5), release('a', 0, 5)])).toEqual(['a', 'b'])
  })

  it('falls back to seen order when semver and other names mix, semver ones included', () => {
    const all = [release('2.0.0', 0), release('hotfix-7', 5), release('1.0.0', 10)]
    expect(orderMode(all)).toBe('seen')
    expect(versions(all)).toEqual(['2.0.0', 'hotfix-7', '1.0.0'])
  })

  it('an organization without releases orders by seen', () => {
    expect(orderMode([])).toBe('seen')
    expect(sortReleases([])).toEqual([])
  })
})
