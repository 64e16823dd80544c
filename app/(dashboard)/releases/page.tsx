import type { Metadata } from 'next'
import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { listReleases, RELEASE_HEALTH_PAGE } from '@/lib/releases/health'
import { crashFree, ORDER_LABEL, releaseHref } from './format'
import styles from './releases.module.css'

export const metadata: Metadata = { title: 'Releases' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

export default async function ReleasesPage({ searchParams }: { searchParams: SearchParams }) {
  const { organization } = await requireMember('/releases')
  const now = Date.now()
  const cursor = one((await searchParams).cursor)
  let page: Awaited<ReturnType<typeof listReleases>> | null = null
  try {
    page = await listReleases(await getDb(), organization.id, { limit: RELEASE_HEALTH_PAGE.default, cursor })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
  }
  const order = page ? ORDER_LABEL[page.order] : null
  return (
    <>
      <section>
        <h1>Releases</h1>
        <p className="muted">
          The builds of your site your visitors ran, latest first, with how each one is doing: its sessions,
          the share of them without an error, and the issues it brought or brought back. Sessions from
          automation (test runs, crawlers, reproduction runs) never count.
        </p>
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="release-list">
        <h2 id="release-list">Your releases</h2>
        {!page ? (
          <p className="alert alert-error" role="alert">
            This page link is no longer valid. <Link href="/releases">Go to the latest releases</Link>.
          </p>
        ) : page.releases.length === 0 && !cursor ? (
          <div className="empty-state" data-testid="releases-empty">
            <p>
              <strong>No releases yet.</strong>
            </p>
            <p className={styles.emptyText}>
              A release appears when a recorded session names the build it ran: pass <code>release</code> to
              the recorder&apos;s <code>init</code> (or <code>data-release</code> on its script tag), sent as{' '}
              <code>metadata.release</code>. CI can also declare a release with its deploy time:{' '}
              <code>POST /api/v1/releases</code> with a key that has{' '}
              <Link href="/settings/keys">“Allow source map uploads”</Link>.
            </p>
            <p className="muted">
              See <code>docs/releases.md</code> for the order of releases and what each figure means.
            </p>
          </div>
        ) : (
          <>
            <p className={styles.order} data-testid="release-order">
              <strong>{order?.title}</strong> <span className="muted">{order?.detail}</span>
            </p>
            <div className={`table-wrap ${styles.scroll}`}>
              <table className={`table ${styles.stacked}`} data-testid="releases-table">
                <caption className="visually-hidden">Releases, latest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Release</th>
                    <th scope="col">First seen / deployed</th>
                    <th scope="col" className={styles.number}>
                      Sessions
                    </th>
                    <th scope="col" className={styles.number}>
                      Crash-free
                    </th>
                    <th scope="col" className={styles.number}>
                      Users
                    </th>
                    <th scope="col" className={styles.number}>
                      New issues
                    </th>
                    <th scope="col" className={styles.number}>
                      Regressions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.releases.map((release) => (
                    <tr key={release.version} data-testid="release-row">
                      <td className={styles.full}>
                        <Link
                          className={styles.version}
                          href={releaseHref(release.version)}
                          title={release.version}
                        >
                          {release.version}
                        </Link>
                      </td>
                      <td className={styles.full} data-label="First seen">
                        <RelativeTime date={release.firstSeenAt} now={now} />
                        {release.deployedAt ? (
                          <>
                            {' '}
                            <span className="muted">· deployed</span>{' '}
                            <RelativeTime date={release.deployedAt} now={now} />
                          </>
                        ) : null}
                      </td>
                      <td className={styles.number} data-label="Sessions" data-testid="release-sessions">
                        {release.sessions}
                      </td>
                      <td className={styles.number} data-label="Crash-free" data-testid="release-crash-free">
                        {crashFree(release.crashFreeSessions)}
                      </td>
                      <td className={styles.number} data-label="Users" data-testid="release-users">
                        {release.users}
                      </td>
                      <td className={styles.number} data-label="New issues" data-testid="release-new-issues">
                        {release.newIssues}
                      </td>
                      <td
                        className={styles.number}
                        data-label="Regressions"
                        data-testid="release-regressions"
                      >
                        {release.regressions}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {page.releases.length === 0 ? <p className="muted">No more releases.</p> : null}
            <nav className={styles.pager} aria-label="Release pages">
              {cursor ? <Link href="/releases">Latest releases</Link> : null}
              {page.nextCursor ? (
                <Link href={`/releases?cursor=${encodeURIComponent(page.nextCursor)}`} rel="next">
                  Earlier releases →
                </Link>
              ) : null}
            </nav>
          </>
        )}
      </section>
    </>
  )
}
