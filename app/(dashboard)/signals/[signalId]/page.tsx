import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getLanguageModel } from '@/lib/ai/model'
import { getDb } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { getSavedSearch } from '@/lib/saved-searches/saved-searches'
import { getSignal } from '@/lib/signals/get-signal'
import { listSignalMatches, SIGNAL_MATCHES_PAGE } from '@/lib/signals/signal-matches'
import { backfillLabel, STATUS_BADGE } from '../format'
import { SignalControls } from '../signal-controls'
import styles from '../signals.module.css'

export const metadata: Metadata = { title: 'Signal' }

type Params = Promise<{ signalId: string }>
type SearchParams = Promise<Record<string, string | string[] | undefined>>

function duration(ms: number | null): string {
  if (ms === null) return ''
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

export default async function SignalPage({
  params,
  searchParams,
}: {
  params: Params
  searchParams: SearchParams
}) {
  const { signalId } = await params
  const { organization } = await requireMember(`/signals/${signalId}`)
  const now = Date.now()
  const query = await searchParams
  const cursor = typeof query.cursor === 'string' ? query.cursor : undefined
  const db = await getDb()
  const scope = { organizationId: organization.id, signalId }
  let signal: Awaited<ReturnType<typeof getSignal>>
  try {
    signal = await getSignal(db, scope)
  } catch (error) {
    if (error instanceof NotFoundError) notFound()
    throw error
  }
  // A saved search in use cannot be deleted, so a signal's is there to name.
  const savedSearch = signal.savedSearchId
    ? await getSavedSearch(db, organization.id, signal.savedSearchId)
    : null
  let matches: Awaited<ReturnType<typeof listSignalMatches>> | null = null
  try {
    matches = await listSignalMatches(db, scope, { limit: SIGNAL_MATCHES_PAGE.default, cursor })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
  }
  const backfill = backfillLabel(signal.backfillStatus, signal.status)
  const aiConfigured = getLanguageModel() !== null
  const here = `/signals/${signal.id}`
  return (
    <>
      <p>
        <Link href="/signals">← All signals</Link>
      </p>
      <section className="page-header">
        <div>
          <h1 className={styles.wrap}>{signal.name}</h1>
          <p>
            <span className={STATUS_BADGE[signal.status]} data-testid="signal-status">
              {signal.status}
            </span>{' '}
            <span className={backfill.badge}>{backfill.text}</span>
          </p>
        </div>
        <SignalControls
          signalId={signal.id}
          name={signal.name}
          status={signal.status}
          matchCount={signal.matchCount}
        />
      </section>
      {signal.status === 'paused' ? (
        <p className="alert alert-info">
          Paused: new sessions are not matched against this signal
          {signal.backfillStatus === 'pending' ? ', and the scan of the last 30 days waits' : ''}. Resume it
          to match again; sessions recorded while it was paused are not matched later.
        </p>
      ) : null}
      <section className={`card ${styles.section}`} aria-labelledby="signal-details">
        <h2 id="signal-details">Details</h2>
        <dl className="facts">
          <dt>Prompt</dt>
          <dd>
            <p className={styles.prompt}>{signal.prompt}</p>
          </dd>
          <dt>Saved search</dt>
          <dd data-testid="signal-saved-search">
            {savedSearch ? (
              <>
                <Link href={`/sessions?q=${encodeURIComponent(savedSearch.query)}`}>{savedSearch.name}</Link>{' '}
                <span className="muted">(only sessions it finds can match)</span>
              </>
            ) : (
              'Any session'
            )}
          </dd>
          <dt>Matches</dt>
          <dd data-testid="signal-match-count">{signal.matchCount}</dd>
          <dt>Last match</dt>
          <dd>
            <RelativeTime date={signal.lastMatchAt} now={now} />
          </dd>
          <dt>Past 30 days</dt>
          <dd>
            {backfill.text}
            {signal.backfillStatus === 'failed'
              ? ' after retries. New sessions are still matched; the server log says why the scan failed.'
              : ''}
          </dd>
          <dt>Matched by</dt>
          <dd>
            {aiConfigured
              ? 'The AI model for new sessions; keyword rules for the scan of past sessions'
              : 'Keyword rules (no AI model is configured)'}
          </dd>
          <dt>Created</dt>
          <dd>
            <RelativeTime date={signal.createdAt} now={now} />
          </dd>
        </dl>
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="matched-sessions">
        <h2 id="matched-sessions">Matched sessions</h2>
        {!matches ? (
          <p className="alert alert-error" role="alert">
            This page link is no longer valid. <Link href={here}>Go to the newest matches</Link>.
          </p>
        ) : matches.items.length === 0 && !cursor ? (
          <div className="empty-state" data-testid="matches-empty">
            <p>
              <strong>No matching sessions yet.</strong>
            </p>
            <p className="muted">
              {signal.status === 'paused'
                ? 'This signal is paused. Resume it to match new sessions.'
                : signal.backfillStatus === 'pending' || signal.backfillStatus === 'running'
                  ? 'Sessions of the last 30 days are still being scanned; reload in a moment.'
                  : 'Sessions are matched once they are processed, after the visitor leaves. If nothing matches for a while, reword the prompt (see the guidance on the Signals page).'}
            </p>
          </div>
        ) : (
          <>
            <div className={`table-wrap ${styles.scroll}`}>
              <table className={`table ${styles.stacked}`}>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col" className="optional">
                      Entry URL
                    </th>
                    <th scope="col">Started</th>
                    <th scope="col">Why it matched</th>
                    <th scope="col" className="optional">
                      Matched
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {matches.items.map((match) => (
                    <tr key={match.id} data-testid="match-row">
                      <td className={`${styles.sessionCell} ${styles.full}`}>
                        <Link href={`/sessions/${match.session.id}`}>{match.session.user}</Link>
                        <br />
                        <span className="muted">
                          {duration(match.session.durationMs)}
                          {match.session.errorCount
                            ? ` · ${match.session.errorCount} ${match.session.errorCount === 1 ? 'error' : 'errors'}`
                            : ''}
                        </span>
                      </td>
                      <td className={`optional ${styles.wrap}`} data-label="Entry URL">
                        {match.session.entryUrl}
                      </td>
                      <td data-label="Started">
                        <RelativeTime date={match.session.startedAt} now={now} />
                      </td>
                      <td className={`${styles.wrap} ${styles.full}`}>
                        {match.matcher === 'model' ? <span className="badge">AI</span> : null}{' '}
                        {match.evidence}
                      </td>
                      <td className="optional" data-label="Matched">
                        <RelativeTime date={match.matchedAt} now={now} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav className={styles.pager} aria-label="Match pages">
              {cursor ? <Link href={here}>Newest matches</Link> : null}
              {matches.nextCursor ? (
                <Link href={`${here}?cursor=${encodeURIComponent(matches.nextCursor)}`}>Older matches</Link>
              ) : null}
            </nav>
          </>
        )}
      </section>
    </>
  )
}
