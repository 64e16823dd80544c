import { JsonText } from '@/lib/api/json-text'
import type { ApiRequest } from '@/lib/api/request'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { getDb } from '@/lib/db'
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '@/lib/errors'
import { annotateLogContext } from '@/lib/log'
import { getRateLimiter } from '@/lib/ratelimit'
import { DATA_API_BUDGETS, type DataApiBudget } from '@/lib/ratelimit/policies'
import { parseJson } from '@/lib/validation'
import { type BodyLimits, readBody, readForm } from './body'
import { errorResponse, rateLimitHeaders } from './respond'
import { traced } from './traced'

export type DataApiScope =
  | 'read:service'
  | 'write:issues'
  | 'write:sourcemaps'
  | 'write:privacy'
  | 'write:verifications'

export const MISSING_TOKEN = 'Missing or invalid bearer token'

/** What a handler gets: the call as lib/api sees it, plus the request for handlers that need more. */
export interface DataApiContext<P> extends ApiRequest<P> {
  req: Request
  url: URL
  requestId: string
}

interface Access {
  scope: DataApiScope
  limit: DataApiBudget
  /**
   * The handler takes a JSON body (read within WRITE_BODY_LIMITS, after every check), or a
   * multipart/form-data body read whole within `bodyLimits` before it is parsed into FormData.
   */
  body?: 'json' | 'form'
  bodyLimits?: BodyLimits
  /**
   * The status of a successful answer: 201 for a route that creates something, 202 for one that
   * queues work (a privacy request), else 200.
   */
  status?: 200 | 201 | 202
}

/**
 * The headers of every successful answer, merged once per request into the one plain object
 * the Response is built from (json() in respond.ts builds a Headers and sets each afterwards).
 */
const SUCCESS_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }

const WRITE_BODY_LIMITS = {
  maxWireBytes: 64 * 1024,
  maxDecodedBytes: 64 * 1024,
  tooLargeMessage: 'Request body too large: at most 64 KiB',
}

/**
 * The Data API surface: bearer credential → rate limit (its headers on every answer that
 * has a credential) → scope → handler → JSON with Cache-Control: no-store. Any throw is
 * rendered here with the spec's status and message; nothing else writes an error body.
 * Dashboard cookies are never looked at.
 */
export function dataApiRoute<P = Record<string, never>>(
  access: Access,
  handler: (ctx: DataApiContext<P>) => Promise<unknown>,
) {
  return (req: Request, context?: { params: Promise<P> }): Promise<Response> =>
    traced('data-api', req, async (requestId) => {
      let headers: Record<string, string> = { 'X-Request-Id': requestId }
      try {
        const db = await getDb()
        const principal = await resolveBearer(db, req.headers.get('authorization'))
        if (!principal) throw new UnauthorizedError(MISSING_TOKEN)
        annotateLogContext({ organizationId: principal.organizationId })
        const limit = await getRateLimiter().limit(DATA_API_BUDGETS[access.limit], principal.rateLimitKey)
        headers = { ...SUCCESS_HEADERS, ...headers, ...rateLimitHeaders(limit) }
        if (!limit.success) throw new RateLimitedError('Rate limit exceeded', limit.retryAfterSeconds)
        if (!principal.scopes.includes(access.scope))
          throw new ForbiddenError(`Missing required scope: ${access.scope}`)
        const params = (context ? await context.params : {}) as P
        const limits = access.bodyLimits ?? WRITE_BODY_LIMITS
        const body =
          access.body === 'json'
            ? parseJson(await readBody(req, limits), 'Request body must be valid JSON')
            : access.body === 'form'
              ? await readForm(req, limits)
              : undefined
        const url = new URL(req.url)
        const answer = await handler({
          req,
          url,
          query: url.searchParams,
          principal,
          db,
          params,
          body,
          requestId,
        })
        // A handler that streams (an export's file) builds its own Response; the wrapper's
        // request id and rate-limit headers still go on it.
        if (answer instanceof Response) {
          for (const [name, value] of Object.entries(headers))
            if (name !== 'Content-Type') answer.headers.set(name, value)
          return answer
        }
        const text = answer instanceof JsonText ? answer.text : JSON.stringify(answer)
        return new Response(text, { status: access.status ?? 200, headers })
      } catch (error) {
        const response = errorResponse(error, 'data-api', { requestId, scope: access.scope })
        // The request id and, once a credential was found, the rate-limit headers; the error
        // answer's own Content-Type and Cache-Control stay as errorResponse set them.
        for (const [name, value] of Object.entries(headers))
          if (name !== 'Content-Type' && name !== 'Cache-Control') response.headers.set(name, value)
        return response
      }
    })
}
