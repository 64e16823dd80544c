import type { SessionStatus } from '@/db/schema'
import { formatOffset } from '@/lib/analysis/timeline'

export function formatDuration(ms: number): string {
  return formatOffset(ms)
}

export const STATUS_BADGE: Record<SessionStatus, { label: string; className: string; hint: string }> = {
  receiving: {
    label: 'recording',
    className: 'badge',
    hint: 'Batches are still arriving; analysed once it ends.',
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
