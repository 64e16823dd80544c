import type { ReleaseOrderMode } from '@/lib/releases/order'

/** The order rule in words, named above every list of releases (docs/releases.md#order). */
export const ORDER_LABEL: Record<ReleaseOrderMode, { title: string; detail: string }> = {
  semver: {
    title: 'Ordered by semver',
    detail: 'Every release name is a semantic version, so the highest version is the latest.',
  },
  seen: {
    title: 'Ordered by deploy or first-seen time',
    detail:
      'Not every release name is a semantic version, so a release takes its place by the deploy time CI stated, or else by when its first session was recorded.',
  },
}

/** "98.5%" as the API gives it (two decimals at most); no sessions means no figure, not 100%. */
export function crashFree(percent: number | null): string {
  return percent === null ? '–' : `${percent}%`
}

/** "3 sessions", "1 session". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

/** A release's page, its version encoded as one path segment (names may hold `/`, `#`, spaces). */
export function releaseHref(version: string): string {
  return `/releases/${encodeURIComponent(version)}`
}

/**
 * The version a page address names: Next hands page params over still percent-encoded. A
 * malformed escape (a hand-typed `%zz`) names no release.
 */
export function versionFromParam(raw: string): string | null {
  try {
    return decodeURIComponent(raw)
  } catch {
    return null
  }
}
