import { AppError } from '@/lib/errors'
import { logger } from '@/lib/log'
import { getSignedInUser, type MemberContext } from './session'

/** What every dashboard server action answers: a message to show, or an error that says what to do. */
export type ActionResult<T = { message: string }> = ({ ok: true } & T) | ActionFailure
export type ActionFailure = { ok: false; error: string }

type Actor = ({ ok: true } & MemberContext) | ActionFailure

/**
 * Server actions are public POST endpoints: each one checks the session itself (the page that
 * rendered the form proves nothing) and acts only inside the member's own organization.
 */
export async function actionMember(): Promise<Actor> {
  const user = await getSignedInUser()
  const organization = user?.organizations[0]
  if (!user || !organization) return { ok: false, error: 'Your session has ended. Sign in again.' }
  return { ok: true, user, organization }
}

/** As `actionMember`, for settings that only organization owners may change. */
export async function actionOwner(what: string): Promise<Actor> {
  const member = await actionMember()
  if (!member.ok) return member
  if (member.organization.role !== 'owner')
    return { ok: false, error: `Only organization owners can ${what}.` }
  return member
}

/** A domain error's own message, or a generic one (logged) for anything unexpected. */
export function actionFailure(error: unknown, what: string): ActionFailure {
  if (error instanceof AppError) return { ok: false, error: error.message }
  logger.error({ err: error }, `dashboard action failed: ${what}`)
  return { ok: false, error: `Could not ${what} because of a server error. Try again in a moment.` }
}
