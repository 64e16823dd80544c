import type { Metadata } from 'next'
import Link from 'next/link'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { listIssues } from '@/lib/issues/list-issues'
import { getOrganizationOverview } from '@/lib/orgs/overview'
import { recorderSnippet } from '@/lib/sdk/snippet'

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
  const [overview, latest] = await Promise.all([
    getOrganizationOverview(db, organization.id),
    listIssues(db, { organizationId: organization.id }, { limit: 5, status: 'unresolved' }),
  ])
  const { baseUrl, ingestUrl } = getConfig()
  const figures: { label: string; value: number; href: string }[] = [
    { label: 'Sessions recorded', value: overview.sessions, href: '/sessions' },
    { label: 'Unresolved issues', value: overview.unresolvedIssues, href: '/issues?status=unresolved' },
    { label: 'Issues in all', value: overview.issues, href: '/issues' },
    { label: 'Signals', value: overview.signals, href: '/signals' },
    { label: 'Insights', value: overview.insights, href: '/insights' },
  ]
  const gettingStarted = overview.sessions === 0
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
      {gettingStarted ? (
        <section className="card" aria-labelledby="start-recording">
          <h2 id="start-recording">Start recording sessions</h2>
          <ol className="steps">
            <li>
              {overview.activeIngestKeys === 0 ? (
                <>
                  <Link href="/settings/keys">Create an ingest key</Link> under Settings → Keys (public, safe
                  in client-side code). The page shows the recorder snippet with your key filled in, once:
                  copy it then.
                </>
              ) : (
                <>
                  You have an ingest key. Its full value was shown once when it was created;{' '}
                  <Link href="/settings/keys">create another</Link> if you no longer have it.
                </>
              )}
            </li>
            <li>
              Add the recorder as the first tag in the <code>&lt;head&gt;</code> of your pages, with your key:
              <pre>{recorderSnippet({ baseUrl, ingestUrl, apiKey: 'svc_pk_…' })}</pre>
            </li>
            <li>
              Use your site. Sessions appear under <Link href="/sessions">Sessions</Link> as they are
              recorded; issues appear under <Link href="/issues">Issues</Link> once a session shows errors,
              failed requests or frustrated clicks.
            </li>
          </ol>
        </section>
      ) : null}
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
