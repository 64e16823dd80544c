import { decode } from 'next-auth/jwt'
import type { Db } from '@/db/client'
import { getConfig } from '@/lib/config'
import { isUuid } from '@/lib/errors'
import { getUserWithOrganizations, type UserWithOrganizations } from '@/lib/members/memberships'
import { getAuthOptions } from './options'

/** A request's cookies by name, decoded; one that is not well encoded is not ours and is skipped. */
export function requestCookies(req: Request): Map<string, string> {
  const jar = new Map<string, string>()
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq < 1) continue
    try {
      jar.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1).trim()))
    } catch {
      // a cookie that is not ours and not well encoded
    }
  }
  return jar
}

/**
 * The dashboard user behind a next-auth session cookie (JWT strategy), read straight from the
 * cookies: one path for pages, server actions, the dashboard's JSON routes and the OAuth
 * authorize route. Not getServerSession: it runs next-auth's whole request handler, which
 * answers "server configuration" — and then throws — for a hostile callback-url cookie, so one
 * such cookie made every page of that browser a 500. Chunked cookies (`name.0`, `name.1`) are
 * joined as next-auth does; the JWT's signature and expiry are checked by its decoder.
 */
export async function sessionUserFromCookies(
  cookies: Iterable<readonly [string, string]>,
  db: Db,
): Promise<UserWithOrganizations | null> {
  const options = getAuthOptions()
  const name = `${getConfig().baseUrl.startsWith('https://') ? '__Secure-' : ''}next-auth.session-token`
  const chunks = [...cookies].filter(([key]) => key === name || key.startsWith(`${name}.`))
  const index = (key: string) => (key === name ? -1 : Number(key.slice(name.length + 1)))
  chunks.sort(([a], [b]) => index(a) - index(b))
  const token = chunks.map(([, value]) => value).join('')
  if (!token || !options.secret) return null
  try {
    const payload = await decode({ token, secret: options.secret })
    if (typeof payload?.sub !== 'string' || !isUuid(payload.sub)) return null
    return await getUserWithOrganizations(db, payload.sub)
  } catch {
    return null
  }
}
