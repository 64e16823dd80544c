import { unstable_rethrow } from 'next/navigation'
import type { Db } from '@/db/client'
import { type Actor, actorOfMember } from '@/lib/actor'
import { getDb } from '@/lib/db'
import { isPublicError, logUnexpected } from '@/lib/error-table'
import { currentOrganization, type UserWithOrganizations } from '@/lib/members/memberships'
import { getSignedInUser, type MemberContext } from './session'

/** What every dashboard server action answers: a message to show, or an error that says what to do. */
export type ActionResult<T = { message: string }> = ({ ok: true } & T) | ActionFailure
export type ActionFailure = { ok: false; error: string }

export const SESSION_ENDED = 'Your session has ended. Sign in again.'

/** The refusal an owners-only action gives a member: "Only organization owners can <what>." */
export function ownersOnly(what: string): ActionFailure {
  return { ok: false, error: `Only organization owners can ${what}.` }
}

/** A domain error's own message (lib/error-table.ts), or a generic one (logged) for anything unexpected. */
export function actionFailure(error: unknown, what: string): ActionFailure {
  if (isPublicError(error)) return { ok: false, error: error.message }
  logUnexpected(error, `dashboard action failed: ${what}`)
  return { ok: false, error: `Could not ${what} because of a server error. Try again in a moment.` }
}

/** Who acts, as the wrapper found them before the body runs. */
export interface ActingMember extends MemberContext {
  /** The member as domain writes record them in history (lib/actor.ts). */
  actor: Actor
}
export interface ActingUser {
  user: UserWithOrganizations
}

/** What an action body works with: who acts (and in which organization) and the database. */
export type MemberActionContext = ActingMember & { db: Db }
export type UserActionContext = ActingUser & { db: Db }

interface ActionSpec<C> {
  /**
   * What the action does, completing "Could not … because of a server error." when the body
   * throws something that is not a domain error; a function of the action's arguments (as sent,
   * so unknown) when it depends on them.
   */
  what: string | ((args: readonly unknown[], context: C) => string)
  /** Replaces the failure answer (and its log line) for the few actions that word it their own way. */
  failure?: (error: unknown) => ActionFailure
}

interface OwnerActionSpec extends ActionSpec<ActingMember> {
  /** What only owners may do, completing "Only organization owners can …." */
  ownersOnly: string
}

/**
 * Server actions are public POST endpoints: each checks the session itself (the page that
 * rendered the form proves nothing) and acts only inside the member's own organization. The
 * wrappers do that, then run the body; anything the body throws becomes an `ActionFailure`
 * (`actionFailure`), so a body reads like a route: parse the form, call the domain, revalidate,
 * answer. Refusals and failures are `{ ok: false, error }`, the state `useActionState` shows.
 */
async function run<A extends unknown[], W extends object, R>(
  spec: ActionSpec<W>,
  acting: () => Promise<W | ActionFailure>,
  body: (context: W & { db: Db }, ...args: A) => Promise<R>,
  args: A,
): Promise<R | ActionFailure> {
  const who = await acting()
  if (isFailure(who)) return who
  try {
    // Opening the database is part of the action's work: its failure is a failure of the action.
    return await body({ ...who, db: await getDb() }, ...args)
  } catch (error) {
    // redirect() and notFound() in a body are Next's control flow, thrown on purpose: not failures.
    unstable_rethrow(error)
    if (spec.failure) return spec.failure(error)
    return actionFailure(error, typeof spec.what === 'string' ? spec.what : spec.what(args, who))
  }
}

function isFailure(value: unknown): value is ActionFailure {
  return typeof value === 'object' && value !== null && 'ok' in value && value.ok === false
}

async function actingUser(): Promise<ActingUser | ActionFailure> {
  const user = await getSignedInUser()
  if (!user) return { ok: false, error: SESSION_ENDED }
  return { user }
}

async function actingMember(): Promise<ActingMember | ActionFailure> {
  const user = await getSignedInUser()
  const organization = user && currentOrganization(user)
  if (!user || !organization) return { ok: false, error: SESSION_ENDED }
  const member = { user, organization }
  return { ...member, actor: actorOfMember(member) }
}

/** An action any signed-in member may take, inside their current organization. */
export function memberAction<A extends unknown[], R>(
  spec: ActionSpec<ActingMember>,
  body: (context: MemberActionContext, ...args: A) => Promise<R>,
): (...args: A) => Promise<R | ActionFailure> {
  return (...args) => run(spec, actingMember, body, args)
}

/** An action only the organization's owners may take (settings, keys, destructive changes). */
export function ownerAction<A extends unknown[], R>(
  spec: OwnerActionSpec,
  body: (context: MemberActionContext, ...args: A) => Promise<R>,
): (...args: A) => Promise<R | ActionFailure> {
  const owner = async () => {
    const member = await actingMember()
    if (isFailure(member) || member.organization.role === 'owner') return member
    return ownersOnly(spec.ownersOnly)
  }
  return (...args) => run(spec, owner, body, args)
}

/**
 * An action on the signed-in account itself rather than an organization (connected apps): a
 * user whose last membership was removed may still take it.
 */
export function userAction<A extends unknown[], R>(
  spec: ActionSpec<ActingUser>,
  body: (context: UserActionContext, ...args: A) => Promise<R>,
): (...args: A) => Promise<R | ActionFailure> {
  return (...args) => run(spec, actingUser, body, args)
}
