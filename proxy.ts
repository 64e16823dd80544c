import { type NextRequest, NextResponse } from 'next/server'
import { contentSecurityPolicy } from '@/lib/http/content-security-policy'

/**
 * The OAuth authorization endpoint writes its own pages and policy: Chrome applies form-action
 * to the redirect that follows the consent form, which must reach the client's redirect URI on
 * another origin.
 */
function ownsItsPolicy(pathname: string): boolean {
  return pathname.startsWith('/oauth/')
}

function withNonce(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')
  const policy = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV !== 'production' })
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('Content-Security-Policy', policy)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('Content-Security-Policy', policy)
  return response
}

/**
 * Runs before every page: a fresh nonce per request for the Content-Security-Policy
 * (Next reads it from the request's policy header and puts it on its own scripts), and HSTS
 * when the service is reached over https in production.
 */
export function proxy(request: NextRequest): NextResponse {
  const response = ownsItsPolicy(request.nextUrl.pathname) ? NextResponse.next() : withNonce(request)
  const https =
    request.nextUrl.protocol === 'https:' ||
    request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https'
  if (process.env.NODE_ENV === 'production' && https)
    response.headers.set('Strict-Transport-Security', 'max-age=63072000; includeSubDomains')
  return response
}

export const config = {
  // Pages only: static build output and the recorder bundle carry no page, and the JSON APIs
  // (ingest, Data API, MCP, OAuth endpoints) should not pay for a proxy on every request.
  matcher: [{ source: '/((?!api/|_next/static|_next/image|favicon.ico|sdk.js).*)' }],
}
