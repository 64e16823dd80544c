/** What the player's parts share: the kinds of moments and how a replay time reads. */

export type MarkerKind = 'page' | 'click' | 'error' | 'network' | 'rage' | 'dead' | 'issue'

export interface ReplayMarker {
  /** Epoch milliseconds. */
  at: number
  label: string
  kind: MarkerKind
}

export const KIND_LABEL: Record<MarkerKind, string> = {
  page: 'Page',
  click: 'Click',
  error: 'Error',
  network: 'Request',
  rage: 'Rage click',
  dead: 'Dead click',
  issue: 'Issue',
}

export function formatOffset(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const minutes = Math.floor(seconds / 60)
  return `${minutes}:${String(seconds % 60).padStart(2, '0')}`
}

/** Index of the last entry at or before `now` (entries in time order), -1 when none is. */
export function lastAtOrBefore(entries: readonly { at: number }[], now: number): number {
  let low = 0
  let high = entries.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (entries[mid]!.at <= now) low = mid + 1
    else high = mid
  }
  return low - 1
}
