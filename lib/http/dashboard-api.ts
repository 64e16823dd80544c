import type { Db } from '@/db/client'
import { getDb } from '@/lib/db'
import { ForbiddenError, InvalidInputError, NotFoundError, UnauthorizedError } from '@/lib/errors'
import { annotateLogContext, logger } from '@/lib/log'
import { sessionUser } from './oauth'
import { traced } from './traced'

export const SIGNED_OUT = 'Your session has ended. Sign in again.'
export const NO_ORGANIZATION = 'You are not a member of any organization.'

export interface DashboardApiContext<P> {
  req: Request
  db: Db
  userId: string
  /** The member's current organization (as requireMember picks it): every query filters by it. */
  organizationId: string
  params: P
  requestId: string
}

function errorBody(error: unknown): { status: number; message: string } {
  if (error instanceof UnauthorizedError) return { status: 401, message: error.message }
  if (error instanceof ForbiddenError) return { status: 403, message: error.message }
  if (error instanceof NotFoundError) return { status: 404, message: error.message }
  if (error instanceof InvalidInputError) return { status: 400, message: error.message }
  // Anything else, our own errors included, is a fault to look into: logged, never detailed.
  logger.error({ err: error }, 'dashboard API request failed')
  return { status: 500, message: 'Internal server error' }
}

/**
 * JSON routes the dashboard's own pages fetch: authenticated by the next-auth session cookie
 * of the request (never by bearer tokens), scoped to the member's organization, answered
 * `private, no-store` since every body is one member's data. A handler returns a Response
 * (to stream a body) or a value sent as JSON; any throw becomes `{error}` with its status.
 */
export function dashboardRoute<P = Record<string, never>>(
  handler: (ctx: DashboardApiContext<P>) => Promise<Response | unknown>,
) {
  return (req: Request, context?: { params: Promise<P> }): Promise<Response> =>
    traced('dashboard-api', req, async (requestId) => {
      let response: Response
      try {
        const db = await getDb()
        const user = await sessionUser(req, db)
        if (!user) throw new UnauthorizedError(SIGNED_OUT)
        const organization = user.organizations[0]
        if (!organization) throw new ForbiddenError(NO_ORGANIZATION)
        annotateLogContext({ organizationId: organization.id })
        const params = (await context?.params) ?? ({} as P)
        const result = await handler({
          req,
          db,
          userId: user.id,
          organizationId: organization.id,
          params,
          requestId,
        })
        response = result instanceof Response ? result : Response.json(result)
      } catch (error) {
        const { status, message } = errorBody(error)
        response = Response.json({ error: message }, { status })
      }
      response.headers.set('Cache-Control', 'private, no-store')
      response.headers.set('X-Request-Id', requestId)
      return response
    })
}
