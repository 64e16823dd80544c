import Link from 'next/link'
import { formatOffset } from '@/app/(dashboard)/_components/replay-time'
import type { TrailKind } from '@/lib/analysis/trail'
import type { SearchMoment } from '@/lib/search/index'
import styles from './sessions.module.css'

/** The trail's kinds named as the query language names them (docs/search.md). */
const MOMENT_NAMES: Record<TrailKind, string> = {
  navigation: 'Page',
  click: 'Click',
  input: 'Input',
  console: 'Console',
  error: 'Error',
  request: 'Request',
  rage_click: 'Rage click',
  dead_click: 'Dead click',
  custom: 'Event',
}

/**
 * The moments of a session that the query matched, each a link that opens the replay there
 * (`?t=` is milliseconds after the session started, as the session page reads it).
 */
export function MatchingMoments({
  sessionId,
  user,
  moments,
}: {
  sessionId: string
  user: string
  moments: SearchMoment[]
}) {
  if (moments.length === 0) return <span className="muted">Matched by the session’s own fields</span>
  return (
    <ul className={styles.moments} aria-label={`Matching moments of ${user}`} data-testid="matching-moments">
      {moments.map((moment) => (
        <li key={`${moment.position}:${moment.at}`}>
          <Link href={`/sessions/${sessionId}?t=${Math.max(0, Math.round(moment.offsetMs))}`}>
            <span className={styles.momentTime}>{formatOffset(moment.offsetMs)}</span>{' '}
            <span className="badge badge-low">{MOMENT_NAMES[moment.kind]}</span> {moment.label}
          </Link>
        </li>
      ))}
    </ul>
  )
}
