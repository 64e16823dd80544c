import type { NextAuthOptions } from 'next-auth'
import CredentialsProvider from 'next-auth/providers/credentials'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { logger } from '@/lib/log'
import { clientAddress } from '@/lib/ratelimit/client-address'
import { authenticate } from '@/lib/users/authenticate'
import { checkSignInRate, delayForAccount, recordFailedSignIn, SIGN_IN_RATE_LIMITED } from './sign-in-rate'

/** Dashboard sessions are signed JWT cookies; they never authenticate the Data API. */
const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60

let cached: NextAuthOptions | undefined

const CLIENT_INPUT_CODES = new Set(['JWT_SESSION_ERROR', 'INVALID_CALLBACK_URL_ERROR'])

export function getAuthOptions(): NextAuthOptions {
  if (cached) return cached
  const config = getConfig()
  // next-auth 4 reads its own URL from NEXTAUTH_URL, and from it whether cookies are Secure and
  // carry the __Secure-/__Host- prefixes. BASE_URL is the one address the service has, so it
  // overrides a stray NEXTAUTH_URL (one left in an .env from another app would otherwise turn
  // Secure cookies off behind https, or send sign-in redirects to another host).
  const nextAuthUrl = `${config.baseUrl}/api/auth`
  if (process.env.NEXTAUTH_URL && process.env.NEXTAUTH_URL !== nextAuthUrl)
    logger.warn({ nextAuthUrl }, 'NEXTAUTH_URL is ignored: the dashboard sign-in follows BASE_URL')
  process.env.NEXTAUTH_URL = nextAuthUrl
  cached = {
    secret: config.authSecret,
    // Said outright rather than left to next-auth's guess from the request or NEXTAUTH_URL.
    useSecureCookies: config.baseUrl.startsWith('https://'),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: '/login', error: '/login' },
    // next-auth prints to console.error, without our request id and with stacks; its lines go
    // through our logger. A forged or expired session cookie and a refused callback URL are a
    // client's input, not a fault of ours: warnings.
    logger: {
      error(code, metadata) {
        const err = metadata instanceof Error ? metadata : metadata.error
        const line = { nextAuthCode: code, err: { name: err?.name, message: err?.message } }
        if (CLIENT_INPUT_CODES.has(code)) logger.warn(line, `next-auth refused a request: ${code}`)
        else logger.error({ ...line, err }, `next-auth failed: ${code}`)
      },
      warn(code) {
        logger.warn({ nextAuthCode: code }, `next-auth warning: ${code}`)
      },
      debug() {},
    },
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
          // Failures against the account slow every attempt at it, but never refuse one: a
          // stranger's failures must not lock the owner out (sign-in-rate.ts).
          await delayForAccount(email)
          const user = await authenticate(await getDb(), email, password)
          if (!user) {
            await recordFailedSignIn(email)
            return null
          }
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
        // A JSON body can make callbackUrl anything; only text is an address.
        if (typeof url !== 'string') return `${baseUrl}/`
        const relative = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || '/' : url
        return `${baseUrl}${safeCallbackPath(relative)}`
      },
    },
  }
  return cached
}
