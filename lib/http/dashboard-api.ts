import type { Db } from '@/db/client'
import { getDb } from '@/lib/db'
import { errorAnswer } from '@/lib/error-table'
import { ForbiddenError, UnauthorizedError } from '@/lib/errors'
import { annotateLogContext } from '@/lib/log'
import { currentOrganization } from '@/lib/members/memberships'
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
        const organization = currentOrganization(user)
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
        const answer = errorAnswer(error, 'dashboard-api', { requestId })
        response = Response.json(answer.body, { status: answer.status, headers: answer.headers })
      }
      response.headers.set('Cache-Control', 'private, no-store')
      response.headers.set('X-Request-Id', requestId)
      return response
    })
}
