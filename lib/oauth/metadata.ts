import type { Config } from '@/lib/config'
import { SCOPES } from '@/lib/credentials/scopes'
import { InvalidTargetError } from './errors'

/**
 * Every URL here comes from BASE_URL, never from Host or X-Forwarded-* (spoofable, and
 * wrong behind proxies). The issuer has no trailing slash and is used verbatim everywhere.
 */
type UrlConfig = Pick<Config, 'baseUrl'>

export function issuer(config: UrlConfig): string {
  return config.baseUrl.replace(/(?<!\/)\/+$/, '')
}

/** The MCP endpoint, the one resource (RFC 8707) tokens are bound to. */
export function canonicalResource(config: UrlConfig): string {
  return `${issuer(config)}/api/mcp`
}

/** RFC 8414 metadata: the spec's fields plus RFC 9207's `iss` flag. */
export function authorizationServerMetadata(config: UrlConfig) {
  const base = issuer(config)
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/api/oauth/token`,
    registration_endpoint: `${base}/api/oauth/register`,
    revocation_endpoint: `${base}/api/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [SCOPES.read],
    authorization_response_iss_parameter_supported: true,
  }
}

/** RFC 9728 metadata of the MCP endpoint, exactly the spec's three fields. */
export function protectedResourceMetadata(config: UrlConfig) {
  return {
    resource: canonicalResource(config),
    authorization_servers: [issuer(config)],
    scopes_supported: [SCOPES.read],
  }
}

/**
 * RFC 8707 `resource`: omitted → the canonical resource (several clients omit it); the
 * canonical resource with or without one trailing slash → itself; anything else is
 * `invalid_target`. Repeating the parameter asks for several resources, which we never serve.
 */
export function resolveResource(values: readonly string[], config: UrlConfig): string {
  const canonical = canonicalResource(config)
  if (values.length === 0) return canonical
  const [value] = values
  if (values.length > 1 || (value !== canonical && value !== `${canonical}/`))
    throw new InvalidTargetError('The requested resource is not served by this authorization server')
  return canonical
}

/**
 * The paths a metadata document answers on: the document itself and the path-inserted form
 * for the MCP endpoint (`/.well-known/oauth-protected-resource/api/mcp`) that clients probe.
 * Anything else is 404 (not 401): SDK clients fall back on 404.
 */
export function isMetadataSuffix(segments: readonly string[] | undefined): boolean {
  const suffix = (segments ?? []).join('/')
  return suffix === '' || suffix === 'api/mcp'
}
