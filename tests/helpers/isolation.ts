import { createHash, randomUUID } from 'node:crypto'
import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core'
import { encode } from 'next-auth/jwt'
import type { Db } from '@/db/client'
import {
  credentials,
  insights,
  invitations,
  issueActivities,
  issueSessions,
  issues,
  issueVerifications,
  jobRuns,
  memberships,
  oauthAccessTokens,
  oauthAuthorizationCodes,
  oauthClients,
  oauthConsents,
  oauthRefreshTokens,
  oauthTokenChains,
  organizations,
  outbox,
  releases,
  replayBatches,
  replaySessions,
  savedSearches,
  sessionTimelineEntries,
  signalMatches,
  signals,
  users,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
} from '@/db/schema'
import { analyzeEvents } from '@/lib/analysis'
import { type CreatedKey, createKey } from '@/lib/credentials/create-key'
import { generateToken, hashToken } from '@/lib/credentials/tokens'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { recordVerification } from '@/lib/issues/verifications'
import { createInvitation } from '@/lib/members/create-invitation'
import { createOrganization } from '@/lib/orgs/create-organization'
import { replaceTrail } from '@/lib/sessions/store-trail'
import { recordMatch } from '@/lib/signals/record-matches'
import type { BlobStore } from '@/lib/storage/types'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { ingestAs } from './dashboard-session'
import { loadRecording } from './pipeline'
import { seedInsight, seedIssue, seedOAuthToken, seedSignal } from './seed'

/**
 * One organization with data of every kind the service stores, made through the real code
 * paths where they exist (ingest route, createKey, createInvitation, updateIssueStatus,
 * recordMatch, createEndpoint) and by insert only where no code path is reachable from a test
 * (issue/session links, webhook deliveries, OAuth consents and refresh tokens).
 */
export interface Tenant {
  id: string
  name: string
  owner: { id: string; email: string; cookie: string }
  member: { id: string; email: string }
  keys: { ingest: CreatedKey; apiRead: CreatedKey; apiWrite: CreatedKey; mcp: CreatedKey }
  oauth: {
    read: Awaited<ReturnType<typeof seedOAuthToken>>
    write: Awaited<ReturnType<typeof seedOAuthToken>>
  }
  consentId: string
  invitation: { id: string; token: string; email: string }
  /** Internal session ids (uuid) and the recorder's ids they were sent under. */
  sessions: { id: string; externalId: string }[]
  /** Release names: `shared` (every tenant has one so named; sessions[0] ran it), `own` (sessions[1]). */
  releases: { shared: string; own: string }
  /**
   * [0] has a linked ticket, a status change and a failed reproduction run in its history; [1] is
   * resolved in the `shared` release (what a reproduction suite filtered by release picks).
   */
  issues: (typeof issues.$inferSelect)[]
  /** [0] active with a match, [1] paused. */
  signals: (typeof signals.$inferSelect)[]
  insights: (typeof insights.$inferSelect)[]
  webhook: { endpointId: string; deliveryId: string }
  /** One saved search (issue 37), the filter of signals[1]. */
  savedSearch: typeof savedSearches.$inferSelect
}

async function signedInUser(db: Db, organizationId: string, role: 'owner' | 'member', label: string) {
  const email = `${label}-${randomUUID()}@example.com`
  const [user] = await db.insert(users).values({ email, passwordHash: 'not-used', name: label }).returning()
  await db.insert(memberships).values({ organizationId, userId: user!.id, role })
  // The cookie next-auth's JWT session strategy sets after sign-in (see dashboard-session.ts).
  const token = await encode({ token: { sub: user!.id, email }, secret: process.env.AUTH_SECRET! })
  return { id: user!.id, email, cookie: `next-auth.session-token=${token}` }
}

/** A consent (as the authorize page records it) with a chain, access and refresh token under it. */
async function seedConsent(db: Db, organizationId: string, userId: string, clientId: string) {
  const [consent] = await db
    .insert(oauthConsents)
    .values({ clientId, userId, organizationId, scope: 'read:service' })
    .returning()
  // An unredeemed authorization code under the consent, as the authorize page issues it.
  await db.insert(oauthAuthorizationCodes).values({
    codeHash: hashToken(generateToken('svc_oac_')),
    clientId,
    userId,
    organizationId,
    consentId: consent!.id,
    redirectUri: 'http://127.0.0.1:7777/callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    scope: 'read:service',
    resource: 'http://localhost:3000/api/mcp',
    expiresAt: new Date(Date.now() + 60_000),
  })
  const [chain] = await db
    .insert(oauthTokenChains)
    .values({
      clientId,
      userId,
      organizationId,
      consentId: consent!.id,
      scope: 'read:service',
      resource: 'http://localhost:3000/api/mcp',
    })
    .returning()
  await db.insert(oauthAccessTokens).values({
    tokenHash: hashToken(generateToken('svc_oat_')),
    chainId: chain!.id,
    clientId,
    organizationId,
    scope: 'read:service',
    resource: 'http://localhost:3000/api/mcp',
    expiresAt: new Date(Date.now() + 3_600_000),
  })
  await db.insert(oauthRefreshTokens).values({
    tokenHash: hashToken(generateToken('svc_ort_')),
    chainId: chain!.id,
    scope: 'read:service',
    expiresAt: new Date(Date.now() + 86_400_000),
  })
  return consent!.id
}

export async function seedTenant(db: Db, name: string): Promise<Tenant> {
  const org = await createOrganization(db, { name, plan: 'paid' })
  const id = org.id
  const owner = await signedInUser(db, id, 'owner', `${name.toLowerCase()}-owner`)
  const member = await signedInUser(db, id, 'member', `${name.toLowerCase()}-member`)
  const keys = {
    ingest: await createKey(db, { organizationId: id, type: 'ingest' }),
    apiRead: await createKey(db, { organizationId: id, type: 'api' }),
    apiWrite: await createKey(db, { organizationId: id, type: 'api', write: true }),
    mcp: await createKey(db, { organizationId: id, type: 'mcp' }),
  }
  const oauth = {
    // The owner's grants: a token counts only while its user is a member.
    read: await seedOAuthToken(db, id, { userId: owner.id }),
    write: await seedOAuthToken(db, id, { scope: 'read:service write:issues', userId: owner.id }),
  }
  const consentId = await seedConsent(db, id, owner.id, oauth.read.clientId)
  const invitationEmail = `${name.toLowerCase()}-invitee-${randomUUID()}@example.com`
  const invitation = await createInvitation(db, {
    organizationId: id,
    email: invitationEmail,
    invitedByUserId: owner.id,
  })

  // Sessions through the real ingest route (two batches each, not final: nothing is queued).
  const events = loadRecording('multi-page').events
  const sessions: Tenant['sessions'] = []
  for (const suffix of ['one', 'two']) {
    const externalId = `${name.toLowerCase()}-session-${suffix}`
    sessions.push({
      id: await ingestAs(db, keys.ingest.key, externalId, events, { final: false }),
      externalId,
    })
  }

  // The first session's trail, as its processing pass would store it.
  await replaceTrail(db, {
    organizationId: id,
    sessionId: sessions[0]!.id,
    trail: (await analyzeEvents(events)).trail,
  })

  // Releases (issue 36): one that every tenant has (the same name, each its own figures) and one
  // of its own; the first session ran the shared one, the second its own.
  const releaseNames = { shared: '1.0.0', own: `${name.toLowerCase()}-build` }
  await db.insert(releases).values([
    { organizationId: id, version: releaseNames.shared, semver: true },
    { organizationId: id, version: releaseNames.own, semver: false },
  ])
  for (const [n, release] of [releaseNames.shared, releaseNames.own].entries())
    await db
      .update(replaySessions)
      .set({ release, errorCount: n, automation: null })
      .where(eq(replaySessions.id, sessions[n]!.id))

  const issueRows = [
    await seedIssue(db, id, {
      firstRelease: releaseNames.shared,
      title: `${name} checkout crash`,
      ticketProvider: 'linear',
      ticketUrl: `https://linear.app/${name.toLowerCase()}/issue/ENG-1`,
      ticketIdentifier: 'ENG-1',
    }),
    await seedIssue(db, id, { title: `${name} slow search`, status: 'unresolved' }),
  ]
  for (const issue of issueRows)
    await db.insert(issueSessions).values({
      issueId: issue.id,
      sessionId: sessions[0]!.id,
      organizationId: id,
      firstOccurrenceAt: new Date(),
      evidence: { message: `${name} evidence` },
    })
  // A real status change: an activity row and an outbox event, as the dashboard makes them.
  await updateIssueStatus(
    db,
    { organizationId: id, actorType: 'user', actorId: owner.id },
    { issueId: issueRows[0]!.id, status: 'ticket_created' },
  )
  // Issue 36: a fix release (through the same status change, naming the release) and a
  // reproduction run, as the Data API records them.
  await updateIssueStatus(
    db,
    { organizationId: id, actorType: 'user', actorId: owner.id },
    {
      issueId: issueRows[1]!.id,
      status: 'resolved',
      resolution: { kind: 'inRelease', release: releaseNames.shared },
    },
  )
  await recordVerification(
    db,
    { organizationId: id, actorType: 'credential', actorId: keys.apiWrite.id },
    {
      issueId: issueRows[0]!.id,
      status: 'failed',
      baseUrl: `https://preview.${name.toLowerCase()}.example.com`,
      release: releaseNames.own,
      summary: `${name} still fails`,
      runner: 'playwright',
    },
  )
  for (const [n, issue] of issueRows.entries()) {
    const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
    issueRows[n] = row!
  }

  const [savedSearch] = await db
    .insert(savedSearches)
    .values({ organizationId: id, name: `${name} errors`, query: 'error', createdBy: owner.id })
    .returning()
  const active = await seedSignal(db, id, { name: `${name} checkout friction` })
  const paused = await seedSignal(db, id, {
    name: `${name} paused`,
    status: 'paused',
    savedSearchId: savedSearch!.id,
  })
  await recordMatch(db, {
    organizationId: id,
    signalId: active.id,
    sessionId: sessions[0]!.id,
    evidence: { matcher: 'deterministic', reason: `${name} match` },
  })
  const [activeNow] = await db.select().from(signals).where(eq(signals.id, active.id))

  const insightRows = [await seedInsight(db, id), await seedInsight(db, id)]

  const endpoint = await createEndpoint(db, {
    organizationId: id,
    name: `${name} hook`,
    url: `https://hooks.${name.toLowerCase()}.example.com/receive`,
    createdByUserId: owner.id,
  })
  // A pending delivery with one failed attempt: what revoking an endpoint would cancel.
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({
      endpointId: endpoint.id,
      organizationId: id,
      eventId: randomUUID(),
      eventType: 'issue.created',
      body: JSON.stringify({ organization: name }),
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    })
    .returning()
  await db.insert(webhookDeliveryAttempts).values({
    deliveryId: delivery!.id,
    attempt: 1,
    startedAt: new Date(),
    durationMs: 12,
    httpStatus: 503,
    errorLabel: 'bad_status:503',
  })

  return {
    id,
    name,
    owner,
    member: { id: member.id, email: member.email },
    keys,
    oauth,
    consentId,
    invitation: { id: invitation.id, token: invitation.token, email: invitationEmail },
    sessions,
    releases: releaseNames,
    issues: issueRows,
    signals: [activeNow!, paused],
    insights: insightRows,
    webhook: { endpointId: endpoint.id, deliveryId: delivery!.id },
    savedSearch: savedSearch!,
  }
}

/**
 * Credential use is recorded asynchronously (touchCredential, at most once a minute). Waits
 * until the tenant's ingest key shows its use, so a snapshot taken afterwards is stable.
 */
export async function settleCredentialTouches(db: Db, tenant: Tenant, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await db
      .select({ id: credentials.id })
      .from(credentials)
      .where(and(eq(credentials.id, tenant.keys.ingest.id), isNotNull(credentials.lastUsedAt)))
    if (row) return
    if (Date.now() > deadline) throw new Error('ingest key use was never recorded')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** JSON that is identical for identical rows: bigints as strings, rows sorted. */
function canonical(rows: readonly unknown[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
    )
    .sort()
}

type OrgScopedTable = PgTable & { organizationId: AnyPgColumn }

const ORG_SCOPED: Record<string, OrgScopedTable> = {
  memberships,
  invitations,
  credentials,
  replaySessions,
  replayBatches,
  sessionTimelineEntries,
  issues,
  issueSessions,
  issueActivities,
  issueVerifications,
  signals,
  signalMatches,
  insights,
  savedSearches,
  webhookEndpoints,
  webhookDeliveries,
  outbox,
  releases,
  oauthConsents,
  oauthAuthorizationCodes,
  oauthTokenChains,
  oauthAccessTokens,
}

export type TenantSnapshot = Record<string, string[]>

/**
 * Every row that belongs to the organization, table by table, and every replay file under its
 * blob folder (key → SHA-256 of the bytes): what "B is unchanged" is compared against.
 */
export async function snapshotTenant(
  db: Db,
  blobs: BlobStore,
  organizationId: string,
): Promise<TenantSnapshot> {
  const snapshot: TenantSnapshot = {}
  snapshot.organizations = canonical(
    await db.select().from(organizations).where(eq(organizations.id, organizationId)),
  )
  for (const [name, table] of Object.entries(ORG_SCOPED))
    snapshot[name] = canonical(
      await db
        .select()
        .from(table as PgTable)
        .where(eq(table.organizationId, organizationId)),
    )
  // Rows tied to the organization through another row.
  const members = await db
    .select({ id: memberships.userId })
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId))
  const chains = await db
    .select({ id: oauthTokenChains.id, userId: oauthTokenChains.userId, clientId: oauthTokenChains.clientId })
    .from(oauthTokenChains)
    .where(eq(oauthTokenChains.organizationId, organizationId))
  const userIds = [...new Set([...members.map((m) => m.id), ...chains.map((c) => c.userId)])]
  snapshot.users = canonical(
    userIds.length ? await db.select().from(users).where(inArray(users.id, userIds)) : [],
  )
  const chainIds = chains.map((c) => c.id)
  snapshot.oauthRefreshTokens = canonical(
    chainIds.length
      ? await db.select().from(oauthRefreshTokens).where(inArray(oauthRefreshTokens.chainId, chainIds))
      : [],
  )
  const clientIds = [...new Set(chains.map((c) => c.clientId))]
  snapshot.oauthClients = canonical(
    clientIds.length
      ? await db.select().from(oauthClients).where(inArray(oauthClients.clientId, clientIds))
      : [],
  )
  const deliveries = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.organizationId, organizationId))
  snapshot.webhookDeliveryAttempts = canonical(
    deliveries.length
      ? await db
          .select()
          .from(webhookDeliveryAttempts)
          .where(
            inArray(
              webhookDeliveryAttempts.deliveryId,
              deliveries.map((d) => d.id),
            ),
          )
      : [],
  )
  // Job runs carry the organization in their payload only.
  snapshot.jobRuns = canonical(
    (await db.select().from(jobRuns)).filter((run) => JSON.stringify(run.payload).includes(organizationId)),
  )
  const keys = (await blobs.list(`orgs/${organizationId}/`)).sort()
  snapshot.blobs = await Promise.all(
    keys.map(async (key) => {
      const bytes = await blobs.get(key)
      return `${key} ${bytes ? createHash('sha256').update(bytes).digest('hex') : 'missing'}`
    }),
  )
  return snapshot
}

/** How many rows and files the snapshot holds, to show the comparison is not vacuous. */
export function snapshotSizes(snapshot: TenantSnapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(snapshot).map(([name, rows]) => [name, rows.length]))
}
