import { decode } from 'next-auth/jwt'
import type { Db } from '@/db/client'
import { getAuthOptions } from '@/lib/auth/options'
import { getDb } from '@/lib/db'
import { AppError, isUuid, MalformedBodyError, PayloadTooLargeError } from '@/lib/errors'
import { logger } from '@/lib/log'
import type { PresentedClient } from '@/lib/oauth/authenticate-client'
import { InvalidClientError, InvalidRequestError, OAuthError, TooManyRequestsError } from '@/lib/oauth/errors'
import type { AuthorizeUser } from '@/lib/oauth/start-authorization'
import { getUserWithOrganizations } from '@/lib/users/memberships'
import { readBody } from './body'
import { withCors } from './cors'
import { json, newRequestId } from './respond'

const FORM_LIMITS = {
  maxWireBytes: 16_384,
  maxDecodedBytes: 65_536,
  tooLargeMessage: 'Request body too large',
}

export interface OAuthContext {
  req: Request
  db: Db
  requestId: string
}

/** RFC 6749 §5.2 bodies; `WWW-Authenticate: Basic` when the client tried Basic (§5.2). */
function render(error: unknown, requestId: string): Response {
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = {}
    if (error instanceof InvalidClientError && error.usedBasic)
      headers['WWW-Authenticate'] = 'Basic realm="oauth"'
    if (error instanceof TooManyRequestsError) headers['Retry-After'] = String(error.retryAfterSeconds)
    return json({ error: error.error, error_description: error.message }, error.status, headers)
  }
  if (!(error instanceof AppError)) logger.error({ err: error, requestId }, 'OAuth request failed')
  return json({ error: 'server_error', error_description: 'Internal server error' }, 500)
}

/**
 * The OAuth API surface (register, token, revoke): handler → JSON, any throw rendered in
 * the RFC shape; every answer is CORS-open and uncacheable (RFC 6749 §5.1 asks for
 * `Cache-Control: no-store` and `Pragma: no-cache`).
 */
export function oauthEndpoint(handler: (ctx: OAuthContext) => Promise<Response>) {
  return async (req: Request): Promise<Response> => {
    const requestId = newRequestId()
    let response: Response
    try {
      response = await handler({ req, db: await getDb(), requestId })
    } catch (error) {
      response = render(error, requestId)
    }
    response.headers.set('Cache-Control', 'no-store')
    response.headers.set('Pragma', 'no-cache')
    response.headers.set('X-Request-Id', requestId)
    return withCors(response, ['POST'])
  }
}

async function readCapped(req: Request): Promise<Buffer> {
  try {
    return await readBody(req, FORM_LIMITS)
  } catch (error) {
    if (error instanceof PayloadTooLargeError || error instanceof MalformedBodyError)
      throw new InvalidRequestError(error.message)
    throw error
  }
}

/** RFC 6749 §4.1.3 / RFC 7009 §2.1: parameters in an x-www-form-urlencoded body. */
export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded')
    throw new InvalidRequestError('Content-Type must be application/x-www-form-urlencoded')
  return new URLSearchParams((await readCapped(req)).toString('utf8'))
}

/** A JSON body, or null when it is not JSON at all (the caller picks its error). */
export async function readJson(req: Request): Promise<unknown> {
  const bytes = await readCapped(req)
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    return null
  }
}

const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '))

/** Client credentials from the form and an HTTP Basic header (RFC 6749 §2.3.1 encoding). */
export function presentedClient(req: Request, form: URLSearchParams): PresentedClient {
  const presented: PresentedClient = {
    clientId: form.get('client_id') || undefined,
    clientSecret: form.get('client_secret') || undefined,
  }
  if (form.getAll('client_id').length > 1 || form.getAll('client_secret').length > 1)
    throw new InvalidRequestError('Client credentials must not be repeated')
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(req.headers.get('authorization') ?? '')
  if (!match) return presented
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  try {
    if (colon < 1) throw new Error('no client id')
    presented.basic = {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    }
  } catch {
    throw new InvalidClientError(undefined, true)
  }
  return presented
}

function cookies(req: Request): Map<string, string> {
  const jar = new Map<string, string>()
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq < 1) continue
    try {
      jar.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()))
    } catch {
      // a cookie that is not ours and not well encoded
    }
  }
  return jar
}

/**
 * The dashboard user behind the request's next-auth session cookie (JWT strategy), read from
 * the Request itself rather than next/headers so that the authorize route works the same in
 * Next and when a test calls it. Chunked cookies (`name.0`, `name.1`) are joined as next-auth
 * does; an Authorization header is never considered.
 */
export async function sessionUser(req: Request, db: Db): Promise<AuthorizeUser | null> {
  const options = getAuthOptions()
  const secure = process.env.NEXTAUTH_URL?.startsWith('https://') ?? false
  const name = `${secure ? '__Secure-' : ''}next-auth.session-token`
  const chunks = [...cookies(req)].filter(([key]) => key === name || key.startsWith(`${name}.`))
  const index = (key: string) => (key === name ? -1 : Number(key.slice(name.length + 1)))
  chunks.sort(([a], [b]) => index(a) - index(b))
  const token = chunks.map(([, value]) => value).join('')
  if (!token || !options.secret) return null
  try {
    const payload = await decode({ token, secret: options.secret })
    if (typeof payload?.sub !== 'string' || !isUuid(payload.sub)) return null
    return await getUserWithOrganizations(db, payload.sub)
  } catch {
    return null
  }
}
