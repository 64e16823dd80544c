import { isPublicError, logUnexpected } from '@/lib/error-table'
import { currentOrganization } from '@/lib/members/memberships'
import { getSignedInUser, type MemberContext } from './session'

/** What every dashboard server action answers: a message to show, or an error that says what to do. */
export type ActionResult<T = { message: string }> = ({ ok: true } & T) | ActionFailure
export type ActionFailure = { ok: false; error: string }

type ActionMember = ({ ok: true } & MemberContext) | ActionFailure

/**
 * Server actions are public POST endpoints: each one checks the session itself (the page that
 * rendered the form proves nothing) and acts only inside the member's own organization.
 */
export async function actionMember(): Promise<ActionMember> {
  const user = await getSignedInUser()
  const organization = user && currentOrganization(user)
  if (!user || !organization) return { ok: false, error: 'Your session has ended. Sign in again.' }
  return { ok: true, user, organization }
}

/** As `actionMember`, for settings that only organization owners may change. */
export async function actionOwner(what: string): Promise<ActionMember> {
  const member = await actionMember()
  if (!member.ok) return member
  if (member.organization.role !== 'owner')
    return { ok: false, error: `Only organization owners can ${what}.` }
  return member
}

/** A domain error's own message (lib/error-table.ts), or a generic one (logged) for anything unexpected. */
export function actionFailure(error: unknown, what: string): ActionFailure {
  if (isPublicError(error)) return { ok: false, error: error.message }
  logUnexpected(error, `dashboard action failed: ${what}`)
  return { ok: false, error: `Could not ${what} because of a server error. Try again in a moment.` }
}
