import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { cache } from 'react'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { type ReplayMarker, ReplayPlayer } from '@/app/(dashboard)/_components/replay-player'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { getSignedInUser, requireMember } from '@/lib/http/session'
import { activeTrackers } from '@/lib/integrations/list-integrations'
import { evidenceView } from '@/lib/issues/evidence-view'
import { getIssueRow } from '@/lib/issues/get-issue'
import { detailFields } from '@/lib/issues/issue-detail'
import { issueHistory } from '@/lib/issues/issue-history'
import { type IssueSession, issueSessionOf, issueSessionsOf } from '@/lib/issues/issue-sessions'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import { releaseChoices } from '@/lib/issues/release-choices'
import { currentOrganization } from '@/lib/members/memberships'
import { storedReplayLog } from '@/lib/sessions/replay-log'
import { offset, PRIORITY_BADGE, STATUS_BADGE } from '../format'
import styles from '../issues.module.css'
import { CreateTicketButtons } from './create-ticket-buttons'
import { IssueHistoryList } from './history-list'
import { loadReproduction } from './load-reproduction'
import { NoteForm } from './note-form'
import { OriginalFrames } from './original-frames'
import { PriorityReason } from './priority-reason'
import { QuickActions } from './quick-actions'
import { ReleaseFacts } from './release-facts'
import reproductionStyles from './reproduction.module.css'
import { ReproductionCode } from './reproduction-code'
import { ScrollingText } from './scrolling-text'
import { StatusForm } from './status-form'
import { TicketForm } from './ticket-form'
import { VerificationCard } from './verification-card'

type Params = Promise<{ issueId: string }>
type SearchParams = Promise<Record<string, string | string[] | undefined>>

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

/** The issue of the member's organization, or the not-found page (another organization's too). */
const loadIssue = cache(async (organizationId: string, issueId: string) => {
  try {
    return await getIssueRow(await getDb(), organizationId, issueId)
  } catch (error) {
    if (error instanceof NotFoundError) notFound()
    throw error
  }
})

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const user = await getSignedInUser()
  const organization = user && currentOrganization(user)
  if (!organization) return { title: 'Issue' }
  const { issueId } = await params
  return { title: (await loadIssue(organization.id, issueId)).title }
}

const AI_STATE = {
  true: { text: 'Verified by AI', className: 'badge badge-ok' },
  false: { text: 'AI could not confirm', className: 'badge badge-medium' },
  null: { text: 'Not verified by AI (no AI provider configured or review pending)', className: 'badge' },
}

/** Numbered steps ("1. Open /checkout") become a list; anything else is kept as written. */
function stepsOf(text: string): string[] | null {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  if (lines.length === 0 || !lines.every((line) => /^\d+[.)]\s/.test(line))) return null
  return lines.map((line) => line.replace(/^\d+[.)]\s+/, ''))
}

function personOf(session: IssueSession): string {
  const { name, email, id, anonymousId } = session.user
  if (name && email) return `${name} (${email})`
  return name || email || id || `Anonymous ${anonymousId.slice(0, 8)}`
}

export default async function IssuePage({
  params,
  searchParams,
}: {
  params: Params
  searchParams: SearchParams
}) {
  const { issueId } = await params
  const query = await searchParams
  const requestedSession = one(query.session)
  const requestedOffset = one(query.t)
  const back = new URLSearchParams()
  if (requestedSession) back.set('session', requestedSession)
  if (requestedOffset) back.set('t', requestedOffset)
  const { organization } = await requireMember(
    `/issues/${encodeURIComponent(issueId)}${back.size > 0 ? `?${back}` : ''}`,
  )
  const issue = await loadIssue(organization.id, issueId)
  const db = await getDb()
  const [history, seen, requested, reproduction, trackers, releases, detail] = await Promise.all([
    issueHistory(db, organization.id, issue.id),
    issueSessionsOf(db, organization.id, issue.id),
    requestedSession ? issueSessionOf(db, organization.id, issue.id, requestedSession) : null,
    loadReproduction(db, organization.id, issue.id),
    activeTrackers(db, organization.id),
    releaseChoices(db, organization.id),
    detailFields(db, organization.id, issue.id),
  ])

  // The replay opens at the moment of the issue: the requested session at its offset, or the
  // most recent session at the issue's first occurrence in it.
  const replay = requested ?? seen.sessions[0] ?? null
  const t =
    requested && requestedOffset && /^\d{1,10}$/.test(requestedOffset) ? Number(requestedOffset) : null
  const openAt = replay
    ? t !== null
      ? replay.startedAt.getTime() + t
      : replay.firstOccurrenceAt.getTime()
    : null
  // The console and network panes beside the replay, from that session's recording.
  const log = replay ? await storedReplayLog(db, replay.sessionId) : undefined
  const markers: ReplayMarker[] = openAt !== null ? [{ at: openAt, label: issue.title, kind: 'issue' }] : []
  const evidence = evidenceView(issue.kind, issue.evidence)
  const steps = issue.stepsToReplicate ? stepsOf(issue.stepsToReplicate) : null
  const ai = AI_STATE[String(issue.aiVerified) as keyof typeof AI_STATE]
  const now = Date.now()

  return (
    <>
      <section>
        <p className={styles.back}>
          <Link href="/issues">← All issues</Link>
        </p>
        <h1 className={styles.issueTitle}>{issue.title}</h1>
        <p className="toolbar">
          <span className={PRIORITY_BADGE[issue.priority]}>{issue.priority}</span>
          <span className={STATUS_BADGE[issue.status]} data-testid="issue-status">
            {ISSUE_STATUS_LABELS[issue.status]}
          </span>
          <span className={ai.className} data-testid="ai-state">
            {ai.text}
          </span>
        </p>
        <QuickActions
          issueId={issue.id}
          status={issue.status}
          ticketLinked={Boolean(issue.ticketUrl)}
          canCreate={trackers.length > 0}
        />
        <PriorityReason priority={issue.priority} reason={issue.priorityReason} />
        <dl className="facts">
          <dt>First seen</dt>
          <dd>
            <RelativeTime date={issue.firstSeenAt} now={now} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <RelativeTime date={issue.lastSeenAt} now={now} />
          </dd>
          <dt>Sessions</dt>
          <dd data-testid="session-count">{issue.sessionCount}</dd>
          {issue.firstRelease ? (
            <>
              <dt>First release</dt>
              <dd data-testid="first-release">
                <code>{issue.firstRelease}</code>
              </dd>
            </>
          ) : null}
          {issue.lastRelease ? (
            <>
              <dt>Latest release</dt>
              <dd data-testid="last-release">
                <code>{issue.lastRelease}</code>
              </dd>
            </>
          ) : null}
          <ReleaseFacts issue={issue} detail={detail} />
          <dt>Found by</dt>
          <dd>{issue.sourceType === 'insight' ? 'Insights (a rise across sessions)' : 'Session analysis'}</dd>
        </dl>
      </section>

      <div className={styles.layout}>
        <div className={styles.mainColumn}>
          <section className="card" aria-labelledby="replay-heading">
            <h2 id="replay-heading">Replay</h2>
            {requestedSession && !requested ? (
              <p className="alert alert-info" role="status">
                This issue was not seen in the session in the link
                {replay ? '; showing the most recent session it was seen in instead.' : '.'}
              </p>
            ) : null}
            {replay && openAt !== null ? (
              <>
                <p className="muted">
                  Session of {personOf(replay)}, started <RelativeTime date={replay.startedAt} now={now} />
                  {'; '}opened at {offset(openAt - replay.startedAt.getTime())}
                  {t === null ? ', the issue’s first occurrence' : ''}.{' '}
                  <Link
                    href={`/sessions/${replay.sessionId}?t=${Math.max(0, openAt - replay.startedAt.getTime())}`}
                  >
                    Open the whole session
                  </Link>
                </p>
                <div className={styles.player} data-testid="issue-replay" data-session-id={replay.sessionId}>
                  <ReplayPlayer
                    key={`${replay.sessionId}:${openAt}`}
                    sessionId={replay.sessionId}
                    openAt={openAt}
                    markers={markers}
                    log={log}
                    link={{ startedAt: replay.startedAt.getTime(), session: replay.sessionId }}
                  />
                </div>
              </>
            ) : (
              <p className="muted">
                No recorded session is linked to this issue
                {issue.sourceType === 'insight' ? ': it was found across sessions by Insights.' : '.'}
              </p>
            )}
          </section>

          <section className="card" aria-labelledby="description-heading">
            <h2 id="description-heading">What happened</h2>
            {issue.description ? (
              <p className={styles.prose}>{issue.description}</p>
            ) : (
              <p className="muted">No description was recorded.</p>
            )}
            <h3>Steps to replicate</h3>
            {steps ? (
              <ol className={styles.steps}>
                {steps.map((step, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: steps are a fixed, ordered text
                  <li key={i}>{step}</li>
                ))}
              </ol>
            ) : issue.stepsToReplicate ? (
              <ScrollingText className={styles.pre}>{issue.stepsToReplicate}</ScrollingText>
            ) : (
              <p className="muted">No steps were recorded; the replay shows what the user did.</p>
            )}
          </section>

          <section className="card" aria-labelledby="evidence-heading">
            <h2 id="evidence-heading">Evidence</h2>
            {evidence.headline ? (
              <ScrollingText className={styles.pre} testId="evidence-headline">
                {evidence.headline}
              </ScrollingText>
            ) : null}
            {evidence.facts.length > 0 ? (
              <dl className={`facts ${styles.evidenceFacts}`}>
                {evidence.facts.map((fact) => (
                  <div className={styles.factRow} key={fact.label}>
                    <dt>{fact.label}</dt>
                    <dd>
                      {fact.href ? (
                        <a href={fact.href} target="_blank" rel="noopener noreferrer">
                          {fact.value}
                        </a>
                      ) : (
                        fact.value
                      )}
                    </dd>
                  </div>
                ))}
              </dl>
            ) : null}
            {replay?.trigger ? (
              <p>
                Triggered by a click on <code>{replay.trigger.selector}</code>
                {replay.trigger.text ? ` (“${replay.trigger.text}”)` : ''} in the session shown.
              </p>
            ) : null}
            {evidence.symbolicated ? (
              <>
                <h3>Stack trace</h3>
                <OriginalFrames evidence={evidence.symbolicated} />
                {evidence.stack.length > 0 ? (
                  <details>
                    <summary>Stack as recorded (minified)</summary>
                    <ScrollingText className={styles.pre} testId="evidence-stack">
                      {evidence.stack.join('\n')}
                    </ScrollingText>
                  </details>
                ) : null}
              </>
            ) : evidence.stack.length > 0 ? (
              <details open>
                <summary>Stack trace</summary>
                <ScrollingText className={styles.pre} testId="evidence-stack">
                  {evidence.stack.join('\n')}
                </ScrollingText>
              </details>
            ) : null}
            {!evidence.headline &&
            evidence.facts.length === 0 &&
            evidence.stack.length === 0 &&
            !evidence.symbolicated ? (
              <p className="muted">No technical details were recorded for this issue.</p>
            ) : null}
          </section>

          <section
            className={`card ${reproductionStyles.card}`}
            aria-labelledby="reproduction-heading"
            data-testid="reproduction"
          >
            <h2 id="reproduction-heading">Reproduction</h2>
            {reproduction === null ? (
              <p className="muted" data-testid="reproduction-unavailable">
                Reproduction unavailable: the test could not be built for this issue right now.
              </p>
            ) : (
              <>
                <p className="muted">
                  A Playwright test built from{' '}
                  {reproduction.sessionId ? (
                    <Link href={`/sessions/${reproduction.sessionId}`}>the session it was seen in</Link>
                  ) : (
                    'the issue alone (no recorded session could be used)'
                  )}
                  : it fails while the bug is there and passes once it is fixed. Run it with{' '}
                  <code>npx playwright test {reproduction.filename}</code>.
                </p>
                <ReproductionCode code={reproduction.test} filename={reproduction.filename} />
                <h3>Limitations</h3>
                {reproduction.limitations.length > 0 ? (
                  <ul className={reproductionStyles.limitations} data-testid="reproduction-limitations">
                    {reproduction.limitations.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                ) : (
                  <p className="muted">None known.</p>
                )}
              </>
            )}
          </section>

          <VerificationCard verifications={detail.verifications} apiBaseUrl={getConfig().baseUrl} now={now} />

          <section className="card" aria-labelledby="sessions-heading">
            <h2 id="sessions-heading">
              Seen in {seen.total} {seen.total === 1 ? 'session' : 'sessions'}
            </h2>
            {seen.sessions.length === 0 ? (
              <p className="muted">No recorded session is linked to this issue.</p>
            ) : (
              <>
                <div className="table-wrap">
                  <table className="table">
                    <thead>
                      <tr>
                        <th scope="col">User</th>
                        <th scope="col" className="optional">
                          Entry page
                        </th>
                        <th scope="col">Started</th>
                        <th scope="col" className="optional">
                          Occurrences
                        </th>
                        <th scope="col">Replay</th>
                      </tr>
                    </thead>
                    <tbody>
                      {seen.sessions.map((session) => {
                        const current = replay?.sessionId === session.sessionId
                        return (
                          <tr key={session.sessionId} data-testid="issue-session">
                            <td className={styles.wrap}>{personOf(session)}</td>
                            <td className={`optional ${styles.wrap}`}>{session.entryUrl}</td>
                            <td>
                              <RelativeTime date={session.startedAt} now={now} />
                            </td>
                            <td className="optional">{session.occurrences}</td>
                            <td className={styles.replayLinks}>
                              <Link
                                href={`/issues/${issue.id}?session=${session.sessionId}&t=${session.offsetMs}`}
                                aria-current={current ? 'true' : undefined}
                                aria-label={`${current ? 'Playing' : 'Play here'} from ${offset(session.offsetMs)}`}
                              >
                                {current ? 'Playing' : 'Play here'}
                              </Link>
                              <Link href={`/sessions/${session.sessionId}?t=${session.offsetMs}`}>
                                Session
                              </Link>
                            </td>
                          </tr>
                        )
                      })}
                    </tbody>
                  </table>
                </div>
                {seen.total > seen.sessions.length ? (
                  <p className="muted">
                    Showing the {seen.sessions.length} most recent of {seen.total} sessions.
                  </p>
                ) : null}
              </>
            )}
          </section>
        </div>

        <aside className={styles.sideColumn} aria-label="Triage">
          <section className="card" aria-labelledby="status-heading">
            <h2 id="status-heading">Status</h2>
            <StatusForm
              issueId={issue.id}
              status={issue.status}
              ticketLinked={Boolean(issue.ticketUrl)}
              releases={releases}
              fix={{ inRelease: issue.resolvedInRelease, nextRelease: issue.resolvedInNextRelease }}
            />
          </section>
          <section className="card" aria-labelledby="ticket-heading">
            <h2 id="ticket-heading">Ticket</h2>
            <CreateTicketButtons issueId={issue.id} providers={trackers} linked={Boolean(issue.ticketUrl)} />
            <TicketForm
              issueId={issue.id}
              ticket={{
                provider: issue.ticketProvider,
                url: issue.ticketUrl,
                identifier: issue.ticketIdentifier,
              }}
            />
          </section>
          <section className="card" aria-labelledby="history-heading">
            <h2 id="history-heading">History</h2>
            <NoteForm issueId={issue.id} />
            <IssueHistoryList history={history} now={now} />
          </section>
        </aside>
      </div>
    </>
  )
}
