import type { IssuePriority, IssueStatus } from '@/db/schema'

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

/** Exact times are shown in UTC to the second, the same for every viewer. */
export function exactTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

const UNITS: [limit: number, size: number, unit: string][] = [
  [60, 1, 's'],
  [3600, 60, 'min'],
  [86_400, 3600, 'h'],
  [30 * 86_400, 86_400, 'd'],
]

/** "5 min ago", "3 d ago"; older than a month, the date itself. */
export function relativeTime(date: Date, now = Date.now()): string {
  const seconds = Math.round((now - date.getTime()) / 1000)
  if (seconds < 0) return exactTime(date).slice(0, 16)
  if (seconds < 10) return 'just now'
  for (const [limit, size, unit] of UNITS)
    if (seconds < limit) return `${Math.floor(seconds / size)} ${unit} ago`
  return date.toISOString().slice(0, 10)
}

/** A time people read relatively, with the exact moment on hover and for machines. */
export function When({ date, now }: { date: Date; now?: number }) {
  return (
    <time dateTime={date.toISOString()} title={exactTime(date)}>
      {relativeTime(date, now)}
    </time>
  )
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
