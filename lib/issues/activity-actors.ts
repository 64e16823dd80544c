import { and, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { credentials, type IssueActor, issueActivities, oauthClients, users } from '@/db/schema'

const CREDENTIAL_KIND_LABELS = { api: 'API key', mcp: 'MCP key', ingest: 'ingest key' } as const

/** Who made an activity, named the way the dashboard shows people. */
export interface ActivityActor {
  type: IssueActor
  /** What to call the actor: a person's name, a key's or an app's name, or the system part. */
  name: string
  /** What kind of actor that is, e.g. "API key"; null for people and the system. */
  via: string | null
}

/**
 * The issue activities of one organization, each with the columns that name whoever made it
 * (a member, a key of the organization, a connected app). The issue history and the notes list
 * add their own condition, order and limit, so both name actors from the same joins.
 */
export function activitiesWithActors(db: DbOrTx, organizationId: string) {
  return db
    .select({
      id: issueActivities.id,
      issueId: issueActivities.issueId,
      kind: issueActivities.kind,
      fromStatus: issueActivities.fromStatus,
      toStatus: issueActivities.toStatus,
      actorType: issueActivities.actorType,
      actorId: issueActivities.actorId,
      metadata: issueActivities.metadata,
      createdAt: issueActivities.createdAt,
      userName: users.name,
      userEmail: users.email,
      credentialName: credentials.name,
      credentialKind: credentials.kind,
      clientName: oauthClients.clientName,
    })
    .from(issueActivities)
    .leftJoin(
      users,
      and(eq(issueActivities.actorType, 'user'), eq(sql`${users.id}::text`, issueActivities.actorId)),
    )
    .leftJoin(
      credentials,
      and(
        eq(issueActivities.actorType, 'credential'),
        eq(sql`${credentials.id}::text`, issueActivities.actorId),
        eq(credentials.organizationId, organizationId),
      ),
    )
    .leftJoin(
      oauthClients,
      and(eq(issueActivities.actorType, 'oauth_client'), eq(oauthClients.clientId, issueActivities.actorId)),
    )
}

export type ActivityRow = Awaited<ReturnType<ReturnType<typeof activitiesWithActors>['execute']>>[number]

/** The actor of a row, for the dashboard; actors deleted since are still named by their kind. */
export function actorOf(row: ActivityRow, systemName: string): ActivityActor {
  switch (row.actorType) {
    case 'user':
      return { type: row.actorType, name: row.userName || row.userEmail || 'A removed user', via: null }
    case 'credential':
      return {
        type: row.actorType,
        name: row.credentialName ?? 'a deleted key',
        via: row.credentialKind ? CREDENTIAL_KIND_LABELS[row.credentialKind] : 'Key',
      }
    case 'oauth_client':
      return { type: row.actorType, name: row.clientName ?? 'a removed app', via: 'Connected app' }
    case 'system':
      return { type: row.actorType, name: systemName, via: null }
  }
}
