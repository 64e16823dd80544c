import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { useDatabase } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { listConnectedApps } from '@/lib/oauth/connected-apps'
import { revokeConsent } from '@/lib/oauth/revoke-consent'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  authorizeCode,
  exchange,
  oauth,
  registerClient,
  signedInUser,
  type TestClient,
  type TokenBody,
} from '../helpers/oauth'

let database: TestDatabase
let user: Awaited<ReturnType<typeof signedInUser>>
let client: TestClient
let confidential: TestClient

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  user = await signedInUser(database.db)
  client = await registerClient({ client_name: 'Public app' })
  confidential = await registerClient({
    client_name: 'Confidential app',
    token_endpoint_auth_method: 'client_secret_post',
  })
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const bearer = (token: string) => resolveBearer(database.db, `Bearer ${token}`)

async function tokens(app = client, who = user, scope?: string): Promise<TokenBody> {
  const response = await exchange(app, await authorizeCode(who, app, { scope }))
  expect(response.status).toBe(200)
  return (await response.json()) as TokenBody
}

const refresh = (token: string, app = client) =>
  oauth.token({
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: app.client_id,
    client_secret: app.client_secret,
  })

async function revoke(fields: Record<string, string | undefined>, app = client) {
  const response = await oauth.revoke({
    client_id: app.client_id,
    client_secret: app.client_secret,
    ...fields,
  })
  expect(response.headers.get('access-control-allow-origin')).toBe('*')
  expect(response.headers.get('cache-control')).toBe('no-store')
  return response
}

describe('RFC 7009 §2.1 revocation request', () => {
  it('revokes an access token alone: 200, the token stops working, refresh still works', async () => {
    const issued = await tokens()
    const response = await revoke({ token: issued.access_token, token_type_hint: 'access_token' })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('')
    expect(await bearer(issued.access_token)).toBeNull()
    expect((await refresh(issued.refresh_token)).status).toBe(200)
  })

  it('revokes a refresh token with its whole chain', async () => {
    const issued = await tokens()
    expect((await revoke({ token: issued.refresh_token })).status).toBe(200)
    expect(await bearer(issued.access_token)).toBeNull()
    expect((await refresh(issued.refresh_token)).status).toBe(400)
  })

  it('ignores a wrong token_type_hint (the prefix decides)', async () => {
    const issued = await tokens()
    expect((await revoke({ token: issued.refresh_token, token_type_hint: 'access_token' })).status).toBe(200)
    expect(await bearer(issued.access_token)).toBeNull()
  })

  it.each([
    ['an unknown access token', 'svc_oat_unknown'],
    ['an unknown refresh token', 'svc_ort_unknown'],
    ['garbage', 'not-a-token'],
    ['a very long value', 'x'.repeat(5000)],
  ])('answers 200 for %s (spec: always 200)', async (_name, token) => {
    expect((await revoke({ token })).status).toBe(200)
  })

  it('answers 200 twice for the same token', async () => {
    const issued = await tokens()
    expect((await revoke({ token: issued.access_token })).status).toBe(200)
    expect((await revoke({ token: issued.access_token })).status).toBe(200)
  })

  it("answers 200 for another client's token and leaves it alone", async () => {
    const issued = await tokens()
    const other = await registerClient()
    expect((await revoke({ token: issued.access_token }, other)).status).toBe(200)
    expect((await revoke({ token: issued.refresh_token }, other)).status).toBe(200)
    expect(await bearer(issued.access_token)).not.toBeNull()
  })

  it('authenticates confidential clients (post or Basic); a wrong secret is 401 invalid_client', async () => {
    const issued = await tokens(confidential)
    const wrong = await revoke(
      { token: issued.access_token },
      { ...confidential, client_secret: 'svc_cs_wrong' },
    )
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as TokenBody).error).toBe('invalid_client')
    expect(await bearer(issued.access_token)).not.toBeNull()
    const basic = `Basic ${Buffer.from(`${confidential.client_id}:${confidential.client_secret}`).toString('base64')}`
    const viaBasic = await oauth.revoke({ token: issued.access_token }, { authorization: basic })
    expect(viaBasic.status).toBe(200)
    expect(await bearer(issued.access_token)).toBeNull()
  })

  it('answers invalid_request without a token', async () => {
    const response = await revoke({})
    expect(response.status).toBe(400)
    expect(((await response.json()) as TokenBody).error).toBe('invalid_request')
  })
})

describe('Connected apps: listConnectedApps and revokeConsent', () => {
  it('lists consents with client name, scopes, organization and use, and revoking one revokes its tokens', async () => {
    const owner = await signedInUser(database.db, ['Org A'])
    const app = await registerClient({ client_name: 'Listed app' })
    const issued = await tokens(app, owner, 'read:service write:issues')
    const [listed, ...rest] = await listConnectedApps(database.db, owner.id)
    expect(rest).toEqual([])
    expect(listed).toMatchObject({
      clientId: app.client_id,
      clientName: 'Listed app',
      scopes: ['read:service', 'write:issues'],
      organization: { id: owner.organizations[0]!.id, name: 'Org A' },
      redirectUris: app.redirect_uris,
    })
    expect(listed!.createdAt).toBeInstanceOf(Date)
    expect(listed!.lastUsedAt).toBeInstanceOf(Date)

    // A code issued before the revocation is refused afterwards too.
    const pending = await authorizeCode(owner, app, { scope: 'read:service write:issues' })
    await revokeConsent(database.db, owner.id, listed!.consentId)
    expect(await listConnectedApps(database.db, owner.id)).toEqual([])
    expect(await bearer(issued.access_token)).toBeNull()
    expect((await refresh(issued.refresh_token, app)).status).toBe(400)
    expect((await exchange(app, pending)).status).toBe(400)
  })

  it("refuses another user's consent, an unknown id and a second revocation", async () => {
    const owner = await signedInUser(database.db)
    await tokens(client, owner)
    const [listed] = await listConnectedApps(database.db, owner.id)
    const stranger = await signedInUser(database.db)
    await expect(revokeConsent(database.db, stranger.id, listed!.consentId)).rejects.toThrow(NotFoundError)
    await expect(revokeConsent(database.db, owner.id, 'not-a-uuid')).rejects.toThrow(NotFoundError)
    await revokeConsent(database.db, owner.id, listed!.consentId)
    await expect(revokeConsent(database.db, owner.id, listed!.consentId)).rejects.toThrow(NotFoundError)
  })
})
