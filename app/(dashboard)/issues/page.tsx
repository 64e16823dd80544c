import type { Metadata } from 'next'
import Link from 'next/link'
import { redirect } from 'next/navigation'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { ISSUE_PRIORITIES } from '@/db/schema'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { ISSUE_KIND_LABELS, ISSUE_KINDS } from '@/lib/issues/kinds'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import {
  DASHBOARD_ISSUES_PAGE,
  ISSUE_TABS,
  type IssueSearchResult,
  type IssueSort,
  type IssueTab,
  SEARCH_MAX,
  searchIssues,
} from '@/lib/issues/search-issues'
import { BulkResolve, SelectAll } from './bulk-resolve'
import { PRIORITY_BADGE, STATUS_BADGE, webHref } from './format'
import styles from './issues.module.css'
import { KindIcon } from './kind-icon'
import {
  BULK_FORM_ID,
  hasEmptyParams,
  type IssueListState,
  issuesHref,
  LIST_DEFAULTS,
  readListState,
} from './list-params'
import { Sparkline } from './sparkline'

export const metadata: Metadata = { title: 'Issues' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

const TAB_LABELS: Record<IssueTab, string> = { all: 'All', ...ISSUE_STATUS_LABELS }

const SORT_LABELS: Record<IssueSort, string> = {
  impact: 'Impact',
  last_seen: 'Last seen',
  first_seen: 'First seen',
  sessions: 'Most sessions',
  users: 'Most users',
  priority: 'Priority',
}

export default async function IssuesPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams
  const state = readListState(params)
  // A submitted filter form names every field, chosen or not: keep the address to the chosen ones.
  if (hasEmptyParams(params)) redirect(issuesHref(state))
  const { organization } = await requireMember(issuesHref(state))
  const db = await getDb()
  const now = Date.now()

  let result: IssueSearchResult | null = null
  let error: string | null = null
  try {
    result = await searchIssues(db, organization.id, {
      tab: state.status,
      q: state.q,
      priority: state.priority || undefined,
      kind: state.kind || undefined,
      url: state.url,
      sort: state.sort,
      page: /^\d{1,6}$/.test(state.page) ? Number(state.page) : Number.NaN,
      limit: DASHBOARD_ISSUES_PAGE,
    })
  } catch (cause) {
    if (!(cause instanceof InvalidInputError)) throw cause
    error = cause.message
  }
  const tab = (ISSUE_TABS as readonly string[]).includes(state.status)
    ? (state.status as IssueTab)
    : LIST_DEFAULTS.status
  const filtered = Boolean(state.q || state.priority || state.kind || state.url)

  return (
    <>
      <section>
        <h1>Issues</h1>
        <p className="muted">
          Problems found in recorded sessions: JavaScript errors, failed requests, and clicks that got no
          response. Each issue groups every session that showed the same problem.
        </p>
        <p className="muted" data-testid="impact-order">
          The list opens on unresolved issues by impact: priority first, then the number of users affected,
          then the most recently seen.
        </p>
      </section>
      <section className="card" aria-labelledby="issue-list-heading">
        <h2 id="issue-list-heading" className="visually-hidden">
          Issue list
        </h2>
        <nav className="tabs" aria-label="Issue status">
          {ISSUE_TABS.map((t) => (
            <Link
              key={t}
              href={issuesHref({ ...state, status: t, page: undefined })}
              aria-current={t === tab ? 'page' : undefined}
            >
              {TAB_LABELS[t]} <span className={styles.count}>{result ? result.counts[t] : ''}</span>
            </Link>
          ))}
        </nav>
        <FilterForm state={state} tab={tab} filtered={filtered} />
        {/* Outside the table, so its message stays when the resolved rows leave the list. */}
        {result && result.total > 0 ? <BulkResolve /> : null}
        {error ? (
          <div className="alert alert-error" role="alert">
            {error} <Link href={issuesHref({ status: 'all' })}>Show all issues</Link>.
          </div>
        ) : result ? (
          <IssueTable result={result} state={state} tab={tab} filtered={filtered} now={now} />
        ) : null}
      </section>
    </>
  )
}

/** A filter that is off ("Any") or one of `options` (value, label). */
function AnyOfFilter({
  name,
  label,
  value,
  options,
}: {
  name: string
  label: string
  value: string
  options: readonly (readonly [string, string])[]
}) {
  return (
    <div className="field">
      <label htmlFor={`issue-${name}`}>{label}</label>
      <select className="select" id={`issue-${name}`} name={name} defaultValue={value}>
        <option value="">Any</option>
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </select>
    </div>
  )
}

function FilterForm({ state, tab, filtered }: { state: IssueListState; tab: IssueTab; filtered: boolean }) {
  return (
    <search>
      <form className={`inline-form ${styles.search}`} method="get" action="/issues">
        {tab !== LIST_DEFAULTS.status ? <input type="hidden" name="status" value={tab} /> : null}
        <div className={`field ${styles.grow}`}>
          <label htmlFor="issue-search">Search title and description</label>
          <input
            className="input"
            id="issue-search"
            name="q"
            type="search"
            defaultValue={state.q}
            maxLength={SEARCH_MAX}
            placeholder="e.g. TypeError or /api/checkout"
          />
        </div>
        <AnyOfFilter
          name="priority"
          label="Priority"
          value={state.priority}
          options={ISSUE_PRIORITIES.map((p) => [p, p])}
        />
        <AnyOfFilter
          name="kind"
          label="Kind"
          value={state.kind}
          options={ISSUE_KINDS.map((k) => [k, ISSUE_KIND_LABELS[k]])}
        />
        <div className={`field ${styles.grow}`}>
          <label htmlFor="issue-url">Page or URL contains</label>
          <input
            className="input"
            id="issue-url"
            name="url"
            type="search"
            defaultValue={state.url}
            maxLength={SEARCH_MAX}
            placeholder="/checkout"
          />
        </div>
        <div className="field">
          <label htmlFor="issue-sort">Sort by</label>
          <select
            className="select"
            id="issue-sort"
            name="sort"
            defaultValue={state.sort === LIST_DEFAULTS.sort ? '' : state.sort}
          >
            {Object.entries(SORT_LABELS).map(([value, label]) => (
              <option key={value} value={value === LIST_DEFAULTS.sort ? '' : value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <button className="btn" type="submit">
          Search
        </button>
        {filtered ? (
          <Link className="btn" href={issuesHref({ status: tab, sort: state.sort })}>
            Clear filters
          </Link>
        ) : null}
      </form>
    </search>
  )
}

function IssueTable({
  result,
  state,
  tab,
  filtered,
  now,
}: {
  result: IssueSearchResult
  state: IssueListState
  tab: IssueTab
  filtered: boolean
  now: number
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
        {result.page > 1 ? (
          <>
            <p>
              <strong>No issues on page {result.page}.</strong>
            </p>
            <Link href={issuesHref({ ...state, page: undefined })}>Back to the first page</Link>
          </>
        ) : (
          <>
            <p>
              <strong>
                No {tab === 'all' ? '' : `${TAB_LABELS[tab].toLowerCase()} `}issues
                {state.q ? ` match “${state.q}”` : filtered ? ' match these filters' : ''}.
              </strong>
            </p>
            <p className="toolbar">
              {state.q ? <Link href={issuesHref({ ...state, q: '' })}>Clear the search</Link> : null}
              {filtered ? <Link href={issuesHref({ status: tab })}>Clear all filters</Link> : null}
              {tab !== 'all' ? (
                <Link href={issuesHref({ ...state, status: 'all' })}>Show all statuses</Link>
              ) : null}
            </p>
          </>
        )}
      </div>
    )
  return (
    <>
      <div className="table-wrap">
        <table className={`table ${styles.table}`}>
          <thead>
            <tr>
              <th scope="col">
                <span className={styles.titleCell}>
                  <SelectAll />
                  Issue
                </span>
              </th>
              <th scope="col">Priority</th>
              <th scope="col" className="optional">
                Status
              </th>
              <th scope="col" className="optional">
                Sessions
              </th>
              <th scope="col" className="optional">
                Users
              </th>
              <th scope="col" className="optional">
                Events
              </th>
              <th scope="col" className="optional">
                Trend <span className="muted">(14 d)</span>
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
              <tr key={issue.id} data-testid="issue-row" data-issue-id={issue.id}>
                <td className={styles.title}>
                  <span className={styles.titleCell}>
                    <input
                      type="checkbox"
                      name="issue"
                      value={issue.id}
                      form={BULK_FORM_ID}
                      aria-label={`Select “${issue.title}”`}
                    />
                    <KindIcon kind={issue.kind} />
                    <Link href={`/issues/${issue.id}`}>{issue.title}</Link>
                  </span>
                </td>
                <td>
                  <span className={PRIORITY_BADGE[issue.priority]}>{issue.priority}</span>
                </td>
                <td className="optional">
                  <span className={STATUS_BADGE[issue.status]}>{ISSUE_STATUS_LABELS[issue.status]}</span>
                </td>
                <td className="optional">{issue.sessionCount}</td>
                <td className="optional" data-testid="users-affected">
                  {issue.usersAffected}
                </td>
                <td className="optional" data-testid="event-count">
                  {issue.eventCount}
                </td>
                <td className="optional">
                  <Sparkline values={issue.trend} />
                </td>
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
      <nav className="toolbar" aria-label="Pages">
        {result.page > 1 ? (
          <Link href={issuesHref({ ...state, page: String(result.page - 1) })} rel="prev">
            ← Previous
          </Link>
        ) : null}
        <span className="muted">
          Page {result.page} of {result.pageCount}
        </span>
        {result.page < result.pageCount ? (
          <Link href={issuesHref({ ...state, page: String(result.page + 1) })} rel="next">
            Next →
          </Link>
        ) : null}
      </nav>
    </>
  )
}
