import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { ReplayPlayer } from '@/app/(dashboard)/_components/replay-player'
import { UserAgent } from '@/app/(dashboard)/_components/user-agent'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import {
  type AnalysisDue,
  analysisDue,
  describeSeconds,
  sessionAnalysisState,
} from '@/lib/processing/analysis-due'
import { getSession } from '@/lib/sessions/get-session'
import { storedReplayLog } from '@/lib/sessions/replay-log'
import { sessionIssues } from '@/lib/sessions/session-issues'
import { type SessionTimeline, sessionTimeline } from '@/lib/sessions/session-timeline'
import { type SessionRecord, userLabel } from '@/lib/sessions/views'
import { listShareLinks } from '@/lib/sharing/share-links'
import { DegradedBadge } from '../degraded-badge'
import { formatDuration, formatTime, STATUS_BADGE } from '../format'
import { PinButton } from './pin-button'
import styles from './session.module.css'
import { ShareLinks } from './share-links'

export const metadata: Metadata = { title: 'Session replay' }

const PRIORITY_BADGE = {
  critical: 'badge-critical',
  high: 'badge-high',
  medium: 'badge-medium',
  low: 'badge-low',
}

/** `?t=` is milliseconds after the session started, as in issue preview links. */
function parseOffset(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (!text || !/^\d{1,10}$/.test(text)) return undefined
  return Number(text)
}

/** The user's own properties other than the e-mail and name shown above them. */
function otherProperties(session: SessionRecord): [string, string][] {
  return Object.entries(session.userProperties ?? {})
    .filter(
      ([key, value]) => key !== 'email' && key !== 'name' && value !== null && typeof value !== 'object',
    )
    .slice(0, 20)
    .map(([key, value]) => [key, String(value)])
}

async function loadSession(organizationId: string, sessionId: string) {
  const db = await getDb()
  try {
    return await getSession(db, organizationId, sessionId)
  } catch (error) {
    if (error instanceof NotFoundError) notFound()
    throw error
  }
}

/** When this session will be analysed, from the rule the finalizer runs. */
function dueText(due: AnalysisDue): string {
  switch (due.kind) {
    case 'now':
      return 'is being analysed now'
    case 'queued':
      return 'is queued for analysis now (the recorder said the visit ended)'
    case 'idle':
      // Past due: the finalizer is about to take it (or is not running: see the log).
      if (due.by.getTime() <= Date.now()) return 'is due for analysis now'
      return `is analysed ${describeSeconds(due.idleSeconds)} after its last batch arrives: expected by ${formatTime(due.by)}`
    case 'retry':
      return `is analysed again shortly: expected by ${formatTime(due.by)}`
    default:
      return 'is waiting to be analysed'
  }
}

/** Why the list of moments is missing or partial; the replay plays in every case. */
function TimelineNotice({
  session,
  timeline,
  due,
}: {
  session: Pick<SessionRecord, 'status' | 'failureReason'>
  timeline: SessionTimeline | null
  due: AnalysisDue
}) {
  if (session.status === 'failed')
    return (
      <p className="alert alert-error" role="alert">
        {timeline ? 'The list of moments is from an earlier analysis. ' : 'No list of moments: '}
        {session.failureReason ?? 'the analysis of this recording failed.'}
        {due.kind === 'retry' ? ` Expected by ${formatTime(due.by)}.` : ''}
      </p>
    )
  if (session.status === 'receiving' || session.status === 'processing') {
    const when = dueText(due)
    return (
      <p className="alert alert-info" role="status" data-testid="analysis-due">
        {timeline
          ? `More of this session was recorded since the list of moments was made; it ${when}.`
          : `This session ${when}; the list of moments and its issues appear when that is done.`}
      </p>
    )
  }
  if (!timeline)
    return (
      <p className="alert alert-info" role="status">
        No list of moments is stored for this session; the replay below still plays.
      </p>
    )
  if (timeline.truncated)
    return (
      <p className="alert alert-info">
        This session is long: the list shows its first 200 clicks, errors and requests of each kind.
      </p>
    )
  return null
}

export default async function SessionPage({
  params,
  searchParams,
}: {
  params: Promise<{ sessionId: string }>
  searchParams: Promise<{ t?: string | string[] }>
}) {
  const { sessionId } = await params
  const { t } = await searchParams
  const { organization } = await requireMember(`/sessions/${sessionId}`)
  const session = await loadSession(organization.id, sessionId)
  const db = await getDb()
  const [issues, state, log, shareLinks] = await Promise.all([
    sessionIssues(db, organization.id, session.id),
    sessionAnalysisState(db, organization.id, session.id),
    storedReplayLog(db, session.id),
    listShareLinks(db, organization.id, session.id),
  ])
  const due: AnalysisDue = state ? analysisDue(state, getConfig().sessions) : { kind: 'done' }
  // From the stored analysis only: the page never analyses a recording itself.
  const timeline = sessionTimeline(session, issues)
  const offset = parseOffset(t)
  const openAt = offset === undefined ? undefined : session.startedAt.getTime() + offset
  const status = STATUS_BADGE[session.status]
  const now = Date.now()
  const { user } = session
  const properties = otherProperties(session)
  const markers =
    timeline?.entries ??
    issues.map((issue) => ({
      at: issue.firstOccurrenceAt.getTime(),
      kind: 'issue' as const,
      label: `Issue: ${issue.title}`,
    }))

  return (
    <>
      <div className="page-header">
        <div className={styles.title}>
          <p className={styles.back}>
            <Link href="/sessions">← Sessions</Link>
          </p>
          <h1>{userLabel(user)}</h1>
          <p className="muted">
            <RelativeTime date={session.startedAt} now={now} /> · {formatDuration(session.durationMs)} ·{' '}
            <span className={status.className} title={status.hint}>
              {status.label}
            </span>
            <DegradedBadge degraded={session.degraded} />
          </p>
        </div>
        <PinButton sessionId={session.id} pinned={session.pinnedAt !== null} />
      </div>

      {/* data-layout="wide" lets the dashboard's main column grow so the replay gets the room. */}
      <section className={`card ${styles.replay}`} aria-labelledby="replay-heading" data-layout="wide">
        <h2 id="replay-heading" className="visually-hidden">
          Replay
        </h2>
        <TimelineNotice session={session} timeline={timeline} due={due} />
        {session.degraded ? (
          <p className="alert alert-info" role="note" data-testid="degraded-notice">
            Degraded recording: part of this page changed faster than the recorder’s budget (by default 1,000
            changes a second), so the recorder stopped recording that part to keep the page responsive. The
            replay shows it as it was when recording stopped; a page that changed too fast everywhere was
            paused until it calmed down.
          </p>
        ) : null}
        <ReplayPlayer
          sessionId={session.id}
          openAt={openAt}
          markers={markers}
          log={log}
          link={{ startedAt: session.startedAt.getTime() }}
        />
      </section>

      <div className={styles.columns}>
        <section className="card" aria-labelledby="facts-heading">
          <h2 id="facts-heading">Session</h2>
          <dl className={`facts ${styles.facts}`}>
            <dt>User</dt>
            <dd>
              {user.name ?? '–'}
              {user.email ? (
                <>
                  {' '}
                  · <a href={`mailto:${user.email}`}>{user.email}</a>
                </>
              ) : null}
            </dd>
            {user.userId ? (
              <>
                <dt>User id</dt>
                <dd>
                  <code>{user.userId}</code>
                </dd>
              </>
            ) : null}
            <dt>Anonymous id</dt>
            <dd>
              <code>{user.anonymousId}</code>
            </dd>
            {properties.map(([key, value]) => (
              <div className={styles.pair} key={key}>
                <dt>{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
            <dt>Entry URL</dt>
            <dd>
              <code>{session.entryUrl}</code>
            </dd>
            <dt>Started</dt>
            <dd>
              <RelativeTime date={session.startedAt} now={now} />
            </dd>
            <dt>Duration</dt>
            <dd>{formatDuration(session.durationMs)}</dd>
            <dt>Pages</dt>
            <dd>{session.pageCount ?? '–'}</dd>
            <dt>Errors</dt>
            <dd>{session.errorCount ?? '–'}</dd>
            <dt>Rage clicks</dt>
            <dd>{session.rageClickCount ?? '–'}</dd>
            <dt>Browser</dt>
            <dd>
              <UserAgent userAgent={session.userAgent} />
            </dd>
            <dt>Release</dt>
            <dd data-testid="session-release">
              {session.release ? <code>{session.release}</code> : 'not reported'}
            </dd>
            <dt>Language</dt>
            <dd>{session.language ?? 'not reported'}</dd>
            <dt>Viewport</dt>
            <dd>
              {session.viewport ? `${session.viewport.width} × ${session.viewport.height}` : 'not reported'}
            </dd>
            <dt>Status</dt>
            <dd>
              <span className={status.className}>{status.label}</span>{' '}
              <span className="muted">{status.hint}</span>
              {session.failureReason ? <span className={styles.failure}>{session.failureReason}</span> : null}
            </dd>
            <dt>Events</dt>
            <dd>{session.eventCount}</dd>
          </dl>
        </section>

        <section className="card" aria-labelledby="issues-heading">
          <h2 id="issues-heading">Issues found in this session</h2>
          {issues.length === 0 ? (
            <p className="muted">
              {session.status === 'processed'
                ? 'None: no errors, failed requests or frustrated clicks were found.'
                : 'None yet: issues are listed once the session has been analysed.'}
            </p>
          ) : (
            <ul className="issue-list">
              {issues.map((issue) => (
                <li key={issue.id} className={styles.issue}>
                  <span className={`badge ${PRIORITY_BADGE[issue.priority]}`}>{issue.priority}</span>{' '}
                  <Link href={`/issues/${issue.id}`}>{issue.title}</Link>
                  <span className="muted">
                    {' '}
                    · {formatDuration(issue.firstOccurrenceAt.getTime() - session.startedAt.getTime())} in
                    {issue.occurrences > 1 ? ` · ${issue.occurrences} times` : ''} ·{' '}
                    <Link
                      href={`/sessions/${session.id}?t=${Math.max(0, issue.firstOccurrenceAt.getTime() - session.startedAt.getTime())}`}
                    >
                      Replay from here
                    </Link>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>

      <ShareLinks sessionId={session.id} startedAt={session.startedAt.getTime()} links={shareLinks} />
    </>
  )
}
