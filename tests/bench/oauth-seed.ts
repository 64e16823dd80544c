import { randomUUID } from 'node:crypto'
import type { Db } from '@/db/client'
import {
  memberships,
  oauthAccessTokens,
  oauthClients,
  oauthConsents,
  oauthRefreshTokens,
  oauthTokenChains,
  users,
} from '@/db/schema'
import { SCOPES } from '@/lib/credentials/scopes'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { createOrganization } from '@/lib/orgs/create-organization'

/**
 * The state the token endpoint sees after `chains` independent authorization_code exchanges:
 * one public client (token_endpoint_auth_method none, like an MCP client), `users` members of
 * one organization each with a consent for it, and per chain one access token and one live,
 * never-rotated refresh token. Rows are written directly, in batches, the way
 * lib/oauth/issue-tokens.ts stores them (SHA-256 hashes only); the plaintext refresh tokens
 * are returned, one per chain, so that every benchmark request presents a distinct token.
 *
 * Chains are spread over the users round-robin, so consecutive requests touch different
 * consent rows: only the client row is shared by every refresh, as it is in production,
 * where one registered client (one app) serves all of its users.
 */

/** A refresh token and the client it was issued to. */
export interface RefreshCredential {
  token: string
  clientId: string
}

export interface SeededOAuth {
  /** The first client: the one every chain belongs to unless `clients` > 1. */
  clientId: string
  refreshTokens: RefreshCredential[]
  seconds: number
}

const BATCH = 500
const SCOPE = SCOPES.read
// Not a password hash: the benchmark's users never sign in, and hashing thousands of
// passwords with the real KDF would only make seeding slow.
const NO_LOGIN = 'bench-user-no-login'
const DAY_MS = 86_400_000

async function inBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH))
}

export async function seedOAuth(
  db: Db,
  /**
   * `clients` > 1 spreads the chains over that many registered clients (a diagnostic: it
   * takes the one shared client row out of the picture).
   */
  options: { chains: number; users: number; clients?: number; resource: string },
): Promise<SeededOAuth> {
  const started = performance.now()
  const org = await createOrganization(db, { name: 'OAuth benchmark' })
  const clientIds = Array.from({ length: Math.max(1, options.clients ?? 1) }, () =>
    generateToken(TOKEN_PREFIXES.oauthClient),
  )
  await db.insert(oauthClients).values(
    clientIds.map((clientId, i) => ({
      clientId,
      clientName: `OAuth benchmark client ${i + 1}`,
      redirectUris: ['http://127.0.0.1/callback'],
      tokenEndpointAuthMethod: 'none' as const,
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: SCOPE,
    })),
  )

  const userIds = Array.from({ length: options.users }, () => randomUUID())
  await inBatches(userIds, (batch) =>
    db
      .insert(users)
      .values(batch.map((id) => ({ id, email: `bench-${id}@example.test`, passwordHash: NO_LOGIN }))),
  )
  await inBatches(userIds, (batch) =>
    db
      .insert(memberships)
      .values(batch.map((userId) => ({ organizationId: org.id, userId, role: 'member' as const }))),
  )

  // One consent per (user, client) pair that has a chain, as the consent screen would leave.
  const consents = new Map<string, { id: string; userId: string; clientId: string }>()
  const accessExpiry = new Date(Date.now() + 3_600_000)
  const refreshExpiry = new Date(Date.now() + 30 * DAY_MS)
  const refreshTokens: RefreshCredential[] = []
  const chains = Array.from({ length: options.chains }, (_, i) => {
    const userId = userIds[i % userIds.length]!
    const clientId = clientIds[i % clientIds.length]!
    const pair = `${userId} ${clientId}`
    let consent = consents.get(pair)
    if (!consent) {
      consent = { id: randomUUID(), userId, clientId }
      consents.set(pair, consent)
    }
    const refreshToken = generateToken(TOKEN_PREFIXES.oauthRefresh)
    refreshTokens.push({ token: refreshToken, clientId })
    return {
      id: randomUUID(),
      userId,
      clientId,
      consentId: consent.id,
      refreshHash: hashToken(refreshToken),
      accessHash: hashToken(generateToken(TOKEN_PREFIXES.oauthAccess)),
    }
  })
  await inBatches([...consents.values()], (batch) =>
    db.insert(oauthConsents).values(batch.map((c) => ({ ...c, organizationId: org.id, scope: SCOPE }))),
  )
  await inBatches(chains, (batch) =>
    db.insert(oauthTokenChains).values(
      batch.map((chain) => ({
        id: chain.id,
        clientId: chain.clientId,
        userId: chain.userId,
        organizationId: org.id,
        consentId: chain.consentId,
        scope: SCOPE,
        resource: options.resource,
      })),
    ),
  )
  await inBatches(chains, (batch) =>
    db.insert(oauthAccessTokens).values(
      batch.map((chain) => ({
        tokenHash: chain.accessHash,
        chainId: chain.id,
        clientId: chain.clientId,
        organizationId: org.id,
        scope: SCOPE,
        resource: options.resource,
        expiresAt: accessExpiry,
      })),
    ),
  )
  await inBatches(chains, (batch) =>
    db.insert(oauthRefreshTokens).values(
      batch.map((chain) => ({
        tokenHash: chain.refreshHash,
        chainId: chain.id,
        scope: SCOPE,
        expiresAt: refreshExpiry,
      })),
    ),
  )
  return { clientId: clientIds[0]!, refreshTokens, seconds: (performance.now() - started) / 1000 }
}
