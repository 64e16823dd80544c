import type { Metadata } from 'next'
import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { UserAgent } from '@/app/(dashboard)/_components/user-agent'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { recorderSnippet } from '@/lib/sdk/snippet'
import {
  AUTOMATION_FILTERS,
  type AutomationFilter,
  listSessions,
  MAX_SEARCH_LENGTH,
  SESSIONS_PAGE,
} from '@/lib/sessions/list-sessions'
import { shortUrl } from '@/lib/sessions/session-timeline'
import { type SessionListItem, userLabel } from '@/lib/sessions/views'
import { DegradedBadge } from './degraded-badge'
import { formatDuration, STATUS_BADGE } from './format'
import styles from './sessions.module.css'

export const metadata: Metadata = { title: 'Sessions' }

type Param = string | string[] | undefined

const one = (value: Param) => (Array.isArray(value) ? value[0] : value)

type Filters = { q: string; errorsOnly: boolean; automation: AutomationFilter | undefined }

const TRAFFIC_LABELS: Record<AutomationFilter | '', string> = {
  '': 'People',
  include: 'People and automated',
  only: 'Automated only',
}

/** Anything but the two known values is the default: people's visits. */
const automationParam = (value: string | undefined): AutomationFilter | undefined =>
  AUTOMATION_FILTERS.find((filter) => filter === value)

function listHref(filters: Filters, cursor?: string): string {
  const params = new URLSearchParams()
  if (filters.q) params.set('q', filters.q)
  if (filters.errorsOnly) params.set('errors', '1')
  if (filters.automation) params.set('automation', filters.automation)
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
  searchParams: Promise<{ q?: Param; errors?: Param; automation?: Param; cursor?: Param }>
}) {
  const { organization } = await requireMember('/sessions')
  const params = await searchParams
  const filters: Filters = {
    q: (one(params.q) ?? '').trim(),
    errorsOnly: one(params.errors) === '1',
    automation: automationParam(one(params.automation)),
  }
  const cursor = one(params.cursor) || undefined
  const filtered = filters.q !== '' || filters.errorsOnly || filters.automation !== undefined
  const now = Date.now()

  let page: Awaited<ReturnType<typeof listSessions>> | null = null
  let problem: string | null = null
  try {
    page = await listSessions(await getDb(), organization.id, {
      limit: SESSIONS_PAGE.default,
      cursor,
      search: filters.q,
      errorsOnly: filters.errorsOnly,
      automation: filters.automation,
    })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
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
      <search>
        <form className={`inline-form ${styles.filters}`} action="/sessions">
          <div className={`field ${styles.search}`}>
            <label htmlFor="session-search">Search</label>
            <input
              className="input"
              id="session-search"
              name="q"
              type="search"
              defaultValue={filters.q}
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
                ? `No session matches “${filters.q}”${filters.errorsOnly ? ' with errors' : ''}.`
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
                  return (
                    <tr key={session.id}>
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
