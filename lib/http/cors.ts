/**
 * CORS for the public OAuth surface (docs/design/oauth-mcp.md decision 11): any origin, never
 * credentials, so browser-based MCP clients can discover, register, exchange and revoke.
 * Next answers OPTIONS by itself without these headers, so every route exports
 * `OPTIONS = corsPreflight(...)`; a preflight never needs authentication.
 */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'MCP-Protocol-Version']
const EXPOSED_HEADERS = ['WWW-Authenticate', 'Retry-After', 'X-Request-Id']

export function corsHeaders(methods: readonly string[], extra: { allowHeaders?: string[] } = {}) {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': [...ALLOWED_HEADERS, ...(extra.allowHeaders ?? [])].join(', '),
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
    'Access-Control-Max-Age': '86400',
  }
}

export function withCors(response: Response, methods: readonly string[]): Response {
  for (const [name, value] of Object.entries(corsHeaders(methods))) response.headers.set(name, value)
  return response
}

/** An OPTIONS handler: 204 with the CORS headers, whatever the request carries. */
export function corsPreflight(methods: readonly string[], extra: { allowHeaders?: string[] } = {}) {
  return (): Response => new Response(null, { status: 204, headers: corsHeaders(methods, extra) })
}
