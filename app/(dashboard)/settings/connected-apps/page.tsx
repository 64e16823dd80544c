import type { Metadata } from 'next'
import { When } from '@/app/(dashboard)/_components/when'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { listConnectedApps } from '@/lib/oauth/connected-apps'
import { RevokeButton } from './revoke-button'

export const metadata: Metadata = { title: 'Connected apps' }

function hostOf(uri: string | undefined): string {
  if (!uri) return '—'
  try {
    return new URL(uri).host || uri
  } catch {
    return uri
  }
}

export default async function ConnectedAppsPage() {
  const { user } = await requireMember('/settings/connected-apps')
  const apps = await listConnectedApps(await getDb(), user.id)
  const { baseUrl } = getConfig()
  return (
    <>
      <section>
        <h1>Connected apps</h1>
        <p className="muted">
          AI agents and tools you allowed to read this service through MCP. Disconnecting one revokes its
          tokens at once.
        </p>
      </section>
      <section className="card">
        {apps.length === 0 ? (
          <>
            <h2>No connected apps</h2>
            <p>
              Add the MCP server <code>{`${baseUrl}/api/mcp`}</code> in Claude, ChatGPT, Cursor or VS Code;
              the app asks you to sign in here and approve its access.
            </p>
          </>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>App</th>
                <th>Organization</th>
                <th>Access</th>
                <th>Redirects to</th>
                <th>Connected</th>
                <th>Last used</th>
                <th>
                  <span className="muted">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apps.map((app) => (
                <tr key={app.consentId} data-testid="connected-app">
                  <td>{app.clientName}</td>
                  <td>{app.organization.name}</td>
                  <td>
                    {app.scopes.map((scope) => (
                      <span className="badge" key={scope}>
                        {scope === 'write:issues' ? 'update issue status' : 'read issues, signals, insights'}
                      </span>
                    ))}
                  </td>
                  <td>{hostOf(app.redirectUris[0])}</td>
                  <td>
                    <When date={app.createdAt} />
                  </td>
                  <td>
                    <When date={app.lastUsedAt} />
                  </td>
                  <td>
                    <RevokeButton consentId={app.consentId} clientName={app.clientName} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}
