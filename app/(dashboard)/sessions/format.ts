import type { SessionStatus } from '@/db/schema'
import { formatOffset } from '@/lib/analysis/timeline'

const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
})

const TIME = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
})

/** A moment of today, as when a session will be analysed. */
export function formatTime(date: Date): string {
  return `${TIME.format(date)} UTC`
}

/** Server-rendered, so one fixed zone, named, rather than the server's own. */
export function formatDateTime(date: Date): string {
  return `${DATE_TIME.format(date)} UTC`
}

export function formatDuration(ms: number): string {
  return formatOffset(ms)
}

export const STATUS_BADGE: Record<SessionStatus, { label: string; className: string; hint: string }> = {
  receiving: {
    label: 'recording',
    className: 'badge',
    hint: 'Batches are still arriving; analysed shortly after the last one (the session page says when).',
  },
  processing: { label: 'analysing', className: 'badge', hint: 'Being analysed for issues now.' },
  processed: {
    label: 'analysed',
    className: 'badge badge-ok',
    hint: 'Analysed: figures and issues are final.',
  },
  failed: {
    label: 'failed',
    className: 'badge badge-off',
    hint: 'Analysis failed. The reason, and whether it is retried, is on the session page.',
  },
}
