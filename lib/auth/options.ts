import type { NextAuthOptions } from 'next-auth'
import CredentialsProvider from 'next-auth/providers/credentials'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { safeCallbackPath } from '@/lib/http/callback-url'
import { logger } from '@/lib/log'
import { authenticate } from '@/lib/users/authenticate'
import { checkSignInRate, clientAddress, SIGN_IN_RATE_LIMITED } from './sign-in-rate'

/** Dashboard sessions are signed JWT cookies; they never authenticate the Data API. */
const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60

let cached: NextAuthOptions | undefined

export function getAuthOptions(): NextAuthOptions {
  if (cached) return cached
  const config = getConfig()
  // next-auth 4 reads its own URL from NEXTAUTH_URL; derive it from BASE_URL so that one
  // variable configures every absolute address the service builds.
  process.env.NEXTAUTH_URL ??= `${config.baseUrl}/api/auth`
  cached = {
    secret: config.authSecret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: '/login', error: '/login' },
    providers: [
      CredentialsProvider({
        name: 'E-mail and password',
        credentials: {
          email: { label: 'E-mail', type: 'email' },
          password: { label: 'Password', type: 'password' },
        },
        async authorize(credentials, req) {
          const email = String(credentials?.email ?? '')
          const password = String(credentials?.password ?? '')
          const headers = req?.headers ?? {}
          const ip = clientAddress({
            get: (name) => {
              const value = headers[name]
              return Array.isArray(value) ? (value[0] ?? null) : (value ?? null)
            },
          })
          const rate = await checkSignInRate(email, ip)
          if (!rate.allowed) {
            logger.warn({ ip }, 'sign-in rate limited')
            throw new Error(SIGN_IN_RATE_LIMITED)
          }
          const user = await authenticate(await getDb(), email, password)
          if (!user) return null
          return { id: user.id, email: user.email, name: user.name }
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.sub = user.id
        return token
      },
      session({ session, token }) {
        if (session.user && token.sub) session.user.id = token.sub
        return session
      },
      // Only same-origin redirects after sign-in and sign-out: no open redirect via callbackUrl.
      redirect({ url, baseUrl }) {
        const relative = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || '/' : url
        return `${baseUrl}${safeCallbackPath(relative)}`
      },
    },
  }
  return cached
}
