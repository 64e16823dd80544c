// next-auth's route handler needs Next's request scope on globalThis before Next loads (see
// security.cookies.test.ts, whose harness this file shares): so this comes first.
import 'next/dist/server/node-environment-baseline'
import type { AppRouteUserlandModule } from 'next/dist/server/route-modules/app-route/module.compiled'
import { NextRequest } from 'next/server'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createOrganization } from '@/lib/orgs/create-organization'
import { createUser } from '@/lib/users/create-user'
import { setCheapPassword } from '../helpers/cheap-password'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { holdRateLimitClock } from '../helpers/frozen-rate-limit'
import { nextAuthRouteHandler } from '../helpers/next-auth-route'

/**
 * Sign-in limits where users meet them: the real next-auth credentials callback, run by Next's
 * app-route module, with the client address given the way a trusted proxy does
 * (X-Forwarded-For, TRUSTED_PROXY_HOPS=1 from tests/helpers/setup.ts). The per-account delay is
 * observed rather than waited out.
 */

const BASE = 'http://localhost:3000'
const PASSWORD = 'correct horse battery staple'

let database: TestDatabase
const accounts = { attacked: '', other: '', sprayed: '' }

beforeAll(async () => {
  database = await createTestDatabase()
  const org = await createOrganization(database.db, { name: 'Limits' })
  for (const name of Object.keys(accounts) as (keyof typeof accounts)[]) {
    accounts[name] = `${name}-${Date.now()}@example.com`
    await createUser(database.db, {
      email: accounts[name],
      password: PASSWORD,
      organizationId: org.id,
      role: 'owner',
    })
    // Some 45 sign-ins below each verify a password: the limits are under test, not scrypt's cost.
    await setCheapPassword(database.db, accounts[name], PASSWORD)
  }
})
afterAll(async () => {
  vi.unstubAllEnvs()
  await database.close()
})

async function loadApp() {
  vi.resetModules()
  vi.stubEnv('NEXTAUTH_URL', undefined)
  const { useDatabase: installDatabase } = await import('@/lib/db')
  installDatabase(database)
  // A clock held one second into a 15-minute window: at a real window boundary the sliding
  // window's weighting rounds the previous window's failures down, and the delays the test
  // reads would depend on when it runs.
  const windowStart = Math.floor(Date.now() / 900_000) * 900_000
  holdRateLimitClock(windowStart + 1_000, await import('@/lib/ratelimit'))
  const signInRate = await import('@/lib/auth/sign-in-rate')
  const nextAuthRoute = (await import('@/app/api/auth/[...nextauth]/route')) as AppRouteUserlandModule
  const handle = nextAuthRouteHandler(nextAuthRoute)

  // One CSRF token and cookie for the whole test, as one browser keeps them.
  let csrf: Promise<{ csrfToken: string; cookie: string }> | undefined
  const csrfOnce = () =>
    (csrf ??= handle(new NextRequest(`${BASE}/api/auth/csrf`), ['csrf']).then(async (response) => ({
      csrfToken: ((await response.json()) as { csrfToken: string }).csrfToken,
      cookie: response.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; '),
    })))

  /** One sign-in form submission from `ip`: the error code next-auth answers with, or 'signed-in'. */
  async function signIn(email: string, password: string, ip: string): Promise<string> {
    const { csrfToken, cookie } = await csrfOnce()
    const response = await handle(
      new NextRequest(`${BASE}/api/auth/callback/credentials`, {
        method: 'POST',
        headers: { 'x-forwarded-for': ip, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          csrfToken,
          email,
          password,
          callbackUrl: '/issues',
          json: 'true',
        }).toString(),
      }),
      ['callback', 'credentials'],
    )
    const url = new URL(((await response.json()) as { url: string }).url)
    if (url.searchParams.has('error')) return url.searchParams.get('error')!
    expect(response.status).toBe(200)
    expect(url.pathname).toBe('/issues')
    expect(response.headers.getSetCookie().some((c) => c.startsWith('next-auth.session-token='))).toBe(true)
    return 'signed-in'
  }
  return { signIn, signInRate }
}

let app: Awaited<ReturnType<typeof loadApp>>
let delays: number[]

beforeEach(async () => {
  app = await loadApp()
  delays = []
  app.signInRate.setSignInSleepForTests(async (ms) => {
    delays.push(ms)
  })
})

describe('sign-in limits', () => {
  it('an account under attack from other addresses still signs in with its password from a fresh address', async () => {
    // 20 failures from 2 addresses, 10 each (the most one address may try at one account):
    // enough to take the per-account delay to its cap.
    const outcomes: string[] = []
    for (let i = 0; i < 20; i++)
      outcomes.push(await app.signIn(accounts.attacked, `guess ${i}`, `198.51.100.${Math.floor(i / 10) + 1}`))
    expect(new Set(outcomes)).toEqual(new Set(['CredentialsSignin']))

    const attackDelays = [...delays]
    delays.length = 0
    expect(await app.signIn(accounts.attacked, PASSWORD, '203.0.113.200')).toBe('signed-in')

    // The first 10 failures cost nothing; then each attempt waits longer, never more than 5 s;
    // the owner's own attempt waited the bounded maximum instead of being locked out.
    expect(attackDelays).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000])
    expect(app.signInRate.MAX_DELAY_MS).toBe(5000)
    expect(delays).toEqual([5000])
  }, 240_000)

  it('successful sign-ins do not count against the account', async () => {
    for (let i = 0; i < 11; i++)
      expect(await app.signIn(accounts.other, PASSWORD, `198.51.100.${100 + i}`)).toBe('signed-in')
    expect(delays).toEqual([])
  }, 240_000)

  it('still refuses one address after 10 attempts at one account, even with the right password, however X-Forwarded-For is padded', async () => {
    // The client prepends made-up addresses; the trusted proxy's rightmost entry is what counts.
    const via = (i: number) => `10.${i}.0.1, 192.0.2.50`
    for (let i = 0; i < 10; i++)
      expect(await app.signIn(accounts.sprayed, `guess ${i}`, via(i))).toBe('CredentialsSignin')
    expect(await app.signIn(accounts.sprayed, PASSWORD, via(10))).toBe('RateLimited')
    // Another address is not refused, and the account's failures (10, none delayed yet) let it in.
    expect(await app.signIn(accounts.sprayed, PASSWORD, '192.0.2.51')).toBe('signed-in')
  }, 240_000)
})
