import type { Metadata } from 'next'
import Link from 'next/link'
import { When } from '@/app/(dashboard)/_components/when'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { listFilesOfReleases, listReleases } from '@/lib/sourcemaps/releases'
import { ConfirmButton } from '../_components/confirm-button'
import styles from '../_components/settings.module.css'
import { deleteReleaseAction } from './actions'

export const metadata: Metadata = { title: 'Source maps' }

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>

export default async function SourceMapsPage({ searchParams }: { searchParams: SearchParams }) {
  const { organization } = await requireMember('/settings/source-maps')
  const isOwner = organization.role === 'owner'
  const params = await searchParams
  const cursor = typeof params.cursor === 'string' && params.cursor ? params.cursor : undefined
  const db = await getDb()
  let page: Awaited<ReturnType<typeof listReleases>> | null = null
  try {
    page = await listReleases(db, organization.id, { cursor })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
  }
  const releases = page?.items ?? []
  const files = await listFilesOfReleases(
    db,
    organization.id,
    releases.map((r) => r.release),
  )
  const { retentionDays } = getConfig().sourcemaps
  return (
    <>
      <section>
        <h1>Source maps</h1>
        <p className="muted">
          Maps uploaded by your build turn minified stack traces into original file names and lines. Upload
          them with a key that has <Link href="/settings/keys">“Allow source map uploads”</Link> (see{' '}
          <code>docs/source-maps.md</code>). Maps are deleted {retentionDays} days after their upload.
        </p>
      </section>
      {!isOwner ? (
        <p className="alert alert-info" data-testid="read-only-note">
          Only owners can delete source maps.
        </p>
      ) : null}
      <section className="card" aria-labelledby="releases-heading">
        <h2 id="releases-heading">Releases</h2>
        {!page ? (
          <p className="alert alert-error" role="alert">
            This page link is no longer valid.{' '}
            <Link href="/settings/source-maps">Go to the most recent releases</Link>.
          </p>
        ) : releases.length === 0 && !cursor ? (
          <p className="empty-state muted" data-testid="no-releases">
            No source maps yet. Upload a release’s maps from CI with <code>POST /api/v1/sourcemaps</code> or{' '}
            <code>npm run admin -- sourcemaps:upload</code>.
          </p>
        ) : (
          <div className={`table-wrap ${styles.contained}`}>
            <table className="table">
              <thead>
                <tr>
                  <th>Release</th>
                  <th>Files</th>
                  <th className="optional">Size</th>
                  <th className="optional">Last upload</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {releases.map((release) => (
                  <tr key={release.release} data-testid="release-row">
                    <td>
                      <details>
                        <summary>
                          <code>{release.release}</code>
                        </summary>
                        <ul className={styles.person}>
                          {(files.get(release.release) ?? []).map((file) => (
                            <li key={file.url}>
                              <code>{file.url}</code> <span className="muted">{size(file.sizeBytes)}</span>
                              {file.debugId ? (
                                <span className="muted"> · debug ID {file.debugId}</span>
                              ) : null}
                            </li>
                          ))}
                        </ul>
                      </details>
                    </td>
                    <td>{release.files}</td>
                    <td className="optional">{size(release.sizeBytes)}</td>
                    <td className="optional">
                      <When date={release.lastUploadedAt} />
                    </td>
                    <td className={styles.actions}>
                      {isOwner ? (
                        <ConfirmButton
                          action={deleteReleaseAction.bind(null, release.release)}
                          confirm={`Delete the ${release.files} source maps of ${release.release}? Errors of this release are no longer symbolicated until you upload them again.`}
                          label="Delete"
                          pendingLabel="Deleting…"
                          accessibleLabel={`Delete the source maps of ${release.release}`}
                          danger
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {page && (cursor || page.nextCursor) ? (
          <nav className={styles.pager} aria-label="Release pages">
            {cursor ? <Link href="/settings/source-maps">Most recent releases</Link> : null}
            {page.nextCursor ? (
              <Link href={`/settings/source-maps?cursor=${encodeURIComponent(page.nextCursor)}`} rel="next">
                Show older releases
              </Link>
            ) : null}
          </nav>
        ) : null}
      </section>
    </>
  )
}
