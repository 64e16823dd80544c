import * as o from 'oauth4webapi'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { useDatabase } from '@/lib/db'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { consentFields, type RunningOAuthServer, signedInUser, startOAuthServer } from '../helpers/oauth'

/**
 * The protocol as a certified third-party client sees it: panva's oauth4webapi against the
 * route handlers over real HTTP (http://127.0.0.1, hence allowInsecureRequests).
 */
let database: TestDatabase
let server: RunningOAuthServer
let user: Awaited<ReturnType<typeof signedInUser>>
let issuer: URL
let as: o.AuthorizationServer
const REDIRECT = 'http://127.0.0.1:9/callback'
const insecure = { [o.allowInsecureRequests]: true } as const

const useServerConfig = (extra: Record<string, string> = {}) =>
  setConfigForTests(parseConfig({ ...process.env, BASE_URL: server.url, ...extra }))

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  server = await startOAuthServer()
  useServerConfig()
  issuer = new URL(server.url)
  user = await signedInUser(database.db)
  as = await o.processDiscoveryResponse(
    issuer,
    await o.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  )
})
afterEach(() => useServerConfig())
afterAll(async () => {
  setConfigForTests(undefined)
  await server.close()
  useDatabase(undefined)
  await database.close()
})

async function register(metadata: Partial<o.Client> = {}): Promise<o.Client> {
  const response = await o.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [REDIRECT], client_name: 'oauth4webapi', ...metadata },
    insecure,
  )
  return o.processDynamicClientRegistrationResponse(response)
}

/** The browser leg: authorize page with the session cookie → approve → 303 Location. */
async function authorize(client: o.Client, params: Record<string, string> = {}) {
  const verifier = o.generateRandomCodeVerifier()
  const state = o.generateRandomState()
  const url = new URL(as.authorization_endpoint!)
  const query = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: await o.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: 'read:service write:issues',
    resource: `${server.url}/api/mcp`,
    state,
    ...params,
  }
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v)
  const page = await fetch(url, { headers: { cookie: user.cookie }, redirect: 'manual' })
  let location = page.headers.get('location')
  if (page.status === 200) {
    const fields = consentFields(await page.text())
    fields.set('decision', 'approve')
    fields.set('write_issues', '1')
    const posted = await fetch(new URL('/oauth/authorize', server.url), {
      method: 'POST',
      headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
      redirect: 'manual',
    })
    expect(posted.status).toBe(303)
    location = posted.headers.get('location')
  }
  // validateAuthResponse checks state and, as the metadata advertises it, RFC 9207 `iss`.
  const callback = o.validateAuthResponse(as, client, new URL(location!), state)
  return { callback, verifier, page }
}

const codeGrant = (
  client: o.Client,
  auth: o.ClientAuth,
  grant: { callback: URLSearchParams; verifier: string },
) =>
  o.authorizationCodeGrantRequest(as, client, auth, grant.callback, REDIRECT, grant.verifier, {
    additionalParameters: { resource: `${server.url}/api/mcp` },
    ...insecure,
  })

async function expectOAuthError(promise: Promise<unknown>, error: string, status = 400) {
  const thrown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(thrown).toBeInstanceOf(o.ResponseBodyError)
  const body = thrown as o.ResponseBodyError
  expect(body.error).toBe(error)
  expect(body.status).toBe(status)
  return body
}

describe('RFC 8414 / RFC 9728 discovery through oauth4webapi', () => {
  it('discovers the authorization server with the exact issuer check', () => {
    expect(as.issuer).toBe(server.url)
    expect(as.code_challenge_methods_supported).toEqual(['S256'])
    expect(as.authorization_response_iss_parameter_supported).toBe(true)
  })

  it('discovers the protected resource at the path-inserted URL', async () => {
    const resource = new URL(`${server.url}/api/mcp`)
    const rs = await o.processResourceDiscoveryResponse(
      resource,
      await o.resourceDiscoveryRequest(resource, insecure),
    )
    expect(rs.authorization_servers).toEqual([server.url])
    expect(rs.scopes_supported).toEqual(['read:service'])
  })
})

describe('RFC 6749 §4.1 + RFC 7636 + RFC 8707 through oauth4webapi', () => {
  it('registers, authorizes, exchanges, refreshes and revokes a public client', async () => {
    const client = await register()
    expect(client.token_endpoint_auth_method).toBe('none')
    const grant = await authorize(client)
    const tokens = await o.processAuthorizationCodeResponse(
      as,
      client,
      await codeGrant(client, o.None(), grant),
    )
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.scope).toBe('read:service write:issues')
    const principal = await resolveBearer(database.db, `Bearer ${tokens.access_token}`)
    expect(principal).toMatchObject({
      resource: `${server.url}/api/mcp`,
      scopes: ['read:service', 'write:issues'],
    })

    const refreshed = await o.processRefreshTokenResponse(
      as,
      client,
      await o.refreshTokenGrantRequest(as, client, o.None(), tokens.refresh_token!, {
        additionalParameters: { scope: 'read:service' },
        ...insecure,
      }),
    )
    expect(refreshed.scope).toBe('read:service')
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)

    await o.processRevocationResponse(
      await o.revocationRequest(as, client, o.None(), refreshed.refresh_token!, {
        additionalParameters: { token_type_hint: 'refresh_token' },
        ...insecure,
      }),
    )
    expect(await resolveBearer(database.db, `Bearer ${refreshed.access_token}`)).toBeNull()
  })

  it('skips the consent page on a second authorization (302 straight to the client)', async () => {
    const client = await register()
    await authorize(client)
    const second = await authorize(client)
    expect(second.page.status).toBe(302)
    expect(second.callback.get('code')).toMatch(/^svc_oac_/)
  })

  it('code replay: invalid_grant, and the first tokens are revoked', async () => {
    const client = await register()
    const grant = await authorize(client)
    const tokens = await o.processAuthorizationCodeResponse(
      as,
      client,
      await codeGrant(client, o.None(), grant),
    )
    await expectOAuthError(
      o.processAuthorizationCodeResponse(as, client, await codeGrant(client, o.None(), grant)),
      'invalid_grant',
    )
    expect(await resolveBearer(database.db, `Bearer ${tokens.access_token}`)).toBeNull()
  })

  it('wrong PKCE verifier: invalid_grant naming PKCE', async () => {
    const client = await register()
    const grant = await authorize(client)
    const wrong = { ...grant, verifier: o.generateRandomCodeVerifier() }
    const error = await expectOAuthError(
      o.processAuthorizationCodeResponse(as, client, await codeGrant(client, o.None(), wrong)),
      'invalid_grant',
    )
    expect(error.error_description).toMatch(/PKCE/)
  })

  it('plain PKCE is refused at authorize with the opaque page, never a redirect', async () => {
    const client = await register()
    const url = new URL(as.authorization_endpoint!)
    const verifier = o.generateRandomCodeVerifier()
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: verifier,
      code_challenge_method: 'plain',
    }))
      url.searchParams.set(k, v)
    const response = await fetch(url, { headers: { cookie: user.cookie }, redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
  })

  it('wrong resource at the token endpoint: invalid_target', async () => {
    const client = await register()
    const grant = await authorize(client)
    const response = await o.authorizationCodeGrantRequest(
      as,
      client,
      o.None(),
      grant.callback,
      REDIRECT,
      grant.verifier,
      {
        additionalParameters: { resource: 'https://evil.example/api/mcp' },
        ...insecure,
      },
    )
    await expectOAuthError(o.processAuthorizationCodeResponse(as, client, response), 'invalid_target')
  })

  it('refresh reuse: invalid_grant, and the chain is gone', async () => {
    const client = await register()
    const tokens = await o.processAuthorizationCodeResponse(
      as,
      client,
      await codeGrant(client, o.None(), await authorize(client)),
    )
    const rotate = () => o.refreshTokenGrantRequest(as, client, o.None(), tokens.refresh_token!, insecure)
    const next = await o.processRefreshTokenResponse(as, client, await rotate())
    await expectOAuthError(o.processRefreshTokenResponse(as, client, await rotate()), 'invalid_grant')
    expect(await resolveBearer(database.db, `Bearer ${next.access_token}`)).toBeNull()
  })

  it('scope widening on refresh: invalid_scope', async () => {
    const client = await register()
    const grant = await authorize(client, { scope: 'read:service' })
    const tokens = await o.processAuthorizationCodeResponse(
      as,
      client,
      await codeGrant(client, o.None(), grant),
    )
    const response = await o.refreshTokenGrantRequest(as, client, o.None(), tokens.refresh_token!, {
      additionalParameters: { scope: 'read:service write:issues' },
      ...insecure,
    })
    await expectOAuthError(o.processRefreshTokenResponse(as, client, response), 'invalid_scope')
  })

  it('expired code with a short OAUTH_AUTHORIZATION_CODE_TTL_SECONDS: invalid_grant', async () => {
    useServerConfig({ OAUTH_AUTHORIZATION_CODE_TTL_SECONDS: '1' })
    const client = await register()
    const grant = await authorize(client)
    await new Promise((resolve) => setTimeout(resolve, 1300))
    await expectOAuthError(
      o.processAuthorizationCodeResponse(as, client, await codeGrant(client, o.None(), grant)),
      'invalid_grant',
    )
  })
})

describe('RFC 6749 §2.3.1 confidential clients through oauth4webapi', () => {
  it.each([
    ['client_secret_post', (secret: string) => o.ClientSecretPost(secret)],
    ['HTTP Basic', (secret: string) => o.ClientSecretBasic(secret)],
  ])('authenticates with %s at the token and revocation endpoints', async (_name, auth) => {
    const client = await register({ token_endpoint_auth_method: 'client_secret_post' })
    const secret = client.client_secret as string
    expect(secret).toMatch(/^svc_cs_/)
    const tokens = await o.processAuthorizationCodeResponse(
      as,
      client,
      await codeGrant(client, auth(secret), await authorize(client)),
    )
    const refreshed = await o.processRefreshTokenResponse(
      as,
      client,
      await o.refreshTokenGrantRequest(as, client, auth(secret), tokens.refresh_token!, insecure),
    )
    await o.processRevocationResponse(
      await o.revocationRequest(as, client, auth(secret), refreshed.access_token, insecure),
    )
    expect(await resolveBearer(database.db, `Bearer ${refreshed.access_token}`)).toBeNull()
  })

  it('answers 401 invalid_client for a wrong secret (post) and challenges Basic', async () => {
    const client = await register({ token_endpoint_auth_method: 'client_secret_post' })
    await expectOAuthError(
      o.processAuthorizationCodeResponse(
        as,
        client,
        await codeGrant(client, o.ClientSecretPost('svc_cs_wrong'), await authorize(client)),
      ),
      'invalid_client',
      401,
    )
    const viaBasic = await codeGrant(client, o.ClientSecretBasic('svc_cs_wrong'), await authorize(client))
    expect(viaBasic.status).toBe(401)
    expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic/)
    await expect(o.processAuthorizationCodeResponse(as, client, viaBasic)).rejects.toThrow()
  })
})
