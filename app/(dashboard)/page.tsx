import type { Metadata } from 'next'
import Link from 'next/link'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { listIssues } from '@/lib/issues/list-issues'
import { getDailyActivity } from '@/lib/orgs/daily-activity'
import { firstRunDone, getFirstRunProgress } from '@/lib/orgs/first-run'
import { getOrganizationOverview } from '@/lib/orgs/overview'
import { describeSeconds } from '@/lib/processing/analysis-due'
import { MAX_COUNTED_SEARCHES, savedSearchDailyCounts } from '@/lib/saved-searches/daily-counts'
import { recorderSnippet } from '@/lib/sdk/snippet'
import { DailyChart } from './_overview/daily-chart'
import { FirstRunSteps } from './_overview/first-run-steps'
import { SavedSearchCounts } from './_overview/saved-search-counts'

export const metadata: Metadata = { title: 'Overview' }

const PRIORITY_BADGE = {
  critical: 'badge-critical',
  high: 'badge-high',
  medium: 'badge-medium',
  low: 'badge-low',
}

export default async function OverviewPage() {
  const { organization } = await requireMember('/')
  const db = await getDb()
  const [overview, latest, progress, daily, searches] = await Promise.all([
    getOrganizationOverview(db, organization.id),
    listIssues(db, { organizationId: organization.id }, { limit: 5, status: 'unresolved' }),
    getFirstRunProgress(db, organization.id),
    getDailyActivity(db, organization.id),
    savedSearchDailyCounts(db, organization.id),
  ])
  const { baseUrl, ingestUrl, sessions } = getConfig()
  const figures: { label: string; value: number; href: string }[] = [
    { label: 'Sessions recorded', value: overview.sessions, href: '/sessions' },
    { label: 'Unresolved issues', value: overview.unresolvedIssues, href: '/issues?status=unresolved' },
    { label: 'Issues in all', value: overview.issues, href: '/issues' },
    { label: 'Signals', value: overview.signals, href: '/signals' },
    { label: 'Insights', value: overview.insights, href: '/insights' },
  ]
  const gettingStarted = !firstRunDone(progress)
  return (
    <>
      <section>
        <h1>{organization.name}</h1>
        <p className="muted">
          Plan: <span className="badge">{organization.plan}</span> · Your role: {organization.role}
        </p>
      </section>
      <section className="stats" aria-label="Figures">
        {figures.map((figure) => (
          <Link className="card stat stat-link" href={figure.href} key={figure.label}>
            <strong>{figure.value}</strong>
            <span className="muted">{figure.label}</span>
          </Link>
        ))}
      </section>
      {/* Always rendered: it hides itself when all steps were done before the page opened. */}
      <FirstRunSteps
        progress={progress}
        snippet={recorderSnippet({ baseUrl, ingestUrl, apiKey: 'svc_pk_…' })}
        idle={describeSeconds(sessions.idleSeconds)}
      />
      <DailyChart days={daily} />
      <SavedSearchCounts searches={searches} more={searches.length >= MAX_COUNTED_SEARCHES} />
      <section className="card" aria-labelledby="latest-issues">
        <div className="page-header">
          <h2 id="latest-issues">Latest unresolved issues</h2>
          <Link href="/issues?status=unresolved">All unresolved issues</Link>
        </div>
        {latest.items.length === 0 ? (
          <p className="muted">
            {gettingStarted
              ? 'Nothing yet: issues are found in recorded sessions.'
              : 'No unresolved issues. Everything your users hit has been handled.'}
          </p>
        ) : (
          <ul className="issue-list">
            {latest.items.map((issue) => (
              <li key={issue.id}>
                <span className={`badge ${PRIORITY_BADGE[issue.priority]}`}>{issue.priority}</span>{' '}
                <Link href={`/issues/${issue.id}`}>{issue.title}</Link>{' '}
                <span className="muted">
                  · {issue.sessionCount} {issue.sessionCount === 1 ? 'session' : 'sessions'}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  )
}
