import type { Metadata } from 'next'
import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { INSIGHTS_PAGE, listInsights } from '@/lib/insights/list-insights'
import { describeInterval, formatInterval } from '../signals/format'
import styles from './insights.module.css'

export const metadata: Metadata = { title: 'Insights' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

export default async function InsightsPage({ searchParams }: { searchParams: SearchParams }) {
  const { organization } = await requireMember('/insights')
  const now = Date.now()
  const query = await searchParams
  const cursor = typeof query.cursor === 'string' ? query.cursor : undefined
  const every = describeInterval(getConfig().insights.intervalHours)
  let page: Awaited<ReturnType<typeof listInsights>> | null = null
  try {
    page = await listInsights(
      await getDb(),
      { organizationId: organization.id },
      { limit: INSIGHTS_PAGE.default, cursor },
    )
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
  }
  return (
    <>
      <section>
        <h1>Insights</h1>
        <p className="muted">
          A summary of your recorded sessions, written {every} for the interval that just ended: friction
          (errors, failed requests, rage and dead clicks) against the interval before, engagement, and the
          issues seen most. Newest first.
        </p>
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="insight-list">
        <h2 id="insight-list" className="visually-hidden">
          Written insights
        </h2>
        {!page ? (
          <p className="alert alert-error" role="alert">
            This page link is no longer valid. <Link href="/insights">Go to the newest insights</Link>.
          </p>
        ) : page.items.length === 0 && !cursor ? (
          <div className="empty-state" data-testid="insights-empty">
            <p>
              <strong>No insights yet.</strong>
            </p>
            <p className="muted">
              Insights are written {every} (UTC-aligned intervals of that length, set by{' '}
              <code>INSIGHTS_INTERVAL_HOURS</code>), for intervals in which your site recorded sessions. An
              interval without sessions gets none.
            </p>
            <p>
              <Link href="/sessions">Check that sessions are being recorded</Link>; the first insight follows
              the end of the first interval with sessions.
            </p>
          </div>
        ) : (
          <>
            <ul className={styles.list}>
              {page.items.map((insight) => (
                <li className={styles.item} key={insight.id} data-testid="insight-item">
                  <h3>
                    <Link href={`/insights/${insight.id}`}>
                      {formatInterval(insight.intervalStart, insight.intervalEnd)}
                    </Link>
                  </h3>
                  <p className="muted">
                    {insight.sessionsCount} {insight.sessionsCount === 1 ? 'session' : 'sessions'} · written{' '}
                    <RelativeTime date={insight.createdAt} now={now} />
                    {insight.redactedAt ? ' · some of its sessions were erased since' : null}
                  </p>
                  <p>{insight.contentPreview}</p>
                </li>
              ))}
            </ul>
            <nav className={styles.pager} aria-label="Insight pages">
              {cursor ? <Link href="/insights">Newest insights</Link> : null}
              {page.nextCursor ? (
                <Link href={`/insights?cursor=${encodeURIComponent(page.nextCursor)}`}>Older insights</Link>
              ) : null}
            </nav>
          </>
        )}
      </section>
    </>
  )
}
