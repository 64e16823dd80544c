import { createHash } from 'node:crypto'
import { type IngestPrincipal, MISSING_API_KEY } from '@/lib/credentials/resolve-ingest-key'
import { getDb } from '@/lib/db'
import {
  AppError,
  MalformedBodyError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '@/lib/errors'
import { admitKeyLookup, resolveAdmittedKey } from '@/lib/ingest/key-lookup-budget'
import { INGEST_LIMITS, INGEST_RATE_LIMIT, INVALID_BATCH, RATE_LIMITED } from '@/lib/ingest/limits'
import { annotateLogContext, logger } from '@/lib/log'
import { getRateLimiter } from '@/lib/ratelimit'
import { readBody } from './body'
import { clientAddress } from './client-address'
import { json, rateLimitHeaders } from './respond'
import { traced } from './traced'

/**
 * CORS for browsers on customers' sites: any origin, no cookies. fetch() with the key header
 * or a gzip Content-Encoding needs the preflight; sendBeacon (text/plain, no custom header)
 * does not.
 */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Content-Encoding, X-Service-Api-Key',
  'Access-Control-Expose-Headers':
    'Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
  'Access-Control-Max-Age': '86400',
} as const

const ACCEPTED_TYPES = ['application/json', 'text/plain']

export interface IngestContext {
  principal: IngestPrincipal
  body: Buffer
  requestId: string
}

function render(error: unknown, requestId: string): Response {
  if (error instanceof UnauthorizedError) return json({ error: error.message }, 401)
  if (error instanceof ValidationError) return json({ error: INVALID_BATCH, details: error.details }, 400)
  if (error instanceof MalformedBodyError)
    return json(
      { error: INVALID_BATCH, details: [{ path: [], message: error.message, code: 'invalid_json' }] },
      400,
    )
  if (error instanceof PayloadTooLargeError) return json({ error: error.message }, 413)
  if (error instanceof UnsupportedMediaTypeError) return json({ error: error.message }, 415)
  if (error instanceof RateLimitedError)
    return json({ error: error.message }, 429, { 'Retry-After': String(error.retryAfterSeconds) })
  if (!(error instanceof AppError)) logger.error({ err: error }, 'ingest request failed')
  return json({ error: 'Internal server error', requestId }, 500)
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

/** Answers CORS preflight for the ingest endpoint; never requires a key. */
export function ingestPreflight(): Response {
  return new Response(null, { status: 204, headers: CORS_HEADERS })
}

/**
 * The ingest surface: key (header or `api_key` query), per-key rate limit, key lookup within
 * the per-address and shared budgets, body limits and decoding, then the handler; every
 * answer gets CORS headers and a request id, and every failure the spec's body.
 */
export function ingestRoute(handler: (ctx: IngestContext) => Promise<Response>) {
  return (req: Request): Promise<Response> =>
    traced('ingest', req, async (requestId) => {
      const headers: Record<string, string> = { ...CORS_HEADERS, 'X-Request-Id': requestId }
      try {
        const apiKey = req.headers.get('x-service-api-key') ?? new URL(req.url).searchParams.get('api_key')
        if (!apiKey?.trim()) throw new UnauthorizedError(MISSING_API_KEY)
        const lookup = {
          key: apiKey,
          keyId: createHash('sha256').update(apiKey.trim()).digest('base64url'),
          address: clientAddress(req.headers),
        }
        // A key not recently seen first needs its address's lookup budget; then each key is
        // limited by its hash before any lookup, so repeating one made-up key is refused
        // without touching the database, and rotating them meets the budget.
        const knownAs = await admitKeyLookup(lookup)
        const limit = await getRateLimiter().limit(INGEST_RATE_LIMIT, lookup.keyId)
        Object.assign(headers, rateLimitHeaders(limit))
        if (!limit.success) throw new RateLimitedError(RATE_LIMITED, limit.retryAfterSeconds)
        const principal = await resolveAdmittedKey(await getDb(), lookup, knownAs)
        annotateLogContext({ organizationId: principal.organizationId })
        const type = req.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
        if (type && !ACCEPTED_TYPES.includes(type))
          throw new UnsupportedMediaTypeError('Content-Type must be application/json or text/plain')
        const body = await readBody(req, INGEST_LIMITS)
        return withHeaders(await handler({ principal, body, requestId }), headers)
      } catch (error) {
        return withHeaders(render(error, requestId), headers)
      }
    })
}
