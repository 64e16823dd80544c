import type { Metadata } from 'next'
import Link from 'next/link'
import { getConfig } from '@/lib/config'
import { requireMember } from '@/lib/http/session'
import { TOOLS } from '@/lib/mcp/tools'
import { CopyField } from '../_components/copy-field'
import styles from '../_components/settings.module.css'

export const metadata: Metadata = { title: 'MCP' }

// Cursor signs in through a private-use redirect URI, which the OAuth server accepts only when
// the operator lists it (docs/design/oauth-mcp.md decision 5).
const CURSOR_REDIRECT_URI = 'cursor://anysphere.cursor-mcp/oauth/callback'
const SERVER_NAME = 'session-replay'

export default async function McpPage() {
  await requireMember('/settings/mcp')
  const config = getConfig()
  const endpoint = `${config.baseUrl}/api/mcp`
  const ttlMinutes = Math.max(1, Math.round(config.oauth.accessTokenTtlSeconds / 60))
  const cursorAllowed = config.oauth.extraRedirectUris.includes(CURSOR_REDIRECT_URI)
  const publicHttps = endpoint.startsWith('https://')
  const claudeCode = `claude mcp add --transport http ${SERVER_NAME} ${endpoint}`
  const cursor = JSON.stringify({ mcpServers: { [SERVER_NAME]: { url: endpoint } } }, null, 2)
  const vscode = JSON.stringify({ servers: { [SERVER_NAME]: { type: 'http', url: endpoint } } }, null, 2)
  const withKey = `claude mcp add --transport http ${SERVER_NAME} ${endpoint} --header "Authorization: Bearer svc_api_…"`
  const vscodeWithKey = JSON.stringify(
    {
      inputs: [{ id: 'service-key', type: 'promptString', description: 'Data API key', password: true }],
      servers: {
        [SERVER_NAME]: {
          type: 'http',
          url: endpoint,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input-variable syntax, kept literally
          headers: { Authorization: 'Bearer ${input:service-key}' },
        },
      },
    },
    null,
    2,
  )
  return (
    <>
      <section>
        <h1>Connect an AI agent (MCP)</h1>
        <p className="muted">
          AI agents such as Claude, Cursor and VS Code can read this organization's issues, signals and
          insights through the Model Context Protocol, and update issue status if you allow it.
        </p>
      </section>

      <section className="card" aria-labelledby="endpoint-heading">
        <h2 id="endpoint-heading">Server URL</h2>
        <CopyField label="MCP server URL" value={endpoint} testId="mcp-endpoint" />
        <p className="muted">
          Streamable HTTP transport. When the agent first connects it opens this service in your browser: you
          sign in, pick what it may do and approve. Nothing to copy besides the URL.
        </p>
      </section>

      <section className="card" aria-labelledby="clients-heading">
        <h2 id="clients-heading">Add it to your client</h2>

        <h3 className={styles.subheading}>Claude Code</h3>
        <p>
          Run in a terminal, then type <code>/mcp</code> in Claude Code and choose Authenticate:
        </p>
        <CopyField label="Claude Code command" value={claudeCode} multiline />

        <h3 className={styles.subheading}>Claude Desktop and claude.ai</h3>
        <ol>
          <li>
            Open <strong>Settings → Connectors</strong> (in newer versions{' '}
            <strong>Customize → Connectors</strong>
            ).
          </li>
          <li>
            Choose <strong>Add custom connector</strong>, give it a name and paste the server URL above.
          </li>
          <li>
            Choose <strong>Connect</strong> and approve the access in the window that opens.
          </li>
        </ol>
        <p className="muted">
          Claude connects from Anthropic's servers, not from your computer, so this URL must be reachable from
          the internet over HTTPS.
          {publicHttps ? null : (
            <>
              {' '}
              This installation's address (<code>{config.baseUrl}</code>) is not HTTPS, so use Claude Code,
              Cursor or VS Code locally, or deploy with a public <code>BASE_URL</code>.
            </>
          )}
        </p>

        <h3 className={styles.subheading}>Cursor</h3>
        <p>
          Add this to <code>~/.cursor/mcp.json</code> (every project) or <code>.cursor/mcp.json</code> (one
          project), then enable the server under Cursor Settings → MCP and sign in when asked:
        </p>
        <CopyField label="Cursor mcp.json" value={cursor} multiline />
        {cursorAllowed ? null : (
          <p className="alert alert-info">
            Cursor signs in through <code>{CURSOR_REDIRECT_URI}</code>, which this installation does not allow
            yet. Ask its operator to add that URI to <code>OAUTH_EXTRA_REDIRECT_URIS</code>, or connect Cursor
            with a Data API key (below).
          </p>
        )}

        <h3 className={styles.subheading}>VS Code</h3>
        <p>
          Add this to <code>.vscode/mcp.json</code> in your workspace (or run <strong>MCP: Add Server</strong>
          ), then start the server from the file and sign in when asked:
        </p>
        <CopyField label="VS Code mcp.json" value={vscode} multiline />
      </section>

      <section className="card" aria-labelledby="access-heading">
        <h2 id="access-heading">What the agent may do</h2>
        <p>When you approve a connection you grant it one or both scopes, for this organization:</p>
        <dl className="facts">
          <dt>
            <code>read:service</code>
          </dt>
          <dd>Read issues, signals and insights. Every connection needs it.</dd>
          <dt>
            <code>write:issues</code>
          </dt>
          <dd>
            Change an issue's status (unresolved, ticket created, transient, resolved). Offered as a separate
            choice; leave it off for read-only agents.
          </dd>
        </dl>
        <h3 className={styles.subheading}>Tools</h3>
        <ul>
          {TOOLS.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code>: {tool.title}
              {tool.requiredScopes.includes('write:issues') ? (
                <span className="muted"> (needs write:issues)</span>
              ) : null}
            </li>
          ))}
        </ul>
        <p>
          Access tokens expire after {ttlMinutes} minutes and the client renews them while you stay connected.
          To cut an agent off, disconnect it under <Link href="/settings/connected-apps">Connected apps</Link>
          .
        </p>
      </section>

      <section className="card" aria-labelledby="no-oauth-heading">
        <h2 id="no-oauth-heading">Clients without OAuth</h2>
        <p>
          A client that cannot sign in through the browser can send a Data API key as a bearer header instead.
          Create one under <Link href="/settings/keys">Keys</Link> (with “Allow issue status updates” if it
          should use <code>update_issue</code>) and put it in place of <code>svc_api_…</code>:
        </p>
        <CopyField label="Claude Code command with a key" value={withKey} multiline />
        <CopyField label="VS Code mcp.json with a key" value={vscodeWithKey} multiline />
        <p className="muted">
          A key works until it is revoked and is not listed under Connected apps; revoke it under Keys.
        </p>
      </section>
    </>
  )
}
