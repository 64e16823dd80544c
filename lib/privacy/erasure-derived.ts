import { and, asc, count, eq, inArray, max, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import {
  insights,
  issueActivities,
  issueSessions,
  issues,
  replaySessions,
  shareLinks,
  signalMatches,
  signals,
} from '@/db/schema'

export interface DerivedCounts {
  issuesDeleted: number
  issuesUpdated: number
  signalsUpdated: number
  insightsRedacted: number
  /** Share links to the erased sessions (docs/sharing.md): deleted before the sessions go. */
  shareLinksDeleted: number
  /** Issues deleted: their ids, so messages about them can be silenced too. */
  deletedIssueIds: string[]
}

/** The dashboard's issue page opened on a session at the issue's moment (lib/issues/record-findings.ts). */
function previewUrl(baseUrl: string, issueId: string, sessionId: string, startedAt: Date, at: Date): string {
  const t = Math.max(0, Math.round(at.getTime() - startedAt.getTime()))
  return `${baseUrl}/issues/${issueId}?session=${sessionId}&t=${t}`
}

/**
 * An issue's first session was erased: what the issue copied from it (the description, the
 * steps, the evidence, the replay link, when and in which release it was first seen) is taken
 * from its earliest remaining session, or cleared when the issue has none left. Only the
 * fingerprint's path pattern, which describes the page and not the person, stays.
 */
async function reoriginate(
  tx: Tx,
  baseUrl: string,
  issue: { id: string; evidence: Record<string, unknown> | null },
): Promise<void> {
  const [first] = await tx
    .select({
      sessionId: issueSessions.sessionId,
      at: issueSessions.firstOccurrenceAt,
      evidence: issueSessions.evidence,
      startedAt: replaySessions.startedAt,
      release: replaySessions.release,
    })
    .from(issueSessions)
    .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
    .where(eq(issueSessions.issueId, issue.id))
    .orderBy(asc(issueSessions.firstOccurrenceAt))
    .limit(1)
  const pathPattern = issue.evidence?.pathPattern
  const kept = typeof pathPattern === 'string' ? { pathPattern } : {}
  await tx
    .update(issues)
    .set({
      description: null,
      stepsToReplicate: null,
      evidence: first ? { ...(first.evidence ?? {}), ...kept } : kept,
      previewUrl: first ? previewUrl(baseUrl, issue.id, first.sessionId, first.startedAt, first.at) : null,
      ...(first ? { firstSeenAt: first.at, firstRelease: first.release } : {}),
      updatedAt: sql`${issues.updatedAt}`,
    })
    .where(eq(issues.id, issue.id))
}

/**
 * Removes what issues, signals and insights hold of the given sessions, in the caller's
 * transaction and before the sessions themselves go (their links say which rows to fix; a
 * retry after a crash finds the links gone and changes nothing twice):
 * - each issue loses one session per erased link; an issue all of whose sessions were erased
 *   is deleted with its history and notes, the others keep an honest count, and those whose
 *   first session was erased are re-derived (reoriginate);
 * - history entries naming an erased session lose that id;
 * - signals lose their matches and count;
 * - insights whose interval covered an erased session are marked redacted;
 * - share links to the sessions are deleted.
 * Counts decrease rather than being recounted: retention deletes sessions without uncounting
 * them (an issue counts what happened), so a recount would also drop those.
 */
export async function eraseDerived(
  tx: Tx,
  input: { organizationId: string; sessionIds: string[]; baseUrl: string },
): Promise<DerivedCounts> {
  const { organizationId, sessionIds } = input
  const counts: DerivedCounts = {
    issuesDeleted: 0,
    issuesUpdated: 0,
    signalsUpdated: 0,
    insightsRedacted: 0,
    shareLinksDeleted: 0,
    deletedIssueIds: [],
  }
  if (sessionIds.length === 0) return counts
  // First, so no link hands out a session while the rest of its erasure runs.
  const deletedLinks = await tx
    .delete(shareLinks)
    .where(and(eq(shareLinks.organizationId, organizationId), inArray(shareLinks.sessionId, sessionIds)))
    .returning({ id: shareLinks.id })
  counts.shareLinksDeleted = deletedLinks.length
  const erasedLinks = and(
    eq(issueSessions.organizationId, organizationId),
    inArray(issueSessions.sessionId, sessionIds),
  )
  const links = await tx
    .select({ issueId: issueSessions.issueId, n: count() })
    .from(issueSessions)
    .where(erasedLinks)
    .groupBy(issueSessions.issueId)
  await tx.delete(issueSessions).where(erasedLinks)
  for (const link of links) {
    const [issue] = await tx
      .update(issues)
      .set({
        sessionCount: sql`greatest(${issues.sessionCount} - ${link.n}, 0)`,
        updatedAt: sql`${issues.updatedAt}`,
      })
      .where(and(eq(issues.organizationId, organizationId), eq(issues.id, link.issueId)))
      .returning({
        id: issues.id,
        sessionCount: issues.sessionCount,
        previewUrl: issues.previewUrl,
        evidence: issues.evidence,
      })
    if (!issue) continue
    if (issue.sessionCount === 0) {
      // Its activities (history and notes) go by cascade.
      await tx.delete(issues).where(eq(issues.id, issue.id))
      counts.issuesDeleted++
      counts.deletedIssueIds.push(issue.id)
      continue
    }
    const originErased = sessionIds.some((id) => issue.previewUrl?.includes(id))
    if (originErased) await reoriginate(tx, input.baseUrl, issue)
    counts.issuesUpdated++
  }
  const ids = sql.join(
    sessionIds.map((id) => sql`${id}`),
    sql`, `,
  )
  await tx
    .update(issueActivities)
    .set({ metadata: sql`${issueActivities.metadata} - 'sessionId'` })
    .where(
      and(
        eq(issueActivities.organizationId, organizationId),
        sql`${issueActivities.metadata}->>'sessionId' in (${ids})`,
      ),
    )

  const erasedMatches = and(
    eq(signalMatches.organizationId, organizationId),
    inArray(signalMatches.sessionId, sessionIds),
  )
  const matches = await tx
    .select({ signalId: signalMatches.signalId, n: count() })
    .from(signalMatches)
    .where(erasedMatches)
    .groupBy(signalMatches.signalId)
  await tx.delete(signalMatches).where(erasedMatches)
  for (const match of matches) {
    const latest = tx
      .select({ at: max(signalMatches.createdAt) })
      .from(signalMatches)
      .where(eq(signalMatches.signalId, match.signalId))
    await tx
      .update(signals)
      .set({
        matchCount: sql`greatest(${signals.matchCount} - ${match.n}, 0)`,
        lastMatchAt: sql`(${latest})`,
        updatedAt: sql`${signals.updatedAt}`,
      })
      .where(and(eq(signals.organizationId, organizationId), eq(signals.id, match.signalId)))
    counts.signalsUpdated++
  }

  // An insight is written from the sessions created within its interval (lib/insights/generate.ts).
  const redacted = await tx
    .update(insights)
    .set({ redactedAt: sql`now()` })
    .where(
      and(
        eq(insights.organizationId, organizationId),
        sql`${insights.redactedAt} is null`,
        sql`exists (select 1 from ${replaySessions} s where s.organization_id = ${organizationId}::uuid
          and s.id in (${ids}) and s.created_at >= ${insights.intervalStart} and s.created_at < ${insights.intervalEnd})`,
      ),
    )
    .returning({ id: insights.id })
  counts.insightsRedacted = redacted.length
  return counts
}
