import type { Db } from '@/db/client'
import { type Principal, resolveBearer } from '@/lib/credentials/resolve-bearer'
import { getDb } from '@/lib/db'
import {
  AppError,
  ForbiddenError,
  InvalidInputError,
  MalformedBodyError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '@/lib/errors'
import { annotateLogContext, logger } from '@/lib/log'
import { getRateLimiter } from '@/lib/ratelimit'
import { json, rateLimitHeaders } from './respond'
import { traced } from './traced'

export type DataApiScope = 'read:service' | 'write:issues'

/** The spec's per-minute limits, per token (per OAuth client for OAuth tokens). */
export const DATA_API_LIMITS = {
  read: { name: 'data-read', limit: 300, windowSeconds: 60 },
  write: { name: 'data-write', limit: 60, windowSeconds: 60 },
} as const

export const MISSING_TOKEN = 'Missing or invalid bearer token'

export interface DataApiContext<P> {
  req: Request
  url: URL
  principal: Principal
  db: Db
  params: P
  requestId: string
}

interface Access {
  scope: DataApiScope
  limit: keyof typeof DATA_API_LIMITS
}

function render(error: unknown, scope: DataApiScope): Response {
  if (error instanceof UnauthorizedError)
    return json({ error: error.message }, 401, { 'WWW-Authenticate': `Bearer scope="${scope}"` })
  if (error instanceof ForbiddenError) return json({ error: error.message }, 403)
  if (error instanceof InvalidInputError || error instanceof MalformedBodyError)
    return json({ error: error.message }, 400)
  if (error instanceof NotFoundError) return json({ error: error.message }, 404)
  if (error instanceof PayloadTooLargeError) return json({ error: error.message }, 413)
  if (error instanceof UnsupportedMediaTypeError) return json({ error: error.message }, 415)
  if (error instanceof RateLimitedError)
    return json({ error: error.message }, 429, { 'Retry-After': String(error.retryAfterSeconds) })
  if (!(error instanceof AppError)) logger.error({ err: error }, 'data API request failed')
  return json({ error: 'Internal server error' }, 500)
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
      const headers: Record<string, string> = { 'X-Request-Id': requestId }
      let response: Response
      try {
        const db = await getDb()
        const principal = await resolveBearer(db, req.headers.get('authorization'))
        if (!principal) throw new UnauthorizedError(MISSING_TOKEN)
        annotateLogContext({ organizationId: principal.organizationId })
        const limit = await getRateLimiter().limit(DATA_API_LIMITS[access.limit], principal.rateLimitKey)
        Object.assign(headers, rateLimitHeaders(limit))
        if (!limit.success) throw new RateLimitedError('Rate limit exceeded', limit.retryAfterSeconds)
        if (!principal.scopes.includes(access.scope))
          throw new ForbiddenError(`Missing required scope: ${access.scope}`)
        const params = (context ? await context.params : {}) as P
        const body = await handler({ req, url: new URL(req.url), principal, db, params, requestId })
        response = json(body)
      } catch (error) {
        response = render(error, access.scope)
      }
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
      return response
    })
}
