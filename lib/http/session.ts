import { redirect } from 'next/navigation'
import { getServerSession } from 'next-auth'
import { cache } from 'react'
import { getAuthOptions } from '@/lib/auth/options'
import { getDb } from '@/lib/db'
import { getUserWithOrganizations, type UserWithOrganizations } from '@/lib/users/memberships'

/** The signed-in dashboard user with their organizations, or null (one lookup per request). */
export const getSignedInUser = cache(async (): Promise<UserWithOrganizations | null> => {
  const session = await getServerSession(getAuthOptions())
  const userId = session?.user?.id
  if (!userId) return null
  return getUserWithOrganizations(await getDb(), userId)
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
