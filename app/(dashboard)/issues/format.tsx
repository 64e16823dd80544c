import type { IssuePriority, IssueStatus } from '@/db/schema'

// The dashboard's one date style, where issue pages have always looked for it.
export { exactTime } from '../_components/time-format'
export { When } from '../_components/when'

export const PRIORITY_BADGE: Record<IssuePriority, string> = {
  critical: 'badge badge-critical',
  high: 'badge badge-high',
  medium: 'badge badge-medium',
  low: 'badge badge-low',
}

export const STATUS_BADGE: Record<IssueStatus, string> = {
  unresolved: 'badge badge-off',
  ticket_created: 'badge badge-medium',
  transient: 'badge',
  resolved: 'badge badge-ok',
}

/** Milliseconds into a session as the player shows them: 1:05.3. */
export function offset(ms: number): string {
  const totalSeconds = Math.max(0, ms) / 1000
  const minutes = Math.floor(totalSeconds / 60)
  const seconds = (totalSeconds - minutes * 60).toFixed(1).padStart(4, '0')
  return `${minutes}:${seconds}`
}

/** Only web addresses become links: a stored value is never trusted to be one. */
export function webHref(url: string | null): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined
}
