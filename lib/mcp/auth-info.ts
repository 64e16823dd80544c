import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import type { Principal } from '@/lib/credentials/resolve-bearer'

/**
 * The resolved credential in the SDK's own AuthInfo shape, handed to the transport so that
 * every request handler receives it as `extra.authInfo` (docs/design/oauth-mcp.md decision 14). The
 * principal itself rides in `extra`: it is what the domain functions take.
 */
export function toAuthInfo(principal: Principal, token: string): AuthInfo {
  return {
    token,
    // Static keys have no OAuth client; the key itself is the caller.
    clientId: principal.clientId ?? principal.credentialId,
    scopes: principal.scopes,
    ...(principal.resource ? { resource: new URL(principal.resource) } : {}),
    extra: { principal },
  }
}

function isPrincipal(value: unknown): value is Principal {
  if (!value || typeof value !== 'object') return false
  const candidate = value as Partial<Principal>
  return (
    typeof candidate.organizationId === 'string' &&
    typeof candidate.rateLimitKey === 'string' &&
    Array.isArray(candidate.scopes)
  )
}

/** The principal of a tool call; its absence is our bug (the route always passes one), not the caller's. */
export function principalOf(authInfo: AuthInfo | undefined): Principal {
  const principal = authInfo?.extra?.principal
  if (!isPrincipal(principal)) throw new Error('MCP tool call without a resolved principal')
  return principal
}
