import type { Metadata } from 'next'
import { getConfig } from '@/lib/config'
import { listKeys } from '@/lib/credentials/list-keys'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { getOrganizationOverview } from '@/lib/orgs/overview'

export const metadata: Metadata = { title: 'Overview' }

function formatDate(date: Date | null): string {
  return date ? date.toISOString().replace('T', ' ').slice(0, 16) : '—'
}

export default async function OverviewPage() {
  const { organization } = await requireMember('/')
  const db = await getDb()
  const [overview, keys] = await Promise.all([
    getOrganizationOverview(db, organization.id),
    listKeys(db, { organizationId: organization.id }),
  ])
  const { ingestUrl } = getConfig()
  const figures: [string, number][] = [
    ['Sessions recorded', overview.sessions],
    ['Unresolved issues', overview.unresolvedIssues],
    ['Issues in all', overview.issues],
    ['Signals', overview.signals],
    ['Insights', overview.insights],
  ]
  return (
    <>
      <section>
        <h1>{organization.name}</h1>
        <p className="muted">
          Plan: <span className="badge">{organization.plan}</span> · Your role: {organization.role}
        </p>
      </section>
      <section className="stats" aria-label="Figures">
        {figures.map(([label, value]) => (
          <div className="card stat" key={label}>
            <strong>{value}</strong>
            <span className="muted">{label}</span>
          </div>
        ))}
      </section>
      {overview.activeIngestKeys === 0 ? (
        <section className="card">
          <h2>Start recording sessions</h2>
          <p>
            Sessions arrive once a site sends replay batches to <code>{ingestUrl}/api/sdk/replay</code> with
            an ingest key. Create one with the admin command line on the server:
          </p>
          <pre>{`npm run --silent admin -- key:create --org ${organization.id} --type ingest`}</pre>
        </section>
      ) : null}
      <section className="card">
        <h2>Keys</h2>
        {keys.length === 0 ? (
          <p className="muted">This organization has no keys yet.</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Status</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.displayPrefix}</code>
                  </td>
                  <td>
                    {key.revokedAt ? (
                      <span className="badge badge-off">revoked</span>
                    ) : (
                      <span className="badge badge-ok">active</span>
                    )}
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{formatDate(key.createdAt)}</td>
                  <td>{formatDate(key.lastUsedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}
