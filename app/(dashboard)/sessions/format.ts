import type { SessionStatus } from '@/db/schema'
import { formatOffset } from '@/lib/analysis/timeline'

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

/** A session whose recorder's mutation guard stopped recording part of the page (docs/recorder.md#mutation-guard). */
export const DEGRADED_BADGE = {
  label: 'degraded',
  className: 'badge badge-medium',
  hint: 'Part of the page changed faster than the recorder’s budget, so the recorder stopped recording that part to keep the page responsive: the replay misses its changes.',
}
