import type { Metadata } from 'next'
import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import {
  DASHBOARD_ISSUES_PAGE,
  ISSUE_TABS,
  type IssueSearchResult,
  type IssueTab,
  SEARCH_MAX,
  searchIssues,
} from '@/lib/issues/search-issues'
import { PRIORITY_BADGE, STATUS_BADGE, webHref } from './format'
import styles from './issues.module.css'

export const metadata: Metadata = { title: 'Issues' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

const TAB_LABELS: Record<IssueTab, string> = { all: 'All', ...ISSUE_STATUS_LABELS }

/** The list's address for a tab, search and page; empty parts are left out. */
function issuesHref(parts: { status?: string; q?: string; cursor?: string }): string {
  const params = new URLSearchParams()
  if (parts.status && parts.status !== 'all') params.set('status', parts.status)
  if (parts.q) params.set('q', parts.q)
  if (parts.cursor) params.set('cursor', parts.cursor)
  const query = params.toString()
  return query ? `/issues?${query}` : '/issues'
}

export default async function IssuesPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams
  const status = one(params.status) ?? 'all'
  const q = (one(params.q) ?? '').trim()
  const cursor = one(params.cursor)
  const { organization } = await requireMember(issuesHref({ status, q, cursor }))
  const db = await getDb()

  let result: IssueSearchResult | null = null
  let error: string | null = null
  try {
    result = await searchIssues(db, organization.id, {
      tab: status as IssueTab,
      q,
      limit: DASHBOARD_ISSUES_PAGE,
      cursor,
    })
  } catch (cause) {
    if (!(cause instanceof InvalidInputError)) throw cause
    error = cause.message
  }
  const tab = (ISSUE_TABS as readonly string[]).includes(status) ? (status as IssueTab) : 'all'

  return (
    <>
      <section>
        <h1>Issues</h1>
        <p className="muted">
          Problems found in recorded sessions: JavaScript errors, failed requests, and clicks that got no
          response. Each issue groups every session that showed the same problem.
        </p>
      </section>
      <section className="card" aria-labelledby="issue-list-heading">
        <h2 id="issue-list-heading" className="visually-hidden">
          Issue list
        </h2>
        <nav className="tabs" aria-label="Issue status">
          {ISSUE_TABS.map((t) => (
            <Link key={t} href={issuesHref({ status: t, q })} aria-current={t === tab ? 'page' : undefined}>
              {TAB_LABELS[t]} <span className={styles.count}>{result ? result.counts[t] : ''}</span>
            </Link>
          ))}
        </nav>
        <search>
          <form className={`inline-form ${styles.search}`} method="get" action="/issues">
            {tab !== 'all' ? <input type="hidden" name="status" value={tab} /> : null}
            <div className="field">
              <label htmlFor="issue-search">Search title and description</label>
              <input
                className="input"
                id="issue-search"
                name="q"
                type="search"
                defaultValue={q}
                maxLength={SEARCH_MAX}
                placeholder="e.g. TypeError or /api/checkout"
              />
            </div>
            <button className="btn" type="submit">
              Search
            </button>
            {q ? (
              <Link className="btn" href={issuesHref({ status: tab })}>
                Clear search
              </Link>
            ) : null}
          </form>
        </search>
        {error ? (
          <div className="alert alert-error" role="alert">
            {error} <Link href="/issues">Show all issues</Link>.
          </div>
        ) : result ? (
          <IssueTable result={result} tab={tab} q={q} cursor={cursor} />
        ) : null}
      </section>
    </>
  )
}

function IssueTable({
  result,
  tab,
  q,
  cursor,
}: {
  result: IssueSearchResult
  tab: IssueTab
  q: string
  cursor: string | undefined
}) {
  if (result.total === 0)
    return (
      <div className="empty-state" data-testid="issues-empty">
        <p>
          <strong>No issues yet.</strong> Issues appear here when recorded sessions show JavaScript errors,
          failed requests, or rage and dead clicks.
        </p>
        <p className="muted">
          Check that sessions are arriving under <Link href="/sessions">Sessions</Link>. Not recording yet?{' '}
          <Link href="/settings/keys">Create an ingest key</Link> and add the recorder to your site.
        </p>
      </div>
    )
  if (result.items.length === 0)
    return (
      <div className="empty-state" data-testid="issues-no-match">
        {cursor ? (
          <>
            <p>
              <strong>No older issues.</strong>
            </p>
            <Link href={issuesHref({ status: tab, q })}>Back to the newest issues</Link>
          </>
        ) : (
          <>
            <p>
              <strong>
                No {tab === 'all' ? '' : `${TAB_LABELS[tab].toLowerCase()} `}issues
                {q ? ` match “${q}”` : ''}.
              </strong>
            </p>
            <p className="toolbar">
              {q ? <Link href={issuesHref({ status: tab })}>Clear the search</Link> : null}
              {tab !== 'all' ? <Link href={issuesHref({ q })}>Show all statuses</Link> : null}
            </p>
          </>
        )}
      </div>
    )
  const now = Date.now()
  return (
    <>
      <div className="table-wrap">
        <table className={`table ${styles.table}`}>
          <thead>
            <tr>
              <th scope="col">Issue</th>
              <th scope="col">Priority</th>
              <th scope="col" className="optional">
                Status
              </th>
              <th scope="col" className="optional">
                Sessions
              </th>
              <th scope="col" className="optional">
                First seen
              </th>
              <th scope="col">Last seen</th>
              <th scope="col" className="optional">
                Ticket
              </th>
            </tr>
          </thead>
          <tbody>
            {result.items.map((issue) => (
              <tr key={issue.id} data-testid="issue-row">
                <td className={styles.title}>
                  <Link href={`/issues/${issue.id}`}>{issue.title}</Link>
                </td>
                <td>
                  <span className={PRIORITY_BADGE[issue.priority]}>{issue.priority}</span>
                </td>
                <td className="optional">
                  <span className={STATUS_BADGE[issue.status]}>{ISSUE_STATUS_LABELS[issue.status]}</span>
                </td>
                <td className="optional">{issue.sessionCount}</td>
                <td className="optional">
                  <RelativeTime date={issue.firstSeenAt} now={now} />
                </td>
                <td>
                  <RelativeTime date={issue.lastSeenAt} now={now} />
                </td>
                <td className="optional">
                  {webHref(issue.ticketUrl) ? (
                    <a href={webHref(issue.ticketUrl)} target="_blank" rel="noopener noreferrer">
                      {issue.ticketIdentifier || issue.ticketProvider || 'Ticket'}
                    </a>
                  ) : (
                    <span className="muted">{issue.ticketIdentifier || '—'}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="toolbar">
        {cursor ? <Link href={issuesHref({ status: tab, q })}>Newest issues</Link> : null}
        {result.nextCursor ? (
          <Link href={issuesHref({ status: tab, q, cursor: result.nextCursor })} rel="next">
            Older issues
          </Link>
        ) : null}
      </p>
    </>
  )
}
