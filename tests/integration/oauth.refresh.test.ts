import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { memberships, oauthRefreshTokens, oauthTokenChains } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  authorizeCode,
  exchange,
  oauth,
  RESOURCE,
  registerClient,
  signedInUser,
  type TestClient,
  type TokenBody,
} from '../helpers/oauth'

let database: TestDatabase
let user: Awaited<ReturnType<typeof signedInUser>>
let client: TestClient

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  user = await signedInUser(database.db)
  client = await registerClient()
})
afterEach(() => setConfigForTests(undefined))
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const bearer = (token: string) => resolveBearer(database.db, `Bearer ${token}`)
const withGrace = (seconds: number) =>
  setConfigForTests(parseConfig({ ...process.env, OAUTH_REFRESH_REUSE_GRACE_SECONDS: String(seconds) }))

async function tokens(scope?: string, who = user, app = client): Promise<TokenBody> {
  const response = await exchange(app, await authorizeCode(who, app, { scope }))
  expect(response.status).toBe(200)
  return (await response.json()) as TokenBody
}

const refresh = (refreshToken: string, extra: Record<string, string | undefined> = {}, app = client) =>
  oauth.token({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: app.client_id,
    ...extra,
  })

async function ok(response: Response): Promise<TokenBody> {
  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  return (await response.json()) as TokenBody
}

async function refused(response: Response, error = 'invalid_grant'): Promise<TokenBody> {
  expect(response.status).toBe(400)
  const body = (await response.json()) as TokenBody
  expect(body.error).toBe(error)
  return body
}

async function chainRevoked(refreshToken: string): Promise<boolean> {
  const [row] = await database.db
    .select({ revokedAt: oauthTokenChains.revokedAt })
    .from(oauthRefreshTokens)
    .innerJoin(oauthTokenChains, eq(oauthTokenChains.id, oauthRefreshTokens.chainId))
    .where(eq(oauthRefreshTokens.tokenHash, hashToken(refreshToken)))
  return row!.revokedAt !== null
}

describe('RFC 6749 §6 refresh with rotation (spec: rotates on every use)', () => {
  it('returns a new pair each time; the old access token keeps working until it expires', async () => {
    const first = await tokens()
    const second = await ok(await refresh(first.refresh_token))
    expect(second).toEqual({
      access_token: expect.stringMatching(/^svc_oat_/),
      refresh_token: expect.stringMatching(/^svc_ort_/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read:service',
    })
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(second.access_token).not.toBe(first.access_token)
    const third = await ok(await refresh(second.refresh_token))
    expect(await bearer(first.access_token)).not.toBeNull()
    expect(await bearer(third.access_token)).toMatchObject({ scopes: ['read:service'], resource: RESOURCE })
    const [old] = await database.db
      .select()
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, hashToken(first.refresh_token)))
    expect(old!.rotatedAt).not.toBeNull()
  })

  it('accepts the canonical resource and refuses another (invalid_target)', async () => {
    const first = await tokens()
    await refused(
      await refresh(first.refresh_token, { resource: 'https://evil.example/api/mcp' }),
      'invalid_target',
    )
    await ok(await refresh(first.refresh_token, { resource: RESOURCE }))
  })
})

describe('spec state table / RFC 9700 §4.14.2: a rotated refresh token presented again', () => {
  it('revokes the whole chain: the newest access and refresh tokens stop working', async () => {
    const first = await tokens()
    const second = await ok(await refresh(first.refresh_token))
    const body = await refused(await refresh(first.refresh_token))
    expect(body.error_description).toMatch(/already used/)
    expect(await bearer(second.access_token)).toBeNull()
    expect(await bearer(first.access_token)).toBeNull()
    await refused(await refresh(second.refresh_token))
    expect(await chainRevoked(second.refresh_token)).toBe(true)
  })

  it('serializes concurrent refreshes of one token: one wins, the other is reuse (chain revoked)', async () => {
    const first = await tokens()
    const responses = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 400])
    const winner = (await responses.find((r) => r.status === 200)!.json()) as TokenBody
    expect(await bearer(winner.access_token)).toBeNull()
    expect(await chainRevoked(first.refresh_token)).toBe(true)
  })

  it('five refreshes at once with one token: at most one success, and the chain is revoked', async () => {
    const first = await tokens()
    const responses = await Promise.all(Array.from({ length: 5 }, () => refresh(first.refresh_token)))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1)
    expect(await chainRevoked(first.refresh_token)).toBe(true)
  })

  it('within OAUTH_REFRESH_REUSE_GRACE_SECONDS the previous token gets a fresh pair instead', async () => {
    withGrace(30)
    const first = await tokens()
    const second = await ok(await refresh(first.refresh_token))
    const again = await ok(await refresh(first.refresh_token))
    expect(again.refresh_token).not.toBe(second.refresh_token)
    // Both successors stay usable; the chain is intact.
    expect(await bearer(second.access_token)).not.toBeNull()
    expect(await bearer(again.access_token)).not.toBeNull()
    expect(await chainRevoked(first.refresh_token)).toBe(false)
    await ok(await refresh(again.refresh_token))
  })

  it('grace covers concurrent refreshes: both succeed', async () => {
    withGrace(30)
    const first = await tokens()
    const responses = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)])
    expect(responses.map((r) => r.status)).toEqual([200, 200])
  })

  it('grace covers only the immediately previous token', async () => {
    withGrace(30)
    const first = await tokens()
    const second = await ok(await refresh(first.refresh_token))
    await ok(await refresh(second.refresh_token))
    await refused(await refresh(first.refresh_token))
    expect(await chainRevoked(first.refresh_token)).toBe(true)
  })

  it('after the grace window, reuse revokes the chain again', async () => {
    withGrace(1)
    const first = await tokens()
    const second = await ok(await refresh(first.refresh_token))
    await new Promise((resolve) => setTimeout(resolve, 1300))
    await refused(await refresh(first.refresh_token))
    expect(await bearer(second.access_token)).toBeNull()
  })
})

describe('RFC 6749 §6 scope on refresh', () => {
  it('narrows the access token to a subset and keeps the full grant for later refreshes', async () => {
    const first = await tokens('read:service write:issues')
    expect(first.scope).toBe('read:service write:issues')
    const narrow = await ok(await refresh(first.refresh_token, { scope: 'read:service' }))
    expect(narrow.scope).toBe('read:service')
    expect((await bearer(narrow.access_token))!.scopes).toEqual(['read:service'])
    const full = await ok(await refresh(narrow.refresh_token))
    expect(full.scope).toBe('read:service write:issues')
  })

  it.each([
    ['a wider scope', 'read:service write:issues'],
    ['an unknown scope', 'read:service admin'],
    ['an empty scope list', ' '],
  ])('answers invalid_scope for %s without using up the token', async (_name, scope) => {
    const first = await tokens('read:service')
    await refused(await refresh(first.refresh_token, { scope }), 'invalid_scope')
    await ok(await refresh(first.refresh_token))
  })
})

describe('refresh refusals', () => {
  it('refuses another client presenting the token, without revoking the chain', async () => {
    const first = await tokens()
    const other = await registerClient()
    await refused(await refresh(first.refresh_token, {}, other))
    expect(await chainRevoked(first.refresh_token)).toBe(false)
    await ok(await refresh(first.refresh_token))
  })

  it('refuses unknown, malformed and access tokens', async () => {
    const first = await tokens()
    await refused(await refresh('svc_ort_unknown'))
    await refused(await refresh('garbage'))
    await refused(await refresh(first.access_token))
  })

  it('refuses an expired refresh token', async () => {
    const first = await tokens()
    await database.db
      .update(oauthRefreshTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthRefreshTokens.tokenHash, hashToken(first.refresh_token)))
    await refused(await refresh(first.refresh_token))
  })

  it('refuses once the user left the organization', async () => {
    const leaver = await signedInUser(database.db)
    const first = await tokens(undefined, leaver)
    await database.db
      .delete(memberships)
      .where(
        and(eq(memberships.userId, leaver.id), eq(memberships.organizationId, leaver.organizations[0]!.id)),
      )
    await refused(await refresh(first.refresh_token))
  })

  it('answers invalid_request without refresh_token', async () => {
    await refused(
      await oauth.token({ grant_type: 'refresh_token', client_id: client.client_id }),
      'invalid_request',
    )
  })
})
