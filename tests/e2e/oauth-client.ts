import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'

/** What the authorization server sent back to the loopback redirect URI. */
export interface CallbackResult {
  code: string | null
  state: string | null
  iss: string | null
  error: string | null
}

export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback`, the client's registered redirect URI. */
  url: string
  /** The next redirect to arrive (or one that already arrived and was not taken yet). */
  next(timeoutMs?: number): Promise<CallbackResult>
  close(): Promise<void>
}

/**
 * The native-app side of the flow (RFC 8252 §7.3): a loopback HTTP server that receives the
 * authorization response. Results are queued so a redirect that lands before the test starts
 * waiting is not lost.
 */
export async function startCallbackServer(): Promise<CallbackServer> {
  const arrived: CallbackResult[] = []
  const waiting: ((result: CallbackResult) => void)[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/callback') {
      res.writeHead(404).end()
      return
    }
    const result: CallbackResult = {
      code: url.searchParams.get('code'),
      state: url.searchParams.get('state'),
      iss: url.searchParams.get('iss'),
      error: url.searchParams.get('error'),
    }
    const waiter = waiting.shift()
    if (waiter) waiter(result)
    else arrived.push(result)
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Connected</title><p>You can close this window.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next(timeoutMs = 15_000) {
      const ready = arrived.shift()
      if (ready) return Promise.resolve(ready)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(settle), 1)
          reject(new Error(`No authorization response at the callback within ${timeoutMs} ms`))
        }, timeoutMs)
        const settle = (result: CallbackResult) => {
          clearTimeout(timer)
          resolve(result)
        }
        waiting.push(settle)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

type InvalidationScope = 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'

/**
 * An in-memory OAuthClientProvider as an MCP host keeps one per server: what the SDK saves is
 * stored unchanged (including its `issuer` stamps) and handed back. The user-agent step is the
 * test's: `onRedirect` receives the authorization URL, as a desktop client would open it in
 * the browser. Histories are kept so the test can tell what the SDK did.
 */
export class InMemoryOAuthProvider implements OAuthClientProvider {
  onRedirect: (authorizationUrl: URL) => Promise<void> = async () => {
    throw new Error('No browser step set for this authorization')
  }
  readonly redirects: URL[] = []
  readonly states: string[] = []
  readonly savedTokens: OAuthTokens[] = []
  readonly invalidations: InvalidationScope[] = []
  private client: OAuthClientInformationMixed | undefined
  private stored: OAuthTokens | undefined
  private verifier: string | undefined

  constructor(
    private readonly callbackUrl: string,
    private readonly metadata: OAuthClientMetadata,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.metadata
  }

  /** A fresh state per authorization, remembered so the callback's echo can be checked. */
  state(): string {
    const state = randomBytes(16).toString('base64url')
    this.states.push(state)
    return state
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information
  }

  tokens(): OAuthTokens | undefined {
    return this.stored
  }

  saveTokens(tokens: OAuthTokens): void {
    this.stored = tokens
    this.savedTokens.push(tokens)
  }

  /** Replaces the stored tokens (e.g. to make the access token stale and force a refresh). */
  replaceTokens(tokens: OAuthTokens | undefined): void {
    this.stored = tokens
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.redirects.push(authorizationUrl)
    await this.onRedirect(authorizationUrl)
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No PKCE code verifier saved')
    return this.verifier
  }

  /** The SDK calls this when the server refuses what was stored (invalid_grant, invalid_client). */
  invalidateCredentials(scope: InvalidationScope): void {
    this.invalidations.push(scope)
    if (scope === 'all' || scope === 'client') this.client = undefined
    if (scope === 'all' || scope === 'tokens') this.stored = undefined
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined
  }
}

export interface RecordedCall {
  method: string
  /** Path and query, relative to the server. */
  path: string
  status: number
  /** `grant_type` of a token request, so refreshes can be told from code exchanges. */
  grantType?: string
}

/**
 * A fetch that records every request the SDK makes (discovery, registration, token, MCP), so
 * the test can assert which steps actually ran over HTTP rather than trusting the outcome.
 */
export function recordingFetch(): { fetch: FetchLike; calls: RecordedCall[] } {
  const calls: RecordedCall[] = []
  const recorded: FetchLike = async (url, init) => {
    const response = await fetch(url, init)
    const target = new URL(url)
    const body = init?.body
    const grantType = body instanceof URLSearchParams ? body.get('grant_type') : null
    calls.push({
      method: init?.method ?? 'GET',
      path: `${target.pathname}${target.search}`,
      status: response.status,
      ...(grantType ? { grantType } : {}),
    })
    return response
  }
  return { fetch: recorded, calls }
}

/** A form POST as RFC 6749 clients send it, for the direct token and revocation checks. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  })
}

/** One raw JSON-RPC `tools/list` at the MCP endpoint, to see the HTTP answer the SDK would get. */
export function rawToolsList(mcpUrl: URL, accessToken: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  })
}

const run = promisify(execFile)

/**
 * `npm run --silent admin -- <args> --json` on a data directory, as an operator sets up an
 * installation before first start; returns the command's JSON answer.
 */
export async function runAdmin(
  args: string[],
  env: { DATA_DIR: string; AUTH_SECRET: string },
): Promise<Record<string, unknown>> {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args, '--json'], {
    cwd: process.cwd(),
    // Not the test runner's NODE_ENV=test: the CLI as an operator runs it.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'development', ...env },
    timeout: 30_000,
  })
  return JSON.parse(stdout) as Record<string, unknown>
}
