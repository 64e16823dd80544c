import { randomUUID } from 'node:crypto'
import type { Db } from '@/db/client'
import {
  type IssuePriority,
  type IssueStatus,
  insights,
  issues,
  memberships,
  oauthAccessTokens,
  oauthClients,
  oauthTokenChains,
  signals,
  users,
} from '@/db/schema'
import { generateToken, hashToken } from '@/lib/credentials/tokens'

let counter = 0

export async function seedIssue(
  db: Db,
  organizationId: string,
  overrides: Partial<typeof issues.$inferInsert> = {},
): Promise<typeof issues.$inferSelect> {
  counter++
  const [row] = await db
    .insert(issues)
    .values({
      organizationId,
      fingerprint: `fp-${counter}-${randomUUID()}`,
      kind: 'js_error',
      sourceType: 'session_analysis',
      title: `TypeError: cannot read properties of undefined (${counter})`,
      description: 'Thrown after clicking "Pay" on /checkout',
      status: 'unresolved' as IssueStatus,
      priority: 'high' as IssuePriority,
      previewUrl: `https://replay.example.com/sessions/s${counter}?t=1200`,
      stepsToReplicate: '1. Open /checkout\n2. Click "Pay"',
      sessionCount: 1,
      ...overrides,
    })
    .returning()
  return row!
}

/** Many issues in one statement, with createdAt spread one millisecond apart (oldest first). */
export async function seedIssues(
  db: Db,
  organizationId: string,
  count: number,
  base = Date.now() - count * 1000,
) {
  const rows = Array.from({ length: count }, (_, i) => ({
    organizationId,
    fingerprint: `bulk-${randomUUID()}`,
    kind: 'js_error',
    sourceType: 'session_analysis' as const,
    title: `Issue ${i}`,
    priority: 'medium' as IssuePriority,
    createdAt: new Date(base + i),
  }))
  const inserted: (typeof issues.$inferSelect)[] = []
  for (let i = 0; i < rows.length; i += 500)
    inserted.push(
      ...(await db
        .insert(issues)
        .values(rows.slice(i, i + 500))
        .returning()),
    )
  return inserted
}

export async function seedSignal(
  db: Db,
  organizationId: string,
  overrides: Partial<typeof signals.$inferInsert> = {},
) {
  const [row] = await db
    .insert(signals)
    .values({ organizationId, name: 'Checkout friction', prompt: 'Users who fail to pay', ...overrides })
    .returning()
  return row!
}

export async function seedInsight(
  db: Db,
  organizationId: string,
  overrides: Partial<typeof insights.$inferInsert> = {},
) {
  const start = new Date(Date.now() - 86_400_000 - Math.floor(Math.random() * 1e9))
  const [row] = await db
    .insert(insights)
    .values({
      organizationId,
      intervalStart: start,
      intervalEnd: new Date(start.getTime() + 86_400_000),
      sessionsCount: 42,
      content: '# Daily insight\n\nCheckout errors rose by 40%.',
      contentPreview: 'Daily insight Checkout errors rose by 40%.',
      ...overrides,
    })
    .returning()
  return row!
}

/**
 * An OAuth access token as the OAuth server will issue it (client, user, chain, token row),
 * for Data API and MCP tests that need a `svc_oat_` credential.
 */
export async function seedOAuthToken(
  db: Db,
  organizationId: string,
  options: {
    scope?: string
    expiresInSeconds?: number
    clientId?: string
    /** A member the grant belongs to; by default a new user, made a member of the organization. */
    userId?: string
  } = {},
) {
  const clientId = options.clientId ?? `svc_client_${randomUUID().replace(/-/g, '')}`
  await db
    .insert(oauthClients)
    .values({
      clientId,
      clientName: 'Test client',
      redirectUris: ['http://127.0.0.1:7777/callback'],
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: 'read:service write:issues',
    })
    .onConflictDoNothing()
  let userId = options.userId
  if (!userId) {
    const [user] = await db
      .insert(users)
      .values({ email: `oauth-${randomUUID()}@example.com`, passwordHash: 'x' })
      .returning()
    userId = user!.id
    // A token is honoured only while the user who granted it is a member.
    await db.insert(memberships).values({ organizationId, userId })
  }
  const scope = options.scope ?? 'read:service'
  const [chain] = await db
    .insert(oauthTokenChains)
    .values({ clientId, userId, organizationId, scope, resource: 'http://localhost:3000/api/mcp' })
    .returning()
  const token = generateToken('svc_oat_')
  const [row] = await db
    .insert(oauthAccessTokens)
    .values({
      tokenHash: hashToken(token),
      chainId: chain!.id,
      clientId,
      organizationId,
      scope,
      resource: 'http://localhost:3000/api/mcp',
      expiresAt: new Date(Date.now() + (options.expiresInSeconds ?? 3600) * 1000),
    })
    .returning()
  return { token, clientId, tokenId: row!.id, chainId: chain!.id, userId }
}
