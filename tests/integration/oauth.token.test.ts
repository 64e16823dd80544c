import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { oauthAccessTokens, oauthAuthorizationCodes, oauthConsents, oauthRefreshTokens } from '@/db/schema'
import { getConfig, parseConfig, setConfigForTests } from '@/lib/config'
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
  client = await registerClient({ scope: 'read:service write:issues' })
})
afterEach(() => setConfigForTests(undefined))
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const bearer = (token: string) => resolveBearer(database.db, `Bearer ${token}`)

async function expectError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(response.headers.get('pragma')).toBe('no-cache')
  const body = (await response.json()) as TokenBody
  expect(body).toEqual({ error, error_description: expect.any(String) })
  return body
}

describe('RFC 6749 §4.1.3 / §5.1 authorization_code grant', () => {
  it('issues svc_oat_ + svc_ort_ in a new chain, uncacheable, CORS-open, stored as SHA-256', async () => {
    const grant = await authorizeCode(user, client, { scope: 'read:service write:issues' })
    const response = await exchange(client, grant)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('pragma')).toBe('no-cache')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const body = (await response.json()) as TokenBody
    expect(body).toEqual({
      access_token: expect.stringMatching(/^svc_oat_/),
      refresh_token: expect.stringMatching(/^svc_ort_/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read:service write:issues',
    })
    const [access] = await database.db
      .select()
      .from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.tokenHash, hashToken(body.access_token)))
    expect(access).toMatchObject({ clientId: client.client_id, organizationId: user.organizations[0]!.id })
    expect(Math.abs(access!.expiresAt.getTime() - access!.createdAt.getTime() - 3_600_000)).toBeLessThan(1000)
    const [refresh] = await database.db
      .select()
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, hashToken(body.refresh_token)))
    expect(refresh!.chainId).toBe(access!.chainId)
    expect(Math.round((refresh!.expiresAt.getTime() - refresh!.createdAt.getTime()) / 86_400_000)).toBe(30)

    const principal = await bearer(body.access_token)
    expect(principal).toMatchObject({
      kind: 'oauth',
      organizationId: user.organizations[0]!.id,
      scopes: ['read:service', 'write:issues'],
      clientId: client.client_id,
      resource: RESOURCE,
    })
  })

  it('binds the resource (RFC 8707): canonical, with one trailing slash, or omitted', async () => {
    for (const resource of [RESOURCE, `${RESOURCE}/`, undefined]) {
      const grant = await authorizeCode(user, client, { resource })
      const response = await oauth.token({
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        code_verifier: grant.verifier,
        client_id: client.client_id,
        resource,
      })
      expect(response.status).toBe(200)
      expect((await bearer(((await response.json()) as TokenBody).access_token))!.resource).toBe(RESOURCE)
    }
  })

  it('answers invalid_target for another resource at the token endpoint', async () => {
    const grant = await authorizeCode(user, client)
    const response = await oauth.token({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: client.client_id,
      resource: 'https://evil.example/api/mcp',
    })
    await expectError(response, 400, 'invalid_target')
  })
})

describe('RFC 7636 §4.6 PKCE verification', () => {
  it('answers invalid_grant saying PKCE failed, and the right verifier still redeems the code', async () => {
    const grant = await authorizeCode(user, client)
    const wrong = await exchange(client, { ...grant, verifier: 'x'.repeat(43) })
    const body = await expectError(wrong, 400, 'invalid_grant')
    expect(body.error_description).toMatch(/PKCE/)
    // The challenge itself (what `plain` would send) is no verifier either.
    const [row] = await database.db
      .select({ challenge: oauthAuthorizationCodes.codeChallenge })
      .from(oauthAuthorizationCodes)
      .where(eq(oauthAuthorizationCodes.codeHash, hashToken(grant.code)))
    await expectError(await exchange(client, { ...grant, verifier: row!.challenge }), 400, 'invalid_grant')
    expect((await exchange(client, grant)).status).toBe(200)
  })
})

describe('spec state table: code issued → redeemed → presented again', () => {
  it('a second redemption answers invalid_grant and revokes every token issued from the code', async () => {
    const grant = await authorizeCode(user, client)
    const first = (await (await exchange(client, grant)).json()) as TokenBody
    expect(await bearer(first.access_token)).not.toBeNull()
    const replay = await expectError(await exchange(client, grant), 400, 'invalid_grant')
    expect(replay.error_description).toMatch(/already used/)
    expect(await bearer(first.access_token)).toBeNull()
    await expectError(
      await oauth.token({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: client.client_id,
      }),
      400,
      'invalid_grant',
    )
  })

  it('two redemptions at once: exactly one wins, and its tokens are revoked by the other', async () => {
    const grant = await authorizeCode(user, client)
    const responses = await Promise.all([exchange(client, grant), exchange(client, grant)])
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 400])
    const winner = (await responses.find((r) => r.status === 200)!.json()) as TokenBody
    const loser = (await responses.find((r) => r.status === 400)!.json()) as TokenBody
    expect(loser.error).toBe('invalid_grant')
    expect(await bearer(winner.access_token)).toBeNull()
  })

  it('five redemptions at once: still exactly one success', async () => {
    const grant = await authorizeCode(user, client)
    const responses = await Promise.all(Array.from({ length: 5 }, () => exchange(client, grant)))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1)
    expect(responses.filter((r) => r.status === 400)).toHaveLength(4)
  })

  it('an expired code answers invalid_grant (short OAUTH_AUTHORIZATION_CODE_TTL_SECONDS)', async () => {
    setConfigForTests(parseConfig({ ...process.env, OAUTH_AUTHORIZATION_CODE_TTL_SECONDS: '1' }))
    expect(getConfig().oauth.authorizationCodeTtlSeconds).toBe(1)
    const grant = await authorizeCode(user, client)
    await new Promise((resolve) => setTimeout(resolve, 1300))
    const body = await expectError(await exchange(client, grant), 400, 'invalid_grant')
    expect(body.error_description).toMatch(/expired/)
  })

  it('refuses a code whose consent was revoked before redemption', async () => {
    const other = await signedInUser(database.db)
    const grant = await authorizeCode(other, client)
    await database.db
      .update(oauthConsents)
      .set({ revokedAt: new Date() })
      .where(eq(oauthConsents.userId, other.id))
    await expectError(await exchange(client, grant), 400, 'invalid_grant')
  })
})

describe('RFC 6749 §4.1.3 request checks', () => {
  it('requires the exact redirect_uri of the authorization request', async () => {
    const grant = await authorizeCode(user, client)
    for (const redirectUri of ['http://127.0.0.1:7777/callback/', 'http://127.0.0.1:7778/callback'])
      await expectError(await exchange(client, { ...grant, redirectUri }), 400, 'invalid_grant')
    expect((await exchange(client, grant)).status).toBe(200)
  })

  it('refuses a code issued to another client, and unknown codes', async () => {
    const grant = await authorizeCode(user, client)
    const other = await registerClient()
    await expectError(await exchange(other, grant), 400, 'invalid_grant')
    await expectError(await exchange(client, { ...grant, code: 'svc_oac_unknown' }), 400, 'invalid_grant')
    await expectError(await exchange(client, { ...grant, code: 'garbage' }), 400, 'invalid_grant')
  })

  it.each(['code', 'redirect_uri', 'code_verifier'])('answers invalid_request without %s', async (field) => {
    const grant = await authorizeCode(user, client)
    const fields: Record<string, string | undefined> = {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: client.client_id,
    }
    fields[field] = undefined
    await expectError(await oauth.token(fields), 400, 'invalid_request')
  })

  it('answers invalid_request for a missing grant_type, a repeated parameter or a JSON body', async () => {
    await expectError(await oauth.token({ client_id: client.client_id }), 400, 'invalid_request')
    const repeated = new URLSearchParams({ grant_type: 'authorization_code', client_id: client.client_id })
    repeated.append('grant_type', 'authorization_code')
    await expectError(await oauth.token(repeated), 400, 'invalid_request')
    const json = await oauth.token(new URLSearchParams(), { 'content-type': 'application/json' })
    await expectError(json, 400, 'invalid_request')
  })

  it.each(['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code'])(
    'answers unsupported_grant_type for %s',
    async (grantType) => {
      await expectError(
        await oauth.token({ grant_type: grantType, client_id: client.client_id }),
        400,
        'unsupported_grant_type',
      )
    },
  )

  it('answers unauthorized_client for a grant the client did not register, and issues it no refresh token', async () => {
    const codeOnly = await registerClient({ grant_types: ['authorization_code'] })
    const body = (await (await exchange(codeOnly, await authorizeCode(user, codeOnly))).json()) as TokenBody
    expect(body.access_token).toMatch(/^svc_oat_/)
    expect(body).not.toHaveProperty('refresh_token')
    await expectError(
      await oauth.token({
        grant_type: 'refresh_token',
        refresh_token: 'svc_ort_x',
        client_id: codeOnly.client_id,
      }),
      400,
      'unauthorized_client',
    )
  })
})

describe('RFC 6749 §2.3 client authentication (docs/design/oauth-mcp.md decision 8)', () => {
  let confidential: TestClient
  beforeAll(async () => {
    confidential = await registerClient({ token_endpoint_auth_method: 'client_secret_post' })
  })
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
  })

  it('accepts the secret in the form (client_secret_post)', async () => {
    const grant = await authorizeCode(user, confidential)
    expect((await exchange(confidential, grant)).status).toBe(200)
  })

  it('accepts the same secret in HTTP Basic', async () => {
    const grant = await authorizeCode(user, confidential)
    const response = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        code_verifier: grant.verifier,
      },
      basic(confidential.client_id, confidential.client_secret!),
    )
    expect(response.status).toBe(200)
  })

  it('answers an unknown client and a wrong secret identically (401 invalid_client)', async () => {
    const grant = await authorizeCode(user, confidential)
    const wrong = await exchange({ ...confidential, client_secret: 'svc_cs_wrong' }, grant)
    const unknown = await exchange({ ...confidential, client_id: 'svc_client_unknown' }, grant)
    const missing = await exchange({ ...confidential, client_secret: undefined }, grant)
    const bodies = []
    for (const response of [wrong, unknown, missing]) {
      bodies.push(await expectError(response, 401, 'invalid_client'))
      expect(response.headers.get('www-authenticate')).toBeNull()
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
    // The code was not consumed by the failed attempts.
    expect((await exchange(confidential, grant)).status).toBe(200)
  })

  it('adds WWW-Authenticate: Basic when the client tried Basic', async () => {
    const grant = await authorizeCode(user, confidential)
    const fields = {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
    }
    for (const headers of [basic(confidential.client_id, 'wrong'), basic('svc_client_unknown', 'x')]) {
      const response = await oauth.token(fields, headers)
      await expectError(response, 401, 'invalid_client')
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic/)
    }
  })

  it('refuses two authentication methods at once, and a public client sending a secret', async () => {
    const grant = await authorizeCode(user, confidential)
    const both = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        code_verifier: grant.verifier,
        client_secret: confidential.client_secret,
      },
      basic(confidential.client_id, confidential.client_secret!),
    )
    await expectError(both, 400, 'invalid_request')
    const publicGrant = await authorizeCode(user, client)
    await expectError(
      await exchange({ ...client, client_secret: 'svc_cs_invented' }, publicGrant),
      401,
      'invalid_client',
    )
  })

  it('refuses a public client without any client_id', async () => {
    const grant = await authorizeCode(user, client)
    await expectError(await exchange({ ...client, client_id: '' }, grant), 401, 'invalid_client')
  })
})
