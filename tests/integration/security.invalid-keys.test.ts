import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { POST as mcpRoute } from '@/app/api/mcp/route'
import { oauthAccessTokens, oauthTokenChains } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { recorderBatches } from '../helpers/batches'
import { api } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'
import { sendBatch } from '../helpers/ingest'
import { seedOAuthToken } from '../helpers/seed'

/**
 * An answer to a credential that does not work must not say whether it ever existed: an
 * unknown, a revoked and an expired credential (and a malformed one) get the same status, the
 * same body bytes and the same headers. The request id is the one header allowed to differ
 * (it is per request by design). Each revoked or expired credential is first shown to work, so
 * that its 401 comes from revocation or expiry and not from a typo in the test.
 */

let database: TestDatabase
let org: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  org = (await createOrganization(database.db, { name: 'Invalid keys' })).id
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const unknown = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`

interface Answer {
  status: number
  body: string
  headers: [string, string][]
}

/** Everything a client can observe of an answer, with the per-request id taken out. */
async function observe(response: Response): Promise<Answer> {
  const headers = [...response.headers].filter(([name]) => name !== 'x-request-id')
  expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  return { status: response.status, body: await response.text(), headers: headers.sort() }
}

async function expectIndistinguishable(answers: Record<string, Answer>, status: number) {
  const [first, ...rest] = Object.entries(answers)
  expect(first![1].status).toBe(status)
  for (const [label, answer] of rest) expect(answer, `${label} vs ${first![0]}`).toEqual(first![1])
}

/** Static keys (no expiry exists for them) and OAuth access tokens, each shown valid first. */
async function credentialsGoneBad(accepts: (token: string) => Promise<boolean>) {
  const apiKey = await createKey(database.db, { organizationId: org, type: 'api' })
  const mcpKey = await createKey(database.db, { organizationId: org, type: 'mcp' })
  const revokedToken = await seedOAuthToken(database.db, org)
  const expiredToken = await seedOAuthToken(database.db, org)
  const revokedChain = await seedOAuthToken(database.db, org)
  for (const token of [apiKey.key, mcpKey.key, revokedToken.token, expiredToken.token, revokedChain.token])
    expect(await accepts(token), token.slice(0, 8)).toBe(true)

  await revokeKey(database.db, { id: apiKey.id })
  await revokeKey(database.db, { id: mcpKey.id })
  await database.db
    .update(oauthAccessTokens)
    .set({ revokedAt: sql`now()` })
    .where(eq(oauthAccessTokens.id, revokedToken.tokenId))
  await database.db
    .update(oauthAccessTokens)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(oauthAccessTokens.id, expiredToken.tokenId))
  await database.db
    .update(oauthTokenChains)
    .set({ revokedAt: sql`now()` })
    .where(eq(oauthTokenChains.id, revokedChain.chainId))
  return {
    'unknown svc_api_ key': unknown('svc_api_'),
    'revoked svc_api_ key': apiKey.key,
    'unknown svc_mcp_ key': unknown('svc_mcp_'),
    'revoked svc_mcp_ key': mcpKey.key,
    'unknown svc_oat_ token': unknown('svc_oat_'),
    'revoked svc_oat_ token': revokedToken.token,
    'expired svc_oat_ token': expiredToken.token,
    'svc_oat_ token of a revoked chain': revokedChain.token,
    'malformed: no known prefix': 'not-a-key-at-all',
    'malformed: a known prefix and junk': 'svc_api_!!',
    'malformed: an ingest key': unknown('svc_pk_'),
    'malformed: longer than any key': unknown('svc_api_').repeat(6),
  }
}

describe('Data API: 401s for unknown, revoked, expired and malformed tokens are byte-identical', () => {
  it.each([
    ['GET /api/v1/issues', (token: string | null) => api.listIssues(token)],
    ['GET /api/v1/signals', (token: string | null) => api.listSignals(token)],
  ])('%s', async (_route, call) => {
    const tokens = await credentialsGoneBad(async (token) => (await call(token)).status === 200)
    const answers: Record<string, Answer> = {}
    for (const [label, token] of Object.entries(tokens)) answers[label] = await observe(await call(token))
    // The spec lists a missing token with these: one message for all.
    answers['no Authorization header'] = await observe(await call(null))
    await expectIndistinguishable(answers, 401)
    expect(JSON.parse(Object.values(answers)[0]!.body)).toEqual({ error: 'Missing or invalid bearer token' })
  })
})

describe('MCP: 401s for unknown, revoked, expired and malformed tokens are byte-identical', () => {
  const initialize = (token: string) =>
    mcpRoute(
      new Request('http://localhost:3000/api/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      }),
    )

  it('POST /api/mcp', async () => {
    const tokens = await credentialsGoneBad(async (token) => (await initialize(token)).status === 200)
    const answers: Record<string, Answer> = {}
    for (const [label, token] of Object.entries(tokens))
      answers[label] = await observe(await initialize(token))
    await expectIndistinguishable(answers, 401)
    const first = Object.values(answers)[0]!
    // RFC 6750 §3: a presented token that does not work is `invalid_token`, whatever the reason.
    expect(new Map(first.headers).get('www-authenticate')).toMatch(/^Bearer error="invalid_token", /)
  })
})

describe('ingest: 401s for unknown, revoked and malformed keys are byte-identical', () => {
  // The per-key rate-limit headers come with every answer; a frozen clock keeps their reset
  // time equal, and each key is presented once, so their counts are equal too.
  freezeRateLimitClock()

  const batch = () =>
    recorderBatches({
      sessionId: `invalid-${randomBytes(6).toString('hex')}`,
      events: [
        { type: 4, timestamp: 1_700_000_000_000, data: { href: 'http://127.0.0.1/', width: 1, height: 1 } },
      ],
      final: false,
    })[0]!

  it.each(['header', 'query'] as const)('POST /api/sdk/replay, key in the %s', async (via) => {
    const revoked = await createKey(database.db, { organizationId: org, type: 'ingest' })
    expect((await sendBatch(batch(), { key: revoked.key, via })).status).toBe(200)
    await revokeKey(database.db, { id: revoked.id })
    const keys = {
      'unknown svc_pk_ key': unknown('svc_pk_'),
      'revoked svc_pk_ key': revoked.key,
      'malformed: no known prefix': 'not-a-key-at-all',
      'malformed: a Data API key': (await createKey(database.db, { organizationId: org, type: 'api' })).key,
      'malformed: longer than any key': unknown('svc_pk_').repeat(6),
    }
    // Each key string once more before the answers compared, as the revoked one was while
    // valid: X-RateLimit-Remaining counts presentations of a string, whether or not it is a key.
    const body = batch()
    for (const [label, key] of Object.entries(keys))
      if (key !== revoked.key) expect((await sendBatch(body, { key, via })).status, label).toBe(401)
    const answers: Record<string, Answer> = {}
    for (const [label, key] of Object.entries(keys))
      answers[label] = await observe(await sendBatch(body, { key, via }))
    await expectIndistinguishable(answers, 401)
    expect(JSON.parse(Object.values(answers)[0]!.body)).toEqual({ error: 'Invalid or revoked API key' })
  })
})
