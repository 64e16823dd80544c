import type { Metadata } from 'next'
import Link from 'next/link'
import { listKeys } from '@/lib/credentials/list-keys'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { CreateKeyForm } from './create-key-form'
import { KeyTable } from './key-table'

export const metadata: Metadata = { title: 'Keys' }

export default async function KeysPage() {
  const { organization } = await requireMember('/settings/keys')
  const isOwner = organization.role === 'owner'
  const keys = await listKeys(await getDb(), { organizationId: organization.id })
  const ingest = keys.filter((k) => k.type === 'ingest')
  const api = keys.filter((k) => k.type === 'api')
  const legacy = keys.filter((k) => k.type === 'mcp')
  return (
    <>
      <section>
        <h1>Keys</h1>
        <p className="muted">
          Ingest keys let your pages send recordings; Data API keys let your scripts read issues. A key is
          shown in full only once, when it is created; afterwards only its first characters are listed.
        </p>
      </section>
      {!isOwner ? (
        <p className="alert alert-info" data-testid="read-only-note">
          Only owners can create or revoke keys. You can see which keys exist; ask an owner for a new one.
        </p>
      ) : null}

      <section className="card" aria-labelledby="ingest-heading">
        <h2 id="ingest-heading">Ingest keys</h2>
        <p className="muted">
          Public keys (<code>svc_pk_…</code>) for the recorder in your web pages. They are safe in client-side
          code: they can only send recordings to this service, never read anything.
        </p>
        <CreateKeyForm type="ingest" disabled={!isOwner} />
        {ingest.length === 0 ? (
          <p className="empty-state muted" data-testid="no-ingest-keys">
            No ingest keys yet. Create one, then paste the recorder snippet shown with it as the first tag in
            the &lt;head&gt; of your pages to start recording sessions.
          </p>
        ) : (
          <KeyTable
            keys={ingest}
            kindLabel="ingest key"
            showScopes={false}
            canRevoke={isOwner}
            consequence="Pages that still use it stop sending recordings."
          />
        )}
      </section>

      <section className="card" aria-labelledby="api-heading">
        <h2 id="api-heading">Data API keys</h2>
        <p className="muted">
          Secret keys (<code>svc_api_…</code>) for scripts, servers and MCP clients that cannot sign in with
          OAuth. Send one as <code>Authorization: Bearer …</code> to <code>/api/v1/issues</code>,{' '}
          <code>/api/v1/signals</code>, <code>/api/v1/insights</code> or <code>/api/mcp</code>. Keep them out
          of client-side code and source control. A key that may upload source maps from CI can do nothing
          else (see <Link href="/settings/source-maps">Source maps</Link>).
        </p>
        <CreateKeyForm type="api" disabled={!isOwner} />
        {api.length === 0 ? (
          <p className="empty-state muted" data-testid="no-api-keys">
            No Data API keys yet. Create one to read issues, signals and insights from your own tools; allow
            status updates only if the tool must resolve issues.
          </p>
        ) : (
          <KeyTable
            keys={api}
            kindLabel="Data API key"
            showScopes
            canRevoke={isOwner}
            consequence="Anything using it gets 401 from then on."
          />
        )}
      </section>

      {/* Only installations that made svc_mcp_ keys before OAuth need this section. */}
      {legacy.length > 0 ? (
        <section className="card" aria-labelledby="legacy-heading">
          <h2 id="legacy-heading">Legacy MCP keys</h2>
          <p className="muted">
            Older static keys (<code>svc_mcp_…</code>) with read access for MCP clients. They still work until
            revoked, but no new ones are made: new AI agents connect through OAuth, as described under{' '}
            <Link href="/settings/mcp">MCP</Link>, or use a Data API key.
          </p>
          <KeyTable
            keys={legacy}
            kindLabel="legacy MCP key"
            showScopes
            canRevoke={isOwner}
            consequence="MCP clients that use it lose access."
          />
        </section>
      ) : null}
    </>
  )
}
