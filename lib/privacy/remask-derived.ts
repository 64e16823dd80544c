import { and, eq, inArray } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import {
  issueSessions,
  issues,
  replayBatches,
  replaySessions,
  sessionTimelineEntries,
  signalMatches,
} from '@/db/schema'
import type { MaskRules } from './mask-rules'
import { maskValue } from './remask-events'

/**
 * Re-masks what processing derived from a session and stored as text (docs/privacy.md#re-masking):
 * its timeline, the evidence linking it to issues and signals, its own fields, and the issues it
 * fed. Only patterns apply here: selectors describe recorded DOM, which this text no longer is.
 */

export interface DerivedCounts {
  timelineEntries: number
  issueEvidence: number
  signalEvidence: number
  sessionFields: number
  issueFields: number
}

export const emptyDerivedCounts = (): DerivedCounts => ({
  timelineEntries: 0,
  issueEvidence: 0,
  signalEvidence: 0,
  sessionFields: 0,
  issueFields: 0,
})

/** One session's derived rows; `doneIssues` carries the issues already rewritten in this run. */
export async function remaskSessionDerived(
  db: DbOrTx,
  session: { id: string; organizationId: string },
  rules: MaskRules,
  doneIssues: Set<string>,
): Promise<DerivedCounts> {
  const counts = emptyDerivedCounts()
  if (rules.patterns.length === 0) return counts
  await db.transaction(async (tx) => {
    const entries = await tx
      .select({ position: sessionTimelineEntries.position, entry: sessionTimelineEntries.entry })
      .from(sessionTimelineEntries)
      .where(eq(sessionTimelineEntries.sessionId, session.id))
    for (const row of entries) {
      const masked = maskValue(row.entry, rules)
      if (masked.changed === 0) continue
      counts.timelineEntries++
      await tx
        .update(sessionTimelineEntries)
        .set({ entry: masked.value })
        .where(
          and(
            eq(sessionTimelineEntries.sessionId, session.id),
            eq(sessionTimelineEntries.position, row.position),
          ),
        )
    }

    const links = await tx
      .select({ issueId: issueSessions.issueId, evidence: issueSessions.evidence })
      .from(issueSessions)
      .where(eq(issueSessions.sessionId, session.id))
    for (const link of links) {
      const masked = maskValue(link.evidence, rules)
      if (masked.changed === 0) continue
      counts.issueEvidence++
      await tx
        .update(issueSessions)
        .set({ evidence: masked.value })
        .where(and(eq(issueSessions.sessionId, session.id), eq(issueSessions.issueId, link.issueId)))
    }

    const matches = await tx
      .select({ id: signalMatches.id, evidence: signalMatches.evidence })
      .from(signalMatches)
      .where(eq(signalMatches.sessionId, session.id))
    for (const match of matches) {
      const masked = maskValue(match.evidence, rules)
      if (masked.changed === 0) continue
      counts.signalEvidence++
      await tx.update(signalMatches).set({ evidence: masked.value }).where(eq(signalMatches.id, match.id))
    }

    const [own] = await tx
      .select({
        entryUrl: replaySessions.entryUrl,
        digest: replaySessions.digest,
        aiSummary: replaySessions.aiSummary,
      })
      .from(replaySessions)
      .where(eq(replaySessions.id, session.id))
    if (own) {
      const changes = maskedFields(own, rules)
      if (changes) {
        counts.sessionFields += Object.keys(changes).length
        await tx.update(replaySessions).set(changes).where(eq(replaySessions.id, session.id))
      }
    }
    const pages = await tx
      .select({ id: replayBatches.id, pageUrl: replayBatches.pageUrl })
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, session.id))
    for (const page of pages) {
      const masked = maskValue(page.pageUrl, rules)
      if (masked.changed === 0) continue
      counts.sessionFields++
      await tx
        .update(replayBatches)
        .set({ pageUrl: masked.value })
        .where(and(eq(replayBatches.sessionId, session.id), eq(replayBatches.id, page.id)))
    }

    const fresh = links.map((link) => link.issueId).filter((id) => !doneIssues.has(id))
    if (fresh.length === 0) return
    const rows = await tx
      .select({
        id: issues.id,
        title: issues.title,
        description: issues.description,
        evidence: issues.evidence,
        stepsToReplicate: issues.stepsToReplicate,
        previewUrl: issues.previewUrl,
        priorityReason: issues.priorityReason,
      })
      .from(issues)
      .where(and(eq(issues.organizationId, session.organizationId), inArray(issues.id, fresh)))
    for (const { id, ...fields } of rows) {
      const changes = maskedFields(fields, rules)
      if (!changes) continue
      counts.issueFields += Object.keys(changes).length
      await tx.update(issues).set(changes).where(eq(issues.id, id))
    }
  })
  // Only after the commit: a rolled-back transaction must leave the issues to the retry.
  for (const link of await db
    .select({ issueId: issueSessions.issueId })
    .from(issueSessions)
    .where(eq(issueSessions.sessionId, session.id)))
    doneIssues.add(link.issueId)
  return counts
}

/** The fields of a row whose values a pattern matched, masked; null when none did. */
function maskedFields<T extends Record<string, unknown>>(row: T, rules: MaskRules): Partial<T> | null {
  const changes: Partial<T> = {}
  let any = false
  for (const key of Object.keys(row) as (keyof T)[]) {
    const masked = maskValue(row[key], rules)
    if (masked.changed === 0) continue
    changes[key] = masked.value
    any = true
  }
  return any ? changes : null
}
