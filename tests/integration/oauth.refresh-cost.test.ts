import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { oauthClients, oauthConsents, oauthRefreshTokens, oauthTokenChains } from '@/db/schema'
import { resolveBearer } from '@/lib/credentials/resolve-bearer'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { touchGrantUse } from '@/lib/oauth/touch-grant-use'
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
import { logStatements, type StatementLog } from '../helpers/statement-count'
import { waitFor } from '../helpers/wait'

/** Issue 17: what one refresh grant costs the database, on both engines. */

let database: TestDatabase
let log: StatementLog
let user: Awaited<ReturnType<typeof signedInUser>>

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  user = await signedInUser(database.db)
  log = logStatements(database)
})
afterEach(() => log.reset())
afterAll(async () => {
  log.stop()
  useDatabase(undefined)
  await database.close()
})

const refresh = (app: TestClient, refreshToken: string) =>
  oauth.token({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: app.client_id,
    client_secret: app.client_secret,
  })

async function tokens(app: TestClient): Promise<TokenBody> {
  const response = await exchange(app, await authorizeCode(user, app))
  expect(response.status).toBe(200)
  return (await response.json()) as TokenBody
}

async function ok(response: Response): Promise<TokenBody> {
  expect(response.status).toBe(200)
  return (await response.json()) as TokenBody
}

async function lastUsed(app: TestClient) {
  const [row] = await database.db
    .select({ client: oauthClients.lastUsedAt, consent: oauthConsents.lastUsedAt })
    .from(oauthClients)
    .innerJoin(oauthConsents, eq(oauthConsents.clientId, oauthClients.clientId))
    .where(eq(oauthClients.clientId, app.client_id))
  return row!
}

/** The first refresh of a client records its use after answering; wait for that write. */
async function firstRefresh(app: TestClient): Promise<TokenBody> {
  const first = await tokens(app)
  const second = await ok(await refresh(app, first.refresh_token))
  await waitFor('the client use to be recorded', async () => (await lastUsed(app)).client !== null)
  return second
}

const touchesLastUsed = (statement: string) => /last_used_at/i.test(statement)

describe('round trips per refresh grant (at most four: BEGIN, lock, rotate, COMMIT)', () => {
  it.each([
    ['a public client', {}],
    ['a confidential client (client_secret_post)', { token_endpoint_auth_method: 'client_secret_post' }],
  ])('%s', async (_name, metadata) => {
    const app = await registerClient(metadata)
    let current = await firstRefresh(app)
    for (let i = 0; i < 3; i++) {
      log.reset()
      current = await ok(await refresh(app, current.refresh_token))
      expect(log.statements, log.statements.join('\n')).toHaveLength(4)
      expect(log.statements[0]).toMatch(/^begin/i)
      expect(log.statements[3]).toMatch(/^commit/i)
      expect(log.statements.filter(touchesLastUsed)).toEqual([])
    }
  })

  it('a reused token costs no more, and its chain is revoked', async () => {
    const app = await registerClient()
    const first = await tokens(app)
    const second = await ok(await refresh(app, first.refresh_token))
    log.reset()
    const reuse = await refresh(app, first.refresh_token)
    expect(reuse.status).toBe(400)
    expect(((await reuse.json()) as TokenBody).error_description).toMatch(/already used/)
    expect(log.statements.length).toBeLessThanOrEqual(4)
    expect(await resolveBearer(database.db, `Bearer ${second.access_token}`)).toBeNull()
  })
})

describe('concurrent refreshes', () => {
  it('of one token: exactly one wins, and the reuse revokes the chain it issued', async () => {
    const app = await registerClient({ token_endpoint_auth_method: 'client_secret_post' })
    const first = await tokens(app)
    const responses = await Promise.all([
      refresh(app, first.refresh_token),
      refresh(app, first.refresh_token),
    ])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 400])
    const winner = (await responses.find((r) => r.status === 200)!.json()) as TokenBody
    const loser = (await responses.find((r) => r.status === 400)!.json()) as TokenBody
    expect(loser).toMatchObject({
      error: 'invalid_grant',
      error_description: 'The refresh token was already used',
    })
    expect(await resolveBearer(database.db, `Bearer ${winner.access_token}`)).toBeNull()
    const [chain] = await database.db
      .select({ revokedAt: oauthTokenChains.revokedAt })
      .from(oauthRefreshTokens)
      .innerJoin(oauthTokenChains, eq(oauthTokenChains.id, oauthRefreshTokens.chainId))
      .where(eq(oauthRefreshTokens.tokenHash, hashToken(winner.refresh_token)))
    expect(chain!.revokedAt).not.toBeNull()
  })

  it('of different chains under one consent: all succeed (the consent is shared, not queued on)', async () => {
    const app = await registerClient()
    const chains = [await tokens(app), await tokens(app), await tokens(app), await tokens(app)]
    const responses = await Promise.all(chains.map((t) => refresh(app, t.refresh_token)))
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200])
  })
})

describe('last_used_at is written at most once a minute per row, never in the grant', () => {
  it('refreshes within a minute of the first write leave the client and consent rows alone', async () => {
    const app = await registerClient()
    let current = await firstRefresh(app)
    await waitFor('the consent use to be recorded', async () => (await lastUsed(app)).consent !== null)
    const recorded = await lastUsed(app)
    log.reset()
    for (let i = 0; i < 5; i++) current = await ok(await refresh(app, current.refresh_token))
    // Give a (wrongly) scheduled write time to be sent before looking.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(log.statements.filter(touchesLastUsed)).toEqual([])
    expect(await lastUsed(app)).toEqual(recorded)
  })

  it('another process a minute later still does not write a row the database saw used within the minute', async () => {
    const app = await registerClient()
    await firstRefresh(app)
    await waitFor('the consent use to be recorded', async () => (await lastUsed(app)).consent !== null)
    const recorded = await lastUsed(app)
    const [consent] = await database.db
      .select({ id: oauthConsents.id })
      .from(oauthConsents)
      .where(eq(oauthConsents.clientId, app.client_id))
    log.reset()
    // This process's memory says a minute has passed; the rows' own times say it has not.
    await touchGrantUse(database.db, { clientId: app.client_id, consentId: consent!.id }, Date.now() + 61_000)
    expect(log.statements.filter(touchesLastUsed)).toHaveLength(2)
    expect(await lastUsed(app)).toEqual(recorded)
  })
})
