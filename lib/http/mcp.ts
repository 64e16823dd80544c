import { type Config, getConfig } from '@/lib/config'
import { type Principal, resolveBearer } from '@/lib/credentials/resolve-bearer'
import { SCOPES } from '@/lib/credentials/scopes'
import { getDb } from '@/lib/db'
import { annotateLogContext } from '@/lib/log'
import type { McpRequest } from '@/lib/mcp/handle'
import { canonicalResource, issuer } from '@/lib/oauth/metadata'
import { corsHeaders, corsPreflight, MCP_CORS } from './cors'
import { MISSING_TOKEN } from './data-api'
import { errorResponse, json } from './respond'
import { traced } from './traced'

/** Where 401 challenges point: the path-inserted protected-resource document (RFC 9728). */
export function mcpResourceMetadataUrl(config: Pick<Config, 'baseUrl'> = getConfig()): string {
  return `${issuer(config)}/.well-known/oauth-protected-resource/api/mcp`
}

export const WRONG_RESOURCE = 'Access token was not issued for this resource'

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

/**
 * RFC 6750 §3: `error` only when a bearer token was presented at all. The `scope` offers
 * write access at first connect (MCP clients ask for the challenge's scope, and hosted ones
 * rarely step up later, docs/design/oauth-mcp.md decision 12); the user still decides on the consent page.
 */
export const MCP_CHALLENGE_SCOPE = 'read:service write:issues'

function unauthorized(presented: boolean, description: string): Response {
  const params = [
    ...(presented ? ['error="invalid_token"'] : []),
    `scope="${MCP_CHALLENGE_SCOPE}"`,
    `resource_metadata="${mcpResourceMetadataUrl()}"`,
  ]
  return json({ error: 'invalid_token', error_description: description }, 401, {
    'WWW-Authenticate': `Bearer ${params.join(', ')}`,
  })
}

function insufficientScope(scope: string): Response {
  return json({ error: 'insufficient_scope', error_description: `Missing required scope: ${scope}` }, 403, {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${mcpResourceMetadataUrl()}"`,
  })
}

/** Tokens are bound to one resource; one trailing slash is tolerated, as at the token endpoint. */
function boundElsewhere(principal: Principal): boolean {
  if (principal.resource === null) return false
  return principal.resource.replace(/\/$/, '') !== canonicalResource(getConfig())
}

/**
 * The MCP transport spec's defence against DNS rebinding: a request whose Origin header names a
 * site other than this service (or one MCP_ALLOWED_ORIGINS names) is refused before anything
 * else. Clients outside a browser (the SDK, CLI agents, hosted agents' servers) send no Origin
 * and are not affected; `null` (sandboxed frames, file pages) is a foreign origin too.
 */
function originAllowed(origin: string | null, config: Config): boolean {
  if (origin === null) return true
  let parsed: string
  try {
    parsed = new URL(origin).origin
  } catch {
    return false
  }
  return parsed === new URL(config.baseUrl).origin || config.mcpAllowedOrigins.includes(parsed)
}

/** 403 with a JSON-RPC error that has no id, as the transport spec suggests. */
function foreignOrigin(): Response {
  return json(
    {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint.' },
      id: null,
    },
    403,
  )
}

// The syntax resolveBearer accepts; needed here to tell "no token" from "a bad token".
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

/**
 * The MCP surface: Origin (when a browser sends one) → bearer credential (OAuth access token bound to this resource, `svc_api_`
 * or `svc_mcp_` key) → `read:service` → handler. Failures at this level are HTTP answers
 * with the challenges MCP clients use for discovery; everything inside the protocol (tool
 * errors, rate limits) is the handler's business. Every answer carries CORS headers and a
 * request id.
 */
export function mcpRoute(handler: (ctx: McpRequest) => Promise<Response>) {
  return (req: Request): Promise<Response> =>
    traced('mcp', req, async (requestId) => {
      // The SDK's transport writes its answers without Cache-Control; they are one organization's data.
      const headers: Record<string, string> = {
        ...corsHeaders(MCP_CORS),
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
      }
      let response: Response
      try {
        if (!originAllowed(req.headers.get('origin'), getConfig()))
          return withHeaders(foreignOrigin(), headers)
        const authorization = req.headers.get('authorization')
        const token = BEARER.exec(authorization ?? '')?.[1]
        const db = await getDb()
        const principal = await resolveBearer(db, authorization)
        if (!principal || !token) response = unauthorized(Boolean(token), MISSING_TOKEN)
        else if (boundElsewhere(principal)) response = unauthorized(true, WRONG_RESOURCE)
        else if (!principal.scopes.includes(SCOPES.read)) response = insufficientScope(SCOPES.read)
        else {
          annotateLogContext({ organizationId: principal.organizationId })
          response = await handler({ req, principal, token, db, requestId })
        }
      } catch (error) {
        response = errorResponse(error, 'mcp', { requestId })
      }
      return withHeaders(response, headers)
    })
}

/** CORS preflight; never requires a credential (docs/design/oauth-mcp.md decision 11). */
export const mcpPreflight = corsPreflight(MCP_CORS)

/**
 * Stateless mode has no server-initiated stream (GET) and no session to end (DELETE). The
 * SDK client treats a 405 on GET as "no SSE stream offered" and carries on.
 */
export function mcpMethodNotAllowed(): Response {
  return json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, 405, {
    ...corsHeaders(MCP_CORS),
    Allow: 'POST, OPTIONS',
  })
}
