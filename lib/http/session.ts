import { cookies } from 'next/headers'
import { redirect } from 'next/navigation'
import { cache } from 'react'
import { sessionUserFromCookies } from '@/lib/auth/session-cookie'
import { getDb } from '@/lib/db'
import type { UserWithOrganizations } from '@/lib/users/memberships'

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
  organization: UserWithOrganizations['organizations'][number]
}

/** For dashboard pages: the user and their current organization, or a redirect to sign in. */
export async function requireMember(callbackPath = '/'): Promise<MemberContext> {
  const user = await getSignedInUser()
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(callbackPath)}`)
  const organization = user.organizations[0]
  // A user whose last membership was removed has nothing to see; signing in again won't help.
  if (!organization) redirect('/login?error=NoOrganization')
  return { user, organization }
}
