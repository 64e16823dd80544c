import type { AlertFilters } from '@/db/schema'
import type { AlertCandidate } from './candidates'

/**
 * Every listed filter must hold. The URL filter is a plain substring (case-insensitive) of a
 * bounded string: users write it and pages write the URL, so no pattern is ever compiled. A
 * saved search holds when it found the candidate's session (`finds`: the sessions each saved
 * search found among the event's, asked beforehand); a candidate without a session fails it.
 */
export function matchesFilters(
  filters: AlertFilters,
  candidate: AlertCandidate,
  finds: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): boolean {
  if (filters.priorities?.length && !(candidate.priority && filters.priorities.includes(candidate.priority)))
    return false
  if (filters.kinds?.length && !(candidate.kind && filters.kinds.includes(candidate.kind))) return false
  if (filters.urlContains) {
    const url = candidate.pageUrl?.slice(0, 4096).toLowerCase()
    if (!url?.includes(filters.urlContains.toLowerCase())) return false
  }
  if (filters.savedSearchId) {
    const found = finds.get(filters.savedSearchId)
    if (!(candidate.sessionId && found?.has(candidate.sessionId))) return false
  }
  return true
}

/** The start of the window `at` falls in: windows are aligned to their length since the epoch. */
export function windowStartOf(at: Date, windowMinutes: number): Date {
  const length = windowMinutes * 60_000
  return new Date(Math.floor(at.getTime() / length) * length)
}
