import { type NextRequest, NextResponse } from 'next/server'
import { type Config, getConfig } from '@/lib/config'
import { contentSecurityPolicy } from '@/lib/http/content-security-policy'
import { REQUEST_PATH_HEADER } from '@/lib/http/request-path'

/** Two years; the HSTS preload list asks for at least one. */
const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains'

/**
 * The OAuth authorization endpoint writes its own pages and policy: Chrome applies form-action
 * to the redirect that follows the consent form, which must reach the client's redirect URI on
 * another origin.
 */
function ownsItsPolicy(pathname: string): boolean {
  return pathname.startsWith('/oauth/')
}

// A share link's player made to be framed on other sites (docs/sharing.md#embedding); its
// token is one path segment of base64url.
const EMBED_PATH = /^\/share\/[A-Za-z0-9_-]{1,100}\/embed\/?$/

/** Any site may frame the embeddable player: the link's holder decides where to show it. */
function frameAncestors(pathname: string): string | undefined {
  return EMBED_PATH.test(pathname) ? '*' : undefined
}

/** The page asked for, as the browser shows it: without the `_rsc` marker of client navigations. */
function requestedPath(request: NextRequest): string {
  const search = new URLSearchParams(request.nextUrl.search)
  search.delete('_rsc')
  return `${request.nextUrl.pathname}${search.size > 0 ? `?${search}` : ''}`
}

function withNonce(request: NextRequest, config: Pick<Config, 'nodeEnv'>): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')
  const policy = contentSecurityPolicy({
    nonce,
    dev: config.nodeEnv !== 'production',
    frameAncestors: frameAncestors(request.nextUrl.pathname),
  })
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('Content-Security-Policy', policy)
  requestHeaders.set(REQUEST_PATH_HEADER, requestedPath(request))
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('Content-Security-Policy', policy)
  return response
}

/**
 * HSTS follows the configured public address rather than the request: behind a TLS-terminating
 * proxy that sends no X-Forwarded-Proto the request looks like http although the browser speaks
 * https, and without a proxy that header is the client's to forge. Browsers ignore HSTS received
 * over plain http, so sending it on an internal http request does no harm. Development servers
 * never send it: a developer's localhost must not be pinned to https.
 */
function wantsHsts(config: Pick<Config, 'nodeEnv' | 'baseUrl'>): boolean {
  return config.nodeEnv === 'production' && config.baseUrl.startsWith('https://')
}

/**
 * Runs before every page: a fresh nonce per request for the Content-Security-Policy
 * (Next reads it from the request's policy header and puts it on its own scripts), the
 * requested path for the dashboard layout's sign-in redirect, and HSTS when the service's
 * public address is https in production.
 */
export function proxy(request: NextRequest): NextResponse {
  const config = getConfig()
  const response = ownsItsPolicy(request.nextUrl.pathname) ? NextResponse.next() : withNonce(request, config)
  if (wantsHsts(config)) response.headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY)
  return response
}

export const config = {
  // Pages only: static build output and the recorder bundle carry no page, and the JSON APIs
  // (ingest, Data API, MCP, OAuth endpoints) should not pay for a proxy on every request.
  matcher: [{ source: '/((?!api/|_next/static|_next/image|favicon.ico|sdk.js|sdk-network.js|sdk.tgz).*)' }],
}
