import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { getDb } from '@/lib/db'
import { RateLimitedError, UnauthorizedError, UnsupportedMediaTypeError } from '@/lib/errors'
import { admitKeyLookup, resolveAdmittedKey } from '@/lib/ingest/key-lookup-budget'
import { INGEST_LIMITS, RATE_LIMITED } from '@/lib/ingest/limits'
import { type IngestPrincipal, MISSING_API_KEY } from '@/lib/ingest/resolve-ingest-key'
import { annotateLogContext } from '@/lib/log'
import { getRateLimiter } from '@/lib/ratelimit'
import { clientAddress, type HeaderReader } from '@/lib/ratelimit/client-address'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { type BodyLimits, readBody, readNodeBody } from './body'
import { corsHeaders, corsPreflight, INGEST_CORS } from './cors'
import { nodeHeaderReader, sendToNode } from './node-door'
import { errorResponse, rateLimitHeaders } from './respond'
import { traced } from './traced'

const ACCEPTED_TYPES = new Set(['application/json', 'text/plain'])
// The same on every answer: built once, copied per request (each answer gets its own headers).
const INGEST_CORS_HEADERS = Object.freeze(corsHeaders(INGEST_CORS))

export interface IngestContext {
  principal: IngestPrincipal
  body: Buffer
  requestId: string
  /** The request's User-Agent header (ingest marks automated traffic by it too). */
  userAgent: string | null
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

/** Answers CORS preflight for the ingest endpoint; never requires a key. */
export const ingestPreflight = corsPreflight(INGEST_CORS)

/**
 * What the ingest surface reads of a request, whichever door it came through: the web
 * `Request` of an App Router route, or Node's own request on the Pages Router route that
 * serves `/api/sdk/replay` (docs/capacity.md#the-ingest-door).
 */
interface IngestRequest {
  method: string
  /** Absolute, or the path and query as sent. */
  url: string
  headers: HeaderReader
  readBody(limits: BodyLimits): Promise<Buffer>
}

export type IngestHandler = (ctx: IngestContext) => Promise<Response>

/**
 * The ingest surface: key (header or `api_key` query), per-key rate limit, key lookup within
 * the per-address and shared budgets, body limits and decoding, then the handler; every
 * answer gets CORS headers and a request id, and every failure the spec's body.
 */
function answerIngest(req: IngestRequest, handler: IngestHandler): Promise<Response> {
  return traced('ingest', req, async (requestId) => {
    const headers: Record<string, string> = { ...INGEST_CORS_HEADERS, 'X-Request-Id': requestId }
    try {
      const apiKey =
        req.headers.get('x-service-api-key') ??
        new URL(req.url, 'http://ingest.invalid').searchParams.get('api_key')
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
      const limit = await getRateLimiter().limit(RATE_LIMITS.ingest, lookup.keyId)
      Object.assign(headers, rateLimitHeaders(limit))
      if (!limit.success) throw new RateLimitedError(RATE_LIMITED, limit.retryAfterSeconds)
      const principal = await resolveAdmittedKey(await getDb(), lookup, knownAs)
      annotateLogContext({ organizationId: principal.organizationId })
      const type = req.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
      if (type && !ACCEPTED_TYPES.has(type))
        throw new UnsupportedMediaTypeError('Content-Type must be application/json or text/plain')
      const body = await req.readBody(INGEST_LIMITS)
      const userAgent = req.headers.get('user-agent')
      return withHeaders(await handler({ principal, body, requestId, userAgent }), headers)
    } catch (error) {
      return withHeaders(errorResponse(error, 'ingest', { requestId }), headers)
    }
  })
}

/** The ingest surface as an App Router route handler (web `Request` in, `Response` out). */
export function ingestRoute(handler: IngestHandler) {
  return (req: Request): Promise<Response> =>
    answerIngest(
      { method: req.method, url: req.url, headers: req.headers, readBody: (limits) => readBody(req, limits) },
      handler,
    )
}

/**
 * The same surface on Node's request and response, for a Pages Router API route with its body
 * parser off: the body is read straight from the socket's stream, without the web `Request`
 * and streams layer that an App Router route pays for on every request. Every answer, header
 * and error is the one `ingestRoute` gives (tests/integration/ingest.doors.test.ts).
 */
export function nodeIngestRoute(handler: IngestHandler) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const headers = nodeHeaderReader(req.headers)
    const response = await answerIngest(
      {
        method: req.method ?? 'POST',
        url: req.url ?? '/',
        headers,
        readBody: (limits) => readNodeBody(req, headers, limits),
      },
      handler,
    )
    await sendToNode(res, response, { requestBodyRead: req.complete })
  }
}
