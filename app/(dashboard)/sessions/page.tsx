import type { Metadata } from 'next'
import Link from 'next/link'
import { Fragment } from 'react'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { UserAgent } from '@/app/(dashboard)/_components/user-agent'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { InvalidInputError, SearchTimeoutError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { recorderSnippet } from '@/lib/sdk/snippet'
import type { SearchMoment } from '@/lib/search'
import { parseQuery } from '@/lib/search/parse'
import {
  AUTOMATION_FILTERS,
  type AutomationFilter,
  listSessions,
  MAX_SEARCH_LENGTH,
  SESSIONS_PAGE,
} from '@/lib/sessions/list-sessions'
import { searchSessions } from '@/lib/sessions/search-sessions'
import { shortUrl } from '@/lib/sessions/session-timeline'
import { type SessionListItem, userLabel } from '@/lib/sessions/views'
import { SaveSearchLink } from '../_components/save-search-link'
import { DegradedBadge } from './degraded-badge'
import { formatDuration, STATUS_BADGE } from './format'
import { MatchingMoments } from './matching-moments'
import { QueryBox } from './query-box'
import styles from './sessions.module.css'

export const metadata: Metadata = { title: 'Sessions' }

type Param = string | string[] | undefined

const one = (value: Param) => (Array.isArray(value) ? value[0] : value)

/** `q` is a query of the search language (docs/search.md); `search` the free-text look-up. */
type Filters = { q: string; search: string; errorsOnly: boolean; automation: AutomationFilter | undefined }

/** What a moment shows first: at most this many per session, as the Data API. */
const MOMENTS_SHOWN = 5

const TRAFFIC_LABELS: Record<AutomationFilter | '', string> = {
  '': 'People',
  include: 'People and automated',
  only: 'Automated only',
}

/** Anything but the two known values is the default: people's visits. */
const automationParam = (value: string | undefined): AutomationFilter | undefined =>
  AUTOMATION_FILTERS.find((filter) => filter === value)

function filterParams(filters: Filters, but?: 'q' | 'search'): Record<string, string> {
  const params: Record<string, string> = {}
  if (filters.q && but !== 'q') params.q = filters.q
  if (filters.search && but !== 'search') params.search = filters.search
  if (filters.errorsOnly) params.errors = '1'
  if (filters.automation) params.automation = filters.automation
  return params
}

function listHref(filters: Filters, cursor?: string): string {
  const params = new URLSearchParams(filterParams(filters))
  if (cursor) params.set('cursor', cursor)
  const query = params.toString()
  return query ? `/sessions?${query}` : '/sessions'
}

/** The second line under the user's name: whatever else identifies them. */
function userDetail(session: SessionListItem): string {
  const { user } = session
  if (user.name && user.email) return user.email
  if (user.name || user.email) return user.userId ?? ''
  return user.userId ? '' : user.anonymousId
}

export default async function SessionsPage({
  searchParams,
}: {
  searchParams: Promise<{ q?: Param; search?: Param; errors?: Param; automation?: Param; cursor?: Param }>
}) {
  const { organization } = await requireMember('/sessions')
  const params = await searchParams
  const filters: Filters = {
    q: (one(params.q) ?? '').trim(),
    search: (one(params.search) ?? '').trim(),
    errorsOnly: one(params.errors) === '1',
    automation: automationParam(one(params.automation)),
  }
  const cursor = one(params.cursor) || undefined
  const filtered =
    filters.q !== '' || filters.search !== '' || filters.errorsOnly || filters.automation !== undefined
  const now = Date.now()
  const parsed = filters.q ? parseQuery(filters.q) : null

  const db = await getDb()
  let page: Awaited<ReturnType<typeof listSessions>> | null = null
  let moments = new Map<string, SearchMoment[]>()
  let problem: string | null = null
  try {
    const list = {
      limit: SESSIONS_PAGE.default,
      cursor,
      search: filters.search,
      errorsOnly: filters.errorsOnly,
      automation: filters.automation,
    }
    // A query that cannot be read lists nothing: the query box shows where it is wrong.
    if (parsed === null) page = await listSessions(db, organization.id, list)
    else if (parsed.ok) ({ page, moments } = await searchSessions(db, organization.id, list, parsed.query))
  } catch (error) {
    if (error instanceof SearchTimeoutError) problem = error.message
    else if (!(error instanceof InvalidInputError)) throw error
    else
      problem = cursor
        ? 'This page link no longer fits the list (it was changed, or the search changed). Start again from the first page.'
        : error.message
  }

  if (page && page.items.length === 0 && !filtered && !cursor) {
    const { baseUrl, ingestUrl } = getConfig()
    return (
      <>
        <h1>Sessions</h1>
        <section className="card empty-state" aria-labelledby="no-sessions">
          <h2 id="no-sessions">No sessions recorded yet</h2>
          <p>
            Install the recorder on your site: add this tag as the first one in the <code>&lt;head&gt;</code>{' '}
            of your pages, with an ingest key in place of <code>svc_pk_…</code>.
          </p>
          <pre className={styles.snippet}>{recorderSnippet({ baseUrl, ingestUrl, apiKey: 'svc_pk_…' })}</pre>
          <p>
            An ingest key is shown only once, when it is created.{' '}
            <Link href="/settings/keys">Create an ingest key</Link> if you do not have one at hand.
          </p>
          <p className="muted">Sessions appear here a few seconds after a visitor opens a page.</p>
          <p className="muted">
            Visits by automation (test runs, crawlers, headless browsers) are kept apart:{' '}
            <Link href="/sessions?automation=only">show automated sessions</Link>.
          </p>
        </section>
      </>
    )
  }

  return (
    <>
      <div className="page-header">
        <div>
          <h1>Sessions</h1>
          <p className="muted">Recorded visits, newest first. Open one to replay it.</p>
        </div>
      </div>
      <search className={styles.searches}>
        {/* Keyed by the query: a link to another search (or none) starts the box again from it. */}
        <QueryBox key={filters.q} initialText={filters.q} keep={filterParams(filters, 'q')} />
        {parsed?.ok ? (
          <p className={styles.saveSearch}>
            <SaveSearchLink query={filters.q} /> <Link href="/sessions/saved">Saved searches</Link>
          </p>
        ) : (
          <p className={styles.saveSearch}>
            <Link href="/sessions/saved">Saved searches</Link>
          </p>
        )}
        {parsed && !parsed.ok ? (
          <p className="alert alert-info" role="note" data-testid="legacy-search">
            Before searches by what happened, <code>q</code> in this page’s address was the text search.{' '}
            <Link href={listHref({ ...filters, q: '', search: filters.q.slice(0, MAX_SEARCH_LENGTH) })}>
              Search for “{filters.q.slice(0, 80)}” as text
            </Link>
          </p>
        ) : null}
        <form className={`inline-form ${styles.filters}`} action="/sessions">
          {filters.q ? <input type="hidden" name="q" value={filters.q} /> : null}
          <div className={`field ${styles.search}`}>
            <label htmlFor="session-search">Search</label>
            <input
              className="input"
              id="session-search"
              name="search"
              type="search"
              defaultValue={filters.search}
              maxLength={MAX_SEARCH_LENGTH}
              placeholder="E-mail, name, user id or URL"
            />
          </div>
          <label className={styles.check}>
            <input type="checkbox" name="errors" value="1" defaultChecked={filters.errorsOnly} /> With errors
            only
          </label>
          <div className="field">
            <label htmlFor="session-traffic">Traffic</label>
            <select
              className="select"
              id="session-traffic"
              name="automation"
              defaultValue={filters.automation ?? ''}
            >
              {Object.entries(TRAFFIC_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <button className="btn" type="submit">
            Search
          </button>
          {filtered ? <Link href="/sessions">Clear filters</Link> : null}
        </form>
      </search>
      {problem ? (
        <div className="alert alert-error" role="alert">
          {problem} <Link href={listHref(filters)}>First page</Link>
        </div>
      ) : null}
      {page && page.items.length === 0 ? (
        <section className="card empty-state">
          <p>
            {cursor
              ? 'No more sessions.'
              : filters.q
                ? `No session matches the query${filters.search ? ` and “${filters.search}”` : ''}${filters.errorsOnly ? ' with errors' : ''}.`
                : filters.search
                  ? `No session matches “${filters.search}”${filters.errorsOnly ? ' with errors' : ''}.`
                  : filters.errorsOnly
                    ? 'No session has errors.'
                    : 'No automated session was recorded.'}
          </p>
          <p className="muted">
            {cursor ? (
              <Link href={listHref(filters)}>Back to the first page</Link>
            ) : (
              <>
                Try another search, or <Link href="/sessions">show all sessions</Link>.
              </>
            )}
          </p>
        </section>
      ) : null}
      {page && page.items.length > 0 ? (
        <section className={`card ${styles.listCard}`}>
          <div className="table-wrap">
            <table className="table" data-testid="sessions-table">
              <caption className="visually-hidden">Recorded sessions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col" className="optional">
                    Entry page
                  </th>
                  <th scope="col" className="optional">
                    Browser
                  </th>
                  <th scope="col" className="optional">
                    Release
                  </th>
                  <th scope="col" className="optional">
                    Duration
                  </th>
                  <th scope="col" className="optional">
                    Pages
                  </th>
                  <th scope="col">Errors</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="optional">
                    Status
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((session) => {
                  const status = STATUS_BADGE[session.status]
                  const detail = userDetail(session)
                  const found = parsed?.ok ? (moments.get(session.id) ?? []).slice(0, MOMENTS_SHOWN) : null
                  return (
                    <Fragment key={session.id}>
                      <tr className={found ? styles.matchedRow : undefined}>
                        <td>
                          <div className={styles.user}>
                            <Link href={`/sessions/${session.id}`}>{userLabel(session.user)}</Link>
                            {detail ? <span className="muted">{detail}</span> : null}
                          </div>
                        </td>
                        <td className={`optional ${styles.url}`} title={session.entryUrl}>
                          {shortUrl(session.entryUrl)}
                        </td>
                        <td className="optional">
                          <UserAgent userAgent={session.userAgent} empty="–" />
                        </td>
                        <td className={`optional ${styles.url}`} title={session.release ?? undefined}>
                          {session.release ? <code>{session.release}</code> : '–'}
                        </td>
                        <td className="optional">{formatDuration(session.durationMs)}</td>
                        <td className="optional">{session.pageCount ?? '–'}</td>
                        <td>
                          {session.errorCount ? (
                            <span className="badge badge-critical">{session.errorCount}</span>
                          ) : (
                            (session.errorCount ?? '–')
                          )}
                        </td>
                        <td>
                          <RelativeTime date={session.startedAt} now={now} />
                        </td>
                        <td className="optional">
                          <span className={status.className} title={status.hint}>
                            {status.label}
                          </span>
                          <DegradedBadge degraded={session.degraded} />
                          {session.automation ? (
                            <>
                              {' '}
                              <span
                                className="badge badge-low"
                                title="Automated traffic (a reproduction run, a browser driven by automation or a bot): never counted"
                                data-testid="session-automated"
                              >
                                {session.automation}
                              </span>
                            </>
                          ) : null}
                        </td>
                      </tr>
                      {found ? (
                        <tr className={styles.momentsRow}>
                          <td colSpan={9}>
                            <MatchingMoments
                              sessionId={session.id}
                              user={userLabel(session.user)}
                              moments={found}
                            />
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  )
                })}
              </tbody>
            </table>
          </div>
          <nav className={`toolbar ${styles.paging}`} aria-label="Pages">
            {cursor ? <Link href={listHref(filters)}>First page</Link> : null}
            {page.nextCursor ? (
              <Link href={listHref(filters, page.nextCursor)} rel="next">
                Older sessions →
              </Link>
            ) : null}
          </nav>
        </section>
      ) : null}
    </>
  )
}
