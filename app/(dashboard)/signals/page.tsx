import type { Metadata } from 'next'
import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getLanguageModel } from '@/lib/ai/model'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { allSavedSearches } from '@/lib/saved-searches/saved-searches'
import { listSignals, SIGNALS_PAGE } from '@/lib/signals/list-signals'
import { CreateSignalForm } from './create-form'
import { backfillLabel, STATUS_BADGE } from './format'
import { SignalControls } from './signal-controls'
import styles from './signals.module.css'

export const metadata: Metadata = { title: 'Signals' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

export default async function SignalsPage({ searchParams }: { searchParams: SearchParams }) {
  const { organization } = await requireMember('/signals')
  const now = Date.now()
  const params = await searchParams
  const cursor = one(params.cursor)
  const db = await getDb()
  let page: Awaited<ReturnType<typeof listSignals>> | null = null
  let pageError: string | null = null
  try {
    page = await listSignals(db, { organizationId: organization.id }, { limit: SIGNALS_PAGE.default, cursor })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
    pageError = 'This page link is no longer valid.'
  }
  const signals = page?.items ?? []
  const searches = await allSavedSearches(db, organization.id)
  const searchNames = new Map(searches.map((s) => [s.id, s.name]))
  return (
    <>
      <section>
        <h1>Signals</h1>
        <p className="muted">
          A signal is a saved description of the sessions you want to find. Every new session is matched
          against your active signals, and a new signal also scans the sessions of the last 30 days.
        </p>
      </section>
      {one(params.deleted) ? (
        <p className="alert alert-ok" role="status">
          The signal and its matches were deleted.
        </p>
      ) : null}
      <section className={`card ${styles.section}`} aria-labelledby="your-signals">
        <h2 id="your-signals">Your signals</h2>
        {pageError ? (
          <p className="alert alert-error" role="alert">
            {pageError} <Link href="/signals">Go to the first page</Link>.
          </p>
        ) : signals.length === 0 && !cursor ? (
          <div className="empty-state" data-testid="signals-empty">
            <p>
              <strong>No signals yet.</strong> Describe the sessions you care about and every recording is
              checked against it, with matching sessions counted and listed here.
            </p>
            <p className="muted">
              For example <q>failed request on /checkout</q> or <q>rage clicks on /pricing</q>.
            </p>
            <a className="btn btn-accent" href="#new-signal">
              Create your first signal
            </a>
          </div>
        ) : (
          <>
            <div className={`table-wrap ${styles.scroll}`}>
              <table className={`table ${styles.stacked}`}>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Matches</th>
                    <th scope="col" className="optional">
                      Last match
                    </th>
                    <th scope="col">Past 30 days</th>
                    <th scope="col" className="optional">
                      Created
                    </th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {signals.map((signal) => {
                    const backfill = backfillLabel(signal.backfillStatus, signal.status)
                    return (
                      <tr key={signal.id} data-testid="signal-row">
                        <td className={styles.full}>
                          <div className={styles.name}>
                            <Link href={`/signals/${signal.id}`}>{signal.name}</Link>
                            <small className="muted optional">{signal.prompt.slice(0, 120)}</small>
                            {signal.savedSearchId ? (
                              <small className="muted">
                                Only sessions of the saved search “
                                {searchNames.get(signal.savedSearchId) ?? 'unknown'}”
                              </small>
                            ) : null}
                          </div>
                        </td>
                        <td>
                          <span className={STATUS_BADGE[signal.status]}>{signal.status}</span>
                        </td>
                        <td data-label="Matches">{signal.matchCount}</td>
                        <td className="optional" data-label="Last match">
                          <RelativeTime date={signal.lastMatchAt} now={now} />
                        </td>
                        <td>
                          <span className={backfill.badge} data-testid="backfill-status">
                            {backfill.text}
                          </span>
                        </td>
                        <td className="optional" data-label="Created">
                          <RelativeTime date={signal.createdAt} now={now} />
                        </td>
                        <td className={styles.full}>
                          <SignalControls
                            signalId={signal.id}
                            name={signal.name}
                            status={signal.status}
                            matchCount={signal.matchCount}
                          />
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
            <nav className={styles.pager} aria-label="Signal pages">
              {cursor ? <Link href="/signals">Newest signals</Link> : null}
              {page?.nextCursor ? (
                <Link href={`/signals?cursor=${encodeURIComponent(page.nextCursor)}`}>Older signals</Link>
              ) : null}
            </nav>
          </>
        )}
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="new-signal-heading" id="new-signal">
        <h2 id="new-signal-heading">New signal</h2>
        <CreateSignalForm
          aiConfigured={getLanguageModel() !== null}
          savedSearches={searches.map((s) => ({ id: s.id, name: s.name }))}
        />
      </section>
    </>
  )
}
