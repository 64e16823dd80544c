import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getDb } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { getInsight } from '@/lib/insights/get-insight'
import { insightIssues } from '@/lib/insights/insight-issues'
import { formatInterval } from '../../signals/format'
import styles from '../insights.module.css'
import { InsightMarkdown } from './insight-markdown'

export const metadata: Metadata = { title: 'Insight' }

const PRIORITY_BADGE = {
  critical: 'badge badge-critical',
  high: 'badge badge-high',
  medium: 'badge badge-medium',
  low: 'badge badge-low',
}

export default async function InsightPage({ params }: { params: Promise<{ insightId: string }> }) {
  const { insightId } = await params
  const { organization } = await requireMember(`/insights/${insightId}`)
  const now = Date.now()
  const db = await getDb()
  let insight: Awaited<ReturnType<typeof getInsight>>
  try {
    insight = await getInsight(db, { organizationId: organization.id, insightId })
  } catch (error) {
    if (error instanceof NotFoundError) notFound()
    throw error
  }
  const issues = await insightIssues(db, organization.id, insight)
  return (
    <>
      <p>
        <Link href="/insights">← All insights</Link>
      </p>
      <section>
        <h1>Insight for {formatInterval(insight.intervalStart, insight.intervalEnd)}</h1>
        <dl className="facts">
          <dt>Interval</dt>
          <dd>
            <RelativeTime date={insight.intervalStart} now={now} /> to{' '}
            <RelativeTime date={insight.intervalEnd} now={now} />
          </dd>
          <dt>Sessions</dt>
          <dd>{insight.sessionsCount}</dd>
          <dt>Written</dt>
          <dd>
            <RelativeTime date={insight.createdAt} now={now} />
          </dd>
        </dl>
      </section>
      <article className={`card ${styles.section}`} aria-label="Insight">
        <InsightMarkdown content={insight.content} className={styles.content} />
      </article>
      <section className={`card ${styles.section}`} aria-labelledby="insight-issues">
        <h2 id="insight-issues">Issues in this insight</h2>
        {issues.length === 0 ? (
          <p className="muted">
            This insight names no issues. <Link href="/issues">See all issues</Link>.
          </p>
        ) : (
          <ul className={styles.issues}>
            {issues.map((issue) => (
              <li key={issue.id} data-testid="insight-issue">
                <span className={PRIORITY_BADGE[issue.priority]}>{issue.priority}</span>{' '}
                <Link href={`/issues/${issue.id}`}>{issue.title}</Link>{' '}
                <span className="muted">
                  · {issue.status}
                  {issue.filedByInsight ? ' · filed from this insight' : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  )
}
