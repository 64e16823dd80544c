import type { Db } from '@/db/client'
import { requestCookies, sessionUserFromCookies } from '@/lib/auth/session-cookie'
import { getDb } from '@/lib/db'
import { MalformedBodyError, PayloadTooLargeError } from '@/lib/errors'
import type { PresentedClient } from '@/lib/oauth/authenticate-client'
import { InvalidClientError, InvalidRequestError } from '@/lib/oauth/errors'
import type { AuthorizeUser } from '@/lib/oauth/start-authorization'
import { readBody } from './body'
import { corsHeaders, oauthCors } from './cors'
import { errorResponse } from './respond'
import { traced } from './traced'

/**
 * Every header an OAuth answer carries besides its request id, built once: the CORS policy's
 * joined lists and the no-store pair would otherwise be rebuilt on every token request.
 */
const ANSWER_HEADERS: readonly (readonly [string, string])[] = [
  ...Object.entries(corsHeaders(oauthCors(['POST']))),
  ['Cache-Control', 'no-store'],
  ['Pragma', 'no-cache'],
]

const BASIC_AUTHORIZATION = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i
const PLUS = /\+/g

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

/**
 * The OAuth API surface (register, token, revoke): handler → JSON, any throw rendered in
 * the RFC shape; every answer is CORS-open and uncacheable (RFC 6749 §5.1 asks for
 * `Cache-Control: no-store` and `Pragma: no-cache`).
 */
export function oauthEndpoint(handler: (ctx: OAuthContext) => Promise<Response>) {
  return (req: Request): Promise<Response> =>
    traced('oauth', req, async (requestId) => {
      let response: Response
      try {
        response = await handler({ req, db: await getDb(), requestId })
      } catch (error) {
        response = errorResponse(error, 'oauth', { requestId })
      }
      for (const [name, value] of ANSWER_HEADERS) response.headers.set(name, value)
      response.headers.set('X-Request-Id', requestId)
      return response
    })
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

const formDecode = (value: string) => decodeURIComponent(value.replace(PLUS, ' '))

/** Client credentials from the form and an HTTP Basic header (RFC 6749 §2.3.1 encoding). */
export function presentedClient(req: Request, form: URLSearchParams): PresentedClient {
  const presented: PresentedClient = {
    clientId: form.get('client_id') || undefined,
    clientSecret: form.get('client_secret') || undefined,
  }
  if (form.getAll('client_id').length > 1 || form.getAll('client_secret').length > 1)
    throw new InvalidRequestError('Client credentials must not be repeated')
  const match = BASIC_AUTHORIZATION.exec(req.headers.get('authorization') ?? '')
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

/**
 * The dashboard user behind the request's next-auth session cookie, read from the Request itself
 * rather than next/headers so that the authorize route works the same in Next and when a test
 * calls it; an Authorization header is never considered.
 */
export function sessionUser(req: Request, db: Db): Promise<AuthorizeUser | null> {
  return sessionUserFromCookies(requestCookies(req), db)
}
