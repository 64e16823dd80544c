import type { Db } from '@/db/client'
import { getDb } from '@/lib/db'
import { errorAnswer } from '@/lib/error-table'
import { RateLimitedError } from '@/lib/errors'
import { getRateLimiter } from '@/lib/ratelimit'
import { clientAddress } from '@/lib/ratelimit/client-address'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import { traced } from './traced'

/**
 * What every answer about a share link carries (docs/sharing.md): its path holds the token, so
 * no Referer leaves it, no cache keeps it and no search engine lists it.
 */
export const SHARE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
} as const

export interface ShareRouteContext<P> {
  db: Db
  params: P
}

/**
 * JSON routes a share link's page fetches: no account, so the token in the path is the only
 * credential and each client address gets a bounded number of reads (a guessed token costs as
 * much as a real one). Errors answer as the dashboard's JSON routes do.
 */
export function shareRoute<P>(handler: (ctx: ShareRouteContext<P>) => Promise<Response>) {
  return (req: Request, context: { params: Promise<P> }): Promise<Response> =>
    traced('share', req, async (requestId) => {
      let response: Response
      try {
        const limit = await getRateLimiter().limit(
          RATE_LIMITS.shareEventsPerAddress,
          clientAddress(req.headers),
        )
        if (!limit.success)
          throw new RateLimitedError('Too many requests. Try again shortly.', limit.retryAfterSeconds)
        response = await handler({ db: await getDb(), params: await context.params })
      } catch (error) {
        const answer = errorAnswer(error, 'dashboard-api', { requestId })
        response = Response.json(answer.body, { status: answer.status, headers: answer.headers })
      }
      for (const [name, value] of Object.entries(SHARE_HEADERS)) response.headers.set(name, value)
      response.headers.set('X-Request-Id', requestId)
      return response
    })
}
