/**
 * CORS for every cross-origin surface, one policy each. All of them allow any origin and
 * never credentials: callers authenticate with keys and tokens, not cookies, so an open
 * origin grants a page nothing its own code could not send (docs/design/oauth-mcp.md decision 11).
 * Next answers OPTIONS by itself without these headers, so every such route exports an
 * `OPTIONS` built here; a preflight never needs authentication.
 */
export interface CorsPolicy {
  /** The methods besides OPTIONS, which is always added. */
  methods: readonly string[]
  allowHeaders: readonly string[]
  exposeHeaders: readonly string[]
}

/**
 * The public OAuth surface (discovery, register, token, revoke), so browser-based MCP clients
 * can discover, register, exchange and revoke.
 */
export const oauthCors = (methods: readonly string[]): CorsPolicy => ({
  methods,
  allowHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'],
  exposeHeaders: ['WWW-Authenticate', 'Retry-After', 'X-Request-Id'],
})

/**
 * Ingest, for browsers on customers' sites. fetch() with the key header or a gzip
 * Content-Encoding needs the preflight; sendBeacon (text/plain, no custom header) does not.
 */
export const INGEST_CORS: CorsPolicy = {
  methods: ['POST'],
  allowHeaders: ['Content-Type', 'Content-Encoding', 'X-Service-Api-Key'],
  exposeHeaders: [
    'Retry-After',
    'X-Request-Id',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
  ],
}

/**
 * MCP, for browser-based clients (inspectors, hosted agents), which must read
 * WWW-Authenticate to find the authorization server.
 */
export const MCP_CORS: CorsPolicy = {
  methods: ['POST', 'GET', 'DELETE'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
  exposeHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'X-Request-Id'],
}

/** Public documents anyone's page may read (the OpenAPI document, the recorder script): no preflight. */
export const ANY_ORIGIN = { 'Access-Control-Allow-Origin': '*' } as const

export function corsHeaders(policy: CorsPolicy): Record<string, string> {
  return {
    ...ANY_ORIGIN,
    'Access-Control-Allow-Methods': [...policy.methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': policy.allowHeaders.join(', '),
    'Access-Control-Expose-Headers': policy.exposeHeaders.join(', '),
    'Access-Control-Max-Age': '86400',
  }
}

export function withCors(response: Response, policy: CorsPolicy): Response {
  for (const [name, value] of Object.entries(corsHeaders(policy))) response.headers.set(name, value)
  return response
}

/** An OPTIONS handler: 204 with the CORS headers, whatever the request carries. */
export function corsPreflight(policy: CorsPolicy) {
  // Built once: a Response copies its init headers, so every answer may share them.
  const headers = corsHeaders(policy)
  return (): Response => new Response(null, { status: 204, headers })
}
