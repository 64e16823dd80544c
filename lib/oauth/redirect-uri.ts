import type { Config } from '@/lib/config'

type RedirectConfig = Pick<Config['oauth'], 'hostedRedirectOrigins' | 'extraRedirectUris'>

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])
/** RFC 8252 §7.3 / OAuth 2.1: only loopback IP literals may change port at run time. */
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]'])
const MAX_URI_LENGTH = 2048

function parse(uri: string): URL | null {
  try {
    return new URL(uri)
  } catch {
    return null
  }
}

/**
 * The registration allowlist (spec, docs/design/oauth-mcp.md decision 5): any path on the hosted HTTPS
 * origins, `http` loopback hosts with any port and path, or one of the operator's exact
 * extra URIs (private-use schemes such as Cursor's). Never credentials or a fragment.
 */
export function isAllowedRedirectUri(uri: string, config: RedirectConfig): boolean {
  if (uri.length > MAX_URI_LENGTH || uri.includes('#')) return false
  // The URL parser drops tabs, newlines and surrounding spaces; the stored string keeps them.
  if (/\s/.test(uri) || [...uri].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    return false
  // Exact strings the operator chose; they were checked for fragments at start-up.
  if (config.extraRedirectUris.includes(uri)) return true
  const url = parse(uri)
  if (!url || url.username || url.password || url.hash) return false
  // `https://user@host` parses with a username, but `https://@host` does not: refuse both.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri)) return false
  if (url.protocol === 'https:') return config.hostedRedirectOrigins.includes(url.origin)
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname)
  return false
}

/**
 * Authorize-time matching (docs/design/oauth-mcp.md decision 6): the exact registered string, except
 * that the port of an `http` loopback IP redirect may differ (VS Code and others pick a free
 * port at run time). Returns the URI to redirect to (the requested one) or null.
 */
export function matchRedirectUri(requested: string, registered: readonly string[]): string | null {
  if (registered.includes(requested)) return requested
  const url = parse(requested)
  if (url?.protocol !== 'http:' || !LOOPBACK_IPS.has(url.hostname)) return null
  if (url.username || url.password || url.hash || requested.includes('#')) return null
  const withoutPort = (u: URL) => {
    const copy = new URL(u.href)
    copy.port = ''
    return copy.href
  }
  const wanted = withoutPort(url)
  for (const candidate of registered) {
    const other = parse(candidate)
    if (other?.protocol === 'http:' && LOOPBACK_IPS.has(other.hostname) && withoutPort(other) === wanted)
      return requested
  }
  return null
}
