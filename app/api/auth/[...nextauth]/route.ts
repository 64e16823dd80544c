import { cookies } from 'next/headers'
import { NextRequest } from 'next/server'
import NextAuth from 'next-auth'
import { getAuthOptions } from '@/lib/auth/options'
import { CALLBACK_COOKIE, isHttpUrl, refineAuthRequest, signInErrorRedirect } from '@/lib/auth/refine-request'
import { getConfig } from '@/lib/config'

type RouteContext = { params: Promise<{ nextauth: string[] }> }

// Options are built on the first request, not at import, so `next build` needs no AUTH_SECRET.
async function handler(req: NextRequest, context: RouteContext): Promise<Response> {
  const { nextauth } = await context.params
  // next-auth builds this redirect from the raw `error` parameter, unencoded.
  if (req.method === 'GET' && nextauth[0] === 'error') return signInErrorRedirect(req.nextUrl)
  // next-auth reads cookies from Next's request store, not from the request it is given: a
  // callback-url cookie it would call a configuration error is deleted there, with next-auth's
  // own attributes (a browser ignores a __Secure- cookie's deletion that is not itself Secure);
  // next-auth then writes its default in its place.
  const jar = await cookies()
  const { baseUrl } = getConfig()
  for (const { name, value } of jar.getAll())
    if (CALLBACK_COOKIE.test(name) && value && !isHttpUrl(value, baseUrl))
      jar.delete({ name, path: '/', httpOnly: true, sameSite: 'lax', secure: baseUrl.startsWith('https://') })
  const refined = await refineAuthRequest(req)
  return NextAuth(refined ? new NextRequest(refined.url, refined.init) : req, context, getAuthOptions())
}

export { handler as GET, handler as POST }
