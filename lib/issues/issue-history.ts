import { and, asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueActivityKind, type IssueStatus, issueActivities } from '@/db/schema'
import { type ActivityActor, activitiesWithActors, actorOf } from './activity-actors'
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
  actor: ActivityActor
  /** For `ticket_linked`: the ticket linked (null when it was removed) and the one it replaced. */
  ticket: { linked: TicketSnapshot | null; previous: TicketSnapshot | null } | null
  /** For `regressed`: the session that showed the issue again. */
  sessionId: string | null
  /** For `regressed`: when in that session it showed again (ms after its start; older entries lack it). */
  offsetMs: number | null
  /** For `note`: what its author wrote (plain text, shown as text). */
  note: string | null
  /**
   * The fix's release (docs/releases.md#resolve-in-a-release): named by a move to resolved or a
   * `fix_release` (null: none named), and for `regressed` the release it was fixed in then.
   */
  fixRelease: string | null
  /** A move to resolved or a `fix_release` that said "the next release". */
  nextRelease: boolean
  /** For `regressed`: the release of the session it came back in (null: none, or older entries). */
  release: string | null
  /** For `verification`: the reproduction's outcome and the deployment it ran against. */
  verification: { status: string; baseUrl: string | null; release: string | null } | null
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : null)

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
  const rows = await activitiesWithActors(db, organizationId)
    .where(and(eq(issueActivities.issueId, issue.id), eq(issueActivities.organizationId, organizationId)))
    .orderBy(asc(issueActivities.createdAt), asc(issueActivities.id))

  const systemName = issue.sourceType === 'insight' ? 'Insights' : 'Session analysis'
  return rows.map((row) => {
    const metadata = row.metadata ?? {}
    return {
      id: row.id,
      kind: row.kind,
      fromStatus: row.fromStatus,
      toStatus: row.toStatus,
      at: row.createdAt,
      actor: actorOf(row, systemName),
      ticket:
        row.kind === 'ticket_linked'
          ? {
              linked: metadata.unlinked === true ? null : ticketOf(metadata),
              previous: ticketOf(metadata.previous),
            }
          : null,
      sessionId: typeof metadata.sessionId === 'string' ? metadata.sessionId : null,
      offsetMs:
        typeof metadata.offsetMs === 'number' &&
        Number.isSafeInteger(metadata.offsetMs) &&
        metadata.offsetMs >= 0
          ? metadata.offsetMs
          : null,
      note: row.kind === 'note' && typeof metadata.text === 'string' ? metadata.text : null,
      fixRelease:
        row.kind === 'regressed'
          ? textOf(metadata.resolvedInRelease)
          : row.kind === 'status_changed' || row.kind === 'fix_release'
            ? textOf(metadata.release)
            : null,
      nextRelease: metadata.nextRelease === true,
      release: row.kind === 'regressed' ? textOf(metadata.release) : null,
      verification:
        row.kind === 'verification' && typeof metadata.status === 'string'
          ? { status: metadata.status, baseUrl: textOf(metadata.baseUrl), release: textOf(metadata.release) }
          : null,
    }
  })
}
