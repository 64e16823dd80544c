import { setTimeout as sleep } from 'node:timers/promises'
import { and, eq, isNull } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberships, oauthAccessTokens, oauthConsents } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { removeMember } from '@/lib/members/members'
import { revokeConsent } from '@/lib/oauth/revoke-consent'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { type McpTestServer, rawPost, startMcpServer } from '../helpers/mcp'
import {
  authorizeCode,
  exchange,
  oauth,
  registerClient,
  signedInUser,
  type TestClient,
  type TokenBody,
} from '../helpers/oauth'

/**
 * Enough rounds for the exchange and the revocation to interleave every way on Postgres, where
 * they run on two connections; PGlite runs one statement at a time, so fewer rounds show it.
 */
const ROUNDS = process.env.DATABASE_URL ? 50 : 10

/**
 * The token request goes through the route handler (parsing, client and PKCE checks) before
 * its transaction; the revocation is a direct call. Started together, the revocation would
 * always finish first, so it starts after a delay that sweeps 0–9 ms over the rounds: some
 * rounds revoke before, some during and some after the token endpoint's transaction.
 */
const staggered = <T>(round: number, revoke: () => Promise<T>) => sleep(round % 10).then(revoke)
const MISSING = { error: 'Missing or invalid bearer token' }
const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/api/mcp'

let database: TestDatabase
let server: McpTestServer
let client: TestClient

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  server = await startMcpServer()
  client = await registerClient({ client_name: 'Shared public app' })
})
afterAll(async () => {
  await server?.close()
  useDatabase(undefined)
  await database.close()
})

type User = Awaited<ReturnType<typeof signedInUser>>

async function activeConsentId(user: User): Promise<string> {
  const [row] = await database.db
    .select({ id: oauthConsents.id })
    .from(oauthConsents)
    .where(and(eq(oauthConsents.userId, user.id), isNull(oauthConsents.revokedAt)))
  return row!.id
}

const refresh = (token: string) =>
  oauth.token({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id })

async function tokens(user: User): Promise<TokenBody> {
  const response = await exchange(client, await authorizeCode(user, client))
  expect(response.status).toBe(200)
  return (await response.json()) as TokenBody
}

/** The spec's 401 on the Data API and at the MCP endpoint. */
async function expectRefused(accessToken: string) {
  const list = await api.listIssues(accessToken)
  expect(list.status).toBe(401)
  expect(await list.json()).toEqual(MISSING)
  const mcp = await rawPost(server.url, { authorization: `Bearer ${accessToken}` })
  expect(mcp.status).toBe(401)
  expect(((await mcp.json()) as { error: string }).error).toBe('invalid_token')
  expect(mcp.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", scope="read:service write:issues", resource_metadata="${METADATA}"`,
  )
}

/** The revocation's own sweep reached the token too (the row lock), not only the resolver. */
async function expectRowRevoked(accessToken: string) {
  const [row] = await database.db
    .select({ revokedAt: oauthAccessTokens.revokedAt })
    .from(oauthAccessTokens)
    .where(eq(oauthAccessTokens.tokenHash, hashToken(accessToken)))
  expect(row?.revokedAt).toBeInstanceOf(Date)
}

describe('revocation takes effect at once', () => {
  it('a consent revoked on Connected apps: the access token is refused on the Data API and MCP', async () => {
    const user = await signedInUser(database.db)
    const issued = await tokens(user)
    expect((await api.listIssues(issued.access_token)).status).toBe(200)
    await revokeConsent(database.db, user.id, await activeConsentId(user))
    await expectRefused(issued.access_token)
    expect((await refresh(issued.refresh_token)).status).toBe(400)
  })

  it('a member removed: their access token is refused on the Data API and MCP', async () => {
    const user = await signedInUser(database.db)
    const issued = await tokens(user)
    expect((await rawPost(server.url, { authorization: `Bearer ${issued.access_token}` })).status).not.toBe(
      401,
    )
    await removeMember(database.db, { organizationId: user.organizations[0]!.id, userId: user.id })
    await expectRefused(issued.access_token)
    expect((await refresh(issued.refresh_token)).status).toBe(400)
  })

  it('a token whose user left the organization is refused even if its rows were never swept', async () => {
    const user = await signedInUser(database.db)
    const issued = await tokens(user)
    // Only the membership goes (a path that forgot revokeMemberAccess): the resolver still refuses.
    await database.db
      .delete(memberships)
      .where(and(eq(memberships.userId, user.id), eq(memberships.organizationId, user.organizations[0]!.id)))
    await expectRefused(issued.access_token)
  })

  it('a token whose consent was revoked is refused even if its rows were never swept', async () => {
    const user = await signedInUser(database.db)
    const issued = await tokens(user)
    await database.db
      .update(oauthConsents)
      .set({ revokedAt: new Date() })
      .where(eq(oauthConsents.userId, user.id))
    await expectRefused(issued.access_token)
  })
})

describe('revocation racing the token endpoint', () => {
  it(`a code exchanged concurrently with its consent's revocation yields no usable token (${ROUNDS} rounds)`, async () => {
    const outcomes = { issued: 0, refused: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const user = await signedInUser(database.db, [`Race ${round}`])
      const grant = await authorizeCode(user, client)
      const consentId = await activeConsentId(user)
      const [response] = await Promise.all([
        exchange(client, grant),
        staggered(round, () => revokeConsent(database.db, user.id, consentId)),
      ])
      const body = (await response.json()) as TokenBody
      if (response.status === 200) {
        outcomes.issued++
        await expectRowRevoked(body.access_token)
        await expectRefused(body.access_token)
        expect((await refresh(body.refresh_token)).status).toBe(400)
      } else {
        outcomes.refused++
        expect(response.status).toBe(400)
        expect(body.error).toBe('invalid_grant')
      }
    }
    expect(outcomes.issued + outcomes.refused).toBe(ROUNDS)
  }, 300_000)

  it(`a refresh concurrent with the member's removal yields no usable token (${ROUNDS} rounds)`, async () => {
    const outcomes = { issued: 0, refused: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const user = await signedInUser(database.db, [`Leaving ${round}`])
      const first = await tokens(user)
      const [response] = await Promise.all([
        refresh(first.refresh_token),
        staggered(round, () =>
          removeMember(database.db, { organizationId: user.organizations[0]!.id, userId: user.id }),
        ),
      ])
      const body = (await response.json()) as TokenBody
      await expectRefused(first.access_token)
      if (response.status === 200) {
        outcomes.issued++
        await expectRowRevoked(body.access_token)
        await expectRefused(body.access_token)
        expect((await refresh(body.refresh_token)).status).toBe(400)
      } else {
        outcomes.refused++
        expect(response.status).toBe(400)
        expect(body.error).toBe('invalid_grant')
      }
    }
    expect(outcomes.issued + outcomes.refused).toBe(ROUNDS)
  }, 300_000)

  it(`a refresh concurrent with the consent's revocation yields no usable token (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = await signedInUser(database.db, [`Withdrawn ${round}`])
      const first = await tokens(user)
      const consentId = await activeConsentId(user)
      const [response] = await Promise.all([
        refresh(first.refresh_token),
        staggered(round, () => revokeConsent(database.db, user.id, consentId)),
      ])
      const body = (await response.json()) as TokenBody
      if (response.status === 200) {
        await expectRowRevoked(body.access_token)
        await expectRefused(body.access_token)
      } else expect(body.error).toBe('invalid_grant')
    }
  }, 300_000)
})
