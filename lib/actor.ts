import type { IssueActor } from '@/db/schema'

/**
 * Who acts, and in which organization: what every domain write takes and records in history,
 * whichever surface the caller came through. Each surface maps its own authenticated caller
 * here with one of the functions below, and nowhere else.
 */
export interface Actor {
  organizationId: string
  actorType: IssueActor
  /** Credential id, OAuth client id or user id: who to name in an issue's history. */
  actorId: string
}

/**
 * A Data API or MCP caller. An OAuth token acts as its client (the history names the app the
 * user connected); a static key as itself. The two surfaces name the same caller alike.
 * Takes the Principal's shape rather than its type: credentials records actors, so this file
 * must not import lib/credentials back.
 */
export function actorOfPrincipal(principal: {
  kind: string
  organizationId: string
  credentialId: string
  clientId: string | null
}): Actor {
  return {
    organizationId: principal.organizationId,
    actorType: principal.kind === 'oauth' ? 'oauth_client' : 'credential',
    actorId:
      principal.kind === 'oauth' ? (principal.clientId ?? principal.credentialId) : principal.credentialId,
  }
}

/** A signed-in dashboard member, acting in their current organization. */
export function actorOfMember(member: { user: { id: string }; organization: { id: string } }): Actor {
  return { organizationId: member.organization.id, actorType: 'user', actorId: member.user.id }
}
