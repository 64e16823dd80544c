import { getDb } from '@/lib/db'
import type { MemberContext } from '@/lib/http/session'
import { recentExports } from '@/lib/privacy/export-lookup'
import { EXPORT_LIFETIME_DAYS, type ExportView, isExpired } from '@/lib/privacy/export-view'
import { PERSON_KIND_LABELS, utcTime } from '../_components/privacy-requests'
import { ExportForm } from './export-form'

function statusOf(item: ExportView): string {
  if (isExpired({ expiresAt: new Date(item.expiresAt) })) return 'expired'
  if (item.status !== 'completed') return item.status
  return item.truncated ? 'completed (cut at the size bound)' : 'completed'
}

/**
 * Access requests (docs/privacy.md#exports): owners request one person's data and download the
 * file while it lasts; members see that it exists and who may use it.
 */
export async function ExportSection({ member }: { member: MemberContext }) {
  const isOwner = member.organization.role === 'owner'
  const exports = isOwner ? await recentExports(await getDb(), member.organization.id) : []
  return (
    <section className="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export a person’s data</h2>
      <p className="muted">
        For an access request: one file (NDJSON) with every session of the person, its recorded events and
        timeline, and the issues found in it, redacted as stored. Files are sealed, can be downloaded for{' '}
        {EXPORT_LIFETIME_DAYS} days and are then deleted. Each request and download is in the audit trail.
      </p>
      {!isOwner ? (
        <p className="alert alert-info" data-testid="export-owners-only">
          Only owners can export a person’s data. Ask an owner of this organization.
        </p>
      ) : (
        <>
          <ExportForm />
          {exports.length === 0 ? (
            <p className="empty-state muted" data-testid="no-exports">
              No exports yet.
            </p>
          ) : (
            <table className="table" data-testid="exports">
              <thead>
                <tr>
                  <th scope="col">Requested</th>
                  <th scope="col">Named by</th>
                  <th scope="col">Status</th>
                  <th scope="col">Sessions</th>
                  <th scope="col">Until</th>
                  <th scope="col">File</th>
                </tr>
              </thead>
              <tbody>
                {exports.map((item) => {
                  const status = statusOf(item)
                  return (
                    <tr key={item.id}>
                      <td>{utcTime(item.createdAt)}</td>
                      <td>{PERSON_KIND_LABELS[item.personKind]}</td>
                      <td>{status}</td>
                      <td>{item.counts.sessions ?? '–'}</td>
                      <td>{new Date(item.expiresAt).toISOString().slice(0, 10)}</td>
                      <td>
                        {item.status === 'completed' && status !== 'expired' ? (
                          <a href={`/api/dashboard/exports/${item.id}`} download>
                            Download
                          </a>
                        ) : (
                          '–'
                        )}
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  )
}
