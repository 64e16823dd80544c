import { DEGRADED_BADGE } from './format'

/** The sessions list and the session page mark a recording the mutation guard cut short alike. */
export function DegradedBadge({ degraded }: { degraded: boolean }) {
  if (!degraded) return null
  return (
    <>
      {' '}
      <span className={DEGRADED_BADGE.className} title={DEGRADED_BADGE.hint} data-testid="session-degraded">
        {DEGRADED_BADGE.label}
      </span>
    </>
  )
}
