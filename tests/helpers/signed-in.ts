import { getDb } from '@/lib/db'
import { sessionUser } from '@/lib/http/oauth'

/**
 * Server actions read the signed-in user through `@/lib/http/session`, from Next's cookie
 * store, which exists only inside a Next request that a test cannot create. Suites that call
 * actions directly replace that module with this one:
 *
 *   vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
 *
 * and set `signedIn.cookie` to the next-auth cookie of whoever acts. The user is decoded from
 * it as the dashboard's JSON routes do (`sessionUser`: the JWT cookie → the user and their
 * organizations); everything after it (the ownerAction/memberAction wrapper, the action, the domain
 * function, the database) is the real code.
 */
export const signedIn = { cookie: '' }

export async function getSignedInUser() {
  return signedIn.cookie
    ? sessionUser(
        new Request('http://localhost:3000/', { headers: { cookie: signedIn.cookie } }),
        await getDb(),
      )
    : null
}

export async function requireMember(): Promise<never> {
  throw new Error('dashboard pages are not rendered in this test')
}
