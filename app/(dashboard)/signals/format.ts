import type { BackfillStatus, SignalStatus } from '@/db/schema'

/** Dates are shown in UTC to the minute, the same for every viewer and in every test. */
function formatTime(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'never'
}

export const STATUS_BADGE: Record<SignalStatus, string> = {
  active: 'badge badge-ok',
  paused: 'badge badge-medium',
}

/** What the scan of the last 30 days is doing, in words; a paused signal's scan waits. */
export function backfillLabel(
  backfill: BackfillStatus,
  status: SignalStatus,
): { text: string; badge: string } {
  switch (backfill) {
    case 'pending':
      return status === 'paused'
        ? { text: 'Waits until resumed', badge: 'badge' }
        : { text: 'Scanning soon…', badge: 'badge badge-low' }
    case 'running':
      return { text: 'Scanning past sessions…', badge: 'badge badge-medium' }
    case 'completed':
      return { text: 'Past 30 days scanned', badge: 'badge badge-ok' }
    case 'failed':
      return { text: 'Scan failed', badge: 'badge badge-off' }
  }
}

/** An interval in UTC; the end's date is left out when it is the same day. */
export function formatInterval(startIso: string, endIso: string): string {
  const start = formatTime(startIso).replace(' UTC', '')
  const end = formatTime(endIso).replace(' UTC', '')
  const sameDay = start.slice(0, 10) === end.slice(0, 10)
  return `${start} – ${sameDay ? end.slice(11) : end} UTC`
}

/** How often insights are written, in words: minutes when the interval is under an hour. */
export function describeInterval(hours: number): string {
  if (hours < 1) {
    const minutes = Math.round(hours * 60)
    return minutes === 1 ? 'every minute' : `every ${minutes} minutes`
  }
  return hours === 1 ? 'every hour' : `every ${hours} hours`
}
