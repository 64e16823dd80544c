import { getConfig } from '@/lib/config'

/**
 * next-auth 4 answers some hostile input with a 500 instead of a refusal: an `error` parameter
 * put into a Location header unencoded, a JSON body that does not parse, and a callback URL
 * (query or cookie) that is no http(s) address, which it reports as a server configuration
 * error on every request of a browser holding such a cookie. These are dealt with before the
 * request reaches it (the cookie by the route, through Next's cookie store, which is where
 * next-auth reads it), so it only ever sees input it refuses the ordinary way.
 */

const ERROR_CODE = /^[A-Za-z]{1,64}$/

/** next-auth's error page is our sign-in page; only its own one-word codes are passed on. */
export function signInErrorRedirect(url: URL): Response {
  const code = url.searchParams.get('error') ?? ''
  const target = new URL('/login', getConfig().baseUrl)
  target.searchParams.set('error', ERROR_CODE.test(code) ? code : 'Default')
  return new Response(null, {
    status: 302,
    headers: { Location: target.toString(), 'Cache-Control': 'no-store' },
  })
}

/** next-auth's own test for a callback URL: relative to our origin or an absolute http(s) one. */
export function isHttpUrl(value: string, base: string): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith('/') ? base : undefined).protocol)
  } catch {
    return false
  }
}

export const CALLBACK_COOKIE = /(^|-)next-auth\.callback-url$/

function parsesAsObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/** The request as next-auth should see it, or null when it needs no change. */
export async function refineAuthRequest(
  req: Request,
): Promise<{ url: string; init: { method: string; headers: Headers; body?: string } } | null> {
  const base = getConfig().baseUrl
  const url = new URL(req.url)
  const headers = new Headers(req.headers)
  let changed = false

  const callbackUrl = url.searchParams.get('callbackUrl')
  if (callbackUrl !== null && !isHttpUrl(callbackUrl, base)) {
    url.searchParams.delete('callbackUrl')
    changed = true
  }

  let body: string | undefined
  const json = headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/json'
  if (req.method === 'POST' && json) {
    // Read here, so the request is rebuilt with it; a body that is no JSON object carries no
    // CSRF token either, and is refused as such.
    body = await req.text()
    if (!parsesAsObject(body)) body = '{}'
    changed = true
  }
  if (!changed) return null
  if (body === undefined && req.method !== 'GET' && req.method !== 'HEAD') body = await req.text()
  return { url: url.toString(), init: { method: req.method, headers, body } }
}
