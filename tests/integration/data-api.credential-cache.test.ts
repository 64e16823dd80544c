import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberships } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { useDatabase } from '@/lib/db'
import { removeMember } from '@/lib/members/members'
import { listConnectedApps } from '@/lib/oauth/connected-apps'
import { revokeConsent } from '@/lib/oauth/revoke-consent'
import { createOrganization } from '@/lib/orgs/create-organization'
import { api } from '../helpers/data-api'
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
import { seedIssue } from '../helpers/seed'

/**
 * Bearer credentials are resolved through a short-lived cache (lib/credentials/credential-cache.ts).
 * Whatever that cache holds, a credential revoked on this instance is refused at its very next
 * request: each case below uses the credential first (so a cache would hold it), revokes it the
 * way a user does, and asks again at once.
 */

let database: TestDatabase
let client: TestClient
const MISSING = { error: 'Missing or invalid bearer token' }

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  client = await registerClient({ client_name: 'Cache test app' })
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

/** Lists and reads one issue, twice: the second round is the one a cache answers. */
async function expectAccepted(token: string, organizationId: string) {
  const issue = await seedIssue(database.db, organizationId)
  for (let round = 0; round < 2; round++) {
    expect((await api.listIssues(token)).status).toBe(200)
    expect((await api.getIssue(token, issue.id)).status).toBe(200)
  }
  return issue.id
}

async function expectRefused(token: string, issueId: string) {
  for (const response of [await api.listIssues(token), await api.getIssue(token, issueId)]) {
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual(MISSING)
  }
}

async function oauthTokens() {
  const user = await signedInUser(database.db, ['Cached org'])
  const response = await exchange(client, await authorizeCode(user, client))
  expect(response.status).toBe(200)
  return { user, issued: (await response.json()) as TokenBody, organizationId: user.organizations[0]!.id }
}

describe('a credential used and then revoked is refused at its next request', () => {
  it.each(['api', 'mcp'] as const)('a static svc_%s_ key revoked in Settings', async (type) => {
    const org = (await createOrganization(database.db, { name: `Keys ${type}` })).id
    const key = await createKey(database.db, { organizationId: org, type })
    const issueId = await expectAccepted(key.key, org)
    await revokeKey(database.db, { id: key.id, organizationId: org })
    await expectRefused(key.key, issueId)
  })

  it('an OAuth access token whose consent was revoked on Connected apps', async () => {
    const { user, issued, organizationId } = await oauthTokens()
    const issueId = await expectAccepted(issued.access_token, organizationId)
    const [app] = await listConnectedApps(database.db, user.id)
    await revokeConsent(database.db, user.id, app!.consentId)
    await expectRefused(issued.access_token, issueId)
  })

  it('an OAuth access token whose user was removed from the organization', async () => {
    const { user, issued, organizationId } = await oauthTokens()
    const issueId = await expectAccepted(issued.access_token, organizationId)
    // Another owner first: the last owner cannot be removed.
    const other = await signedInUser(database.db, ['Unrelated'])
    await database.db.insert(memberships).values({ organizationId, userId: other.id, role: 'owner' })
    await removeMember(database.db, { organizationId, userId: user.id })
    await expectRefused(issued.access_token, issueId)
  })

  it('an OAuth access token revoked at the revocation endpoint (RFC 7009)', async () => {
    const { issued, organizationId } = await oauthTokens()
    const issueId = await expectAccepted(issued.access_token, organizationId)
    const response = await oauth.revoke({ token: issued.access_token, client_id: client.client_id })
    expect(response.status).toBe(200)
    await expectRefused(issued.access_token, issueId)
  })

  it('the access token of a chain whose refresh token was reused', async () => {
    const { issued, organizationId } = await oauthTokens()
    const refresh = (token: string) =>
      oauth.token({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id })
    const rotated = await refresh(issued.refresh_token)
    expect(rotated.status).toBe(200)
    const next = (await rotated.json()) as TokenBody
    const issueId = await expectAccepted(next.access_token, organizationId)
    // Presenting the rotated-out token again (no grace by default) revokes the whole chain.
    const reused = await refresh(issued.refresh_token)
    expect(reused.status).toBe(400)
    await expectRefused(next.access_token, issueId)
  })
})
