import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { cache } from 'react'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { sessionUserFromCookies } from '@/lib/auth/session-cookie'
import { getDb } from '@/lib/db'
import { REQUEST_PATH_HEADER } from '@/lib/http/request-path'
import { currentOrganization, type Membership, type UserWithOrganizations } from '@/lib/members/memberships'

/** The signed-in dashboard user with their organizations, or null (one lookup per request). */
export const getSignedInUser = cache(async (): Promise<UserWithOrganizations | null> => {
  const jar = await cookies()
  return sessionUserFromCookies(
    jar.getAll().map((c) => [c.name, c.value] as const),
    await getDb(),
  )
})

export interface MemberContext {
  user: UserWithOrganizations
  organization: Membership
}

/**
 * The path and query of the page being requested, as proxy.ts recorded it; only ever a
 * same-origin relative path, since it becomes the place sign-in returns to.
 */
export async function requestedPath(): Promise<string> {
  return safeCallbackPath((await headers()).get(REQUEST_PATH_HEADER))
}

/**
 * For dashboard pages: the user and their current organization, or a redirect to sign in that
 * comes back to `callbackPath` (by default the page requested, query included).
 */
export async function requireMember(callbackPath?: string): Promise<MemberContext> {
  const user = await getSignedInUser()
  if (!user)
    redirect(
      `/login?callbackUrl=${encodeURIComponent(safeCallbackPath(callbackPath ?? (await requestedPath())))}`,
    )
  const organization = currentOrganization(user)
  // A user whose last membership was removed has nothing to see; signing in again won't help.
  if (!organization) redirect('/login?error=NoOrganization')
  return { user, organization }
}
