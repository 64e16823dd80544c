/**
 * How an organization's releases are ordered (docs/releases.md#order): by semver when every
 * release parses as semver, otherwise by when each was deployed (as CI stated with
 * POST /api/v1/releases) or else first seen, then by name. "Later" decides whether an
 * occurrence after a fix reopens the issue, so the rule is one function used everywhere.
 */
import semver from 'semver'

export type ReleaseOrderMode = 'semver' | 'seen'

export interface OrderedRelease {
  version: string
  semver: boolean
  firstSeenAt: Date
  deployedAt: Date | null
}

/**
 * Whether a release name is semver (`1.2.3`, `v1.2.3`, `2.0.0-rc.1+build.5`). Names are at most
 * MAX_RELEASE_LENGTH characters, checked before anything parses them, and semver's own patterns
 * have no super-linear backtracking since 7.5.2 (CVE-2022-25883); whitespace around a name makes
 * it another release, so it is not trimmed into one.
 */
export function isSemverVersion(version: string): boolean {
  return version === version.trim() && semver.parse(version) !== null
}

/** The order of a set of releases: semver only when all of them are semver. */
export function orderMode(all: readonly Pick<OrderedRelease, 'semver'>[]): ReleaseOrderMode {
  return all.length > 0 && all.every((release) => release.semver) ? 'semver' : 'seen'
}

/** The moment a release takes its place by when not ordered by semver. */
export function placedAt(release: Pick<OrderedRelease, 'firstSeenAt' | 'deployedAt'>): Date {
  return release.deployedAt ?? release.firstSeenAt
}

/** Negative when `a` is earlier than `b`, zero when they hold the same place, positive when later. */
export function compareOrdered(a: OrderedRelease, b: OrderedRelease, mode: ReleaseOrderMode): number {
  if (a.version === b.version) return 0
  if (mode === 'semver') {
    const bySemver = semver.compare(a.version, b.version)
    if (bySemver !== 0) return bySemver
  } else {
    const byTime = placedAt(a).getTime() - placedAt(b).getTime()
    if (byTime !== 0) return byTime
  }
  return a.version < b.version ? -1 : 1
}

/** The releases from earliest to latest. */
export function sortReleases<R extends OrderedRelease>(all: readonly R[], mode = orderMode(all)): R[] {
  return [...all].sort((a, b) => compareOrdered(a, b, mode))
}
