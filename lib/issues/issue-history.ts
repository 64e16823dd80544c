import { and, asc, eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import {
  credentials,
  type IssueActivityKind,
  type IssueActor,
  type IssueStatus,
  issueActivities,
  oauthClients,
  users,
} from '@/db/schema'
import { getIssueRow } from './get-issue'

export interface TicketSnapshot {
  provider: string
  url: string
  identifier: string | null
}

export interface IssueHistoryEntry {
  id: string
  kind: IssueActivityKind
  fromStatus: IssueStatus | null
  toStatus: IssueStatus | null
  at: Date
  actor: {
    type: IssueActor
    /** What to call the actor: a person's name, a key's or an app's name, or the system part. */
    name: string
    /** What kind of actor that is, e.g. "API key"; null for people and the system. */
    via: string | null
  }
  /** For `ticket_linked`: the ticket linked (null when it was removed) and the one it replaced. */
  ticket: { linked: TicketSnapshot | null; previous: TicketSnapshot | null } | null
  /** For `regressed`: the session that showed the issue again. */
  sessionId: string | null
}

const CREDENTIAL_KIND_LABELS = { api: 'API key', mcp: 'MCP key', ingest: 'ingest key' } as const

function ticketOf(value: unknown): TicketSnapshot | null {
  if (!value || typeof value !== 'object') return null
  const { provider, url, identifier } = value as Record<string, unknown>
  if (typeof provider !== 'string' || typeof url !== 'string') return null
  return { provider, url, identifier: typeof identifier === 'string' ? identifier : null }
}

/**
 * What happened to one issue, oldest first, each change with who made it named the way the
 * dashboard shows people: a member by name (or e-mail), a key or app by its name, and the
 * service's own analysis as such. Actors deleted since are still named by their kind.
 */
export async function issueHistory(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
): Promise<IssueHistoryEntry[]> {
  const issue = await getIssueRow(db, organizationId, issueId)
  const rows = await db
    .select({
      id: issueActivities.id,
      kind: issueActivities.kind,
      fromStatus: issueActivities.fromStatus,
      toStatus: issueActivities.toStatus,
      actorType: issueActivities.actorType,
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
    .where(and(eq(issueActivities.issueId, issue.id), eq(issueActivities.organizationId, organizationId)))
    .orderBy(asc(issueActivities.createdAt), asc(issueActivities.id))

  const systemName = issue.sourceType === 'insight' ? 'Insights' : 'Session analysis'
  return rows.map((row) => {
    const actor: IssueHistoryEntry['actor'] = (() => {
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
    })()
    const metadata = row.metadata ?? {}
    return {
      id: row.id,
      kind: row.kind,
      fromStatus: row.fromStatus,
      toStatus: row.toStatus,
      at: row.createdAt,
      actor,
      ticket:
        row.kind === 'ticket_linked'
          ? {
              linked: metadata.unlinked === true ? null : ticketOf(metadata),
              previous: ticketOf(metadata.previous),
            }
          : null,
      sessionId: typeof metadata.sessionId === 'string' ? metadata.sessionId : null,
    }
  })
}
