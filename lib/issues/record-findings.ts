import { randomUUID } from 'node:crypto'
import { and, asc, count, eq, gt, sql } from 'drizzle-orm'
import type { Tx } from '@/db/client'
import { ISSUE_PRIORITIES, type IssuePriority, issueActivities, issueSessions, issues } from '@/db/schema'
import type { Finding } from '@/lib/analysis/types'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { compareReleases } from '@/lib/releases/record-release'
import { issueEventData } from './event-data'

export interface RecordedFindings {
  /** Issues this session created. */
  created: string[]
  /** Existing issues this session was newly linked to (sessionCount + 1). */
  linked: string[]
  /** Resolved issues seen again: back to unresolved. */
  regressed: string[]
  /** Resolved issues seen again in an older release than the fix's: counted, still resolved. */
  oldRelease: string[]
}

/**
 * Whether an occurrence after a resolution reopens the issue (docs/releases.md#resolve-in-a-release):
 * always when no release was named (as before releases); when one was, only from a session of that
 * release or a later one. Waiting for the next release, or a session of no release or of one the
 * organization's order cannot place, is an old build still running.
 */
async function reopens(
  tx: Tx,
  organizationId: string,
  release: string | null,
  issue: { resolvedInRelease: string | null; resolvedInNextRelease: boolean },
): Promise<boolean> {
  if (issue.resolvedInRelease === null) return !issue.resolvedInNextRelease
  if (release === null) return false
  const order = await compareReleases(tx, organizationId, release, issue.resolvedInRelease)
  return order !== null && order >= 0
}

// Breadth escalation (docs/design/analysis.md §4.5.3): the tenth distinct session within a day raises
// the priority one step, once.
const BREADTH_SESSIONS = 10

function raise(priority: IssuePriority): IssuePriority {
  const index = ISSUE_PRIORITIES.indexOf(priority)
  return ISSUE_PRIORITIES[Math.max(0, index - 1)]!
}

const BREADTH_REASON = `+1: seen in ${BREADTH_SESSIONS} sessions within 24 hours`

/** The first session's reason with the breadth step added (issues older than reasons get it alone). */
export function withBreadth(reason: string | null): string {
  if (!reason) return `${BREADTH_REASON.charAt(0).toUpperCase()}${BREADTH_REASON.slice(1)}.`
  const stem = reason.endsWith('.') ? reason.slice(0, -1) : reason
  return `${stem}; ${BREADTH_REASON}.`
}

/** The dashboard's issue page, with the replay of this session opened at the issue's moment. */
function previewUrl(
  baseUrl: string,
  issueId: string,
  sessionId: string,
  sessionStart: number,
  at: number,
): string {
  return `${baseUrl}/issues/${issueId}?session=${sessionId}&t=${Math.max(0, Math.round(at - sessionStart))}`
}

/**
 * Re-analysing the session an issue was filed from (more batches arrived: the visit went on)
 * replaces what that first, partial analysis said about it. Otherwise its "the session ended
 * 3 s later" — a block — would stay in the evidence and the priority while the replay shows
 * the user carrying on (issue 34). A breadth step already taken is kept.
 */
async function refreshFromSource(
  tx: Tx,
  issueId: string,
  sessionId: string,
  finding: Finding,
  storedReason: string | null,
): Promise<void> {
  const [first] = await tx
    .select({ sessionId: issueSessions.sessionId })
    .from(issueSessions)
    .where(eq(issueSessions.issueId, issueId))
    .orderBy(asc(issueSessions.createdAt), asc(issueSessions.sessionId))
    .limit(1)
  if (first?.sessionId !== sessionId) return
  const broad = storedReason?.includes(BREADTH_REASON) === true
  await tx
    .update(issues)
    .set({
      description: finding.description,
      priority: broad ? raise(finding.priority) : finding.priority,
      priorityReason: broad ? withBreadth(finding.priorityReason) : finding.priorityReason,
      stepsToReplicate: finding.stepsToReplicate,
      evidence: sql`${issues.evidence} || ${JSON.stringify({
        ...finding.evidence,
        pathPattern: finding.pathPattern,
        pageUrl: finding.url,
      })}::jsonb`,
      // Analysis seeing more of a visit is not an edit (a resolved issue keeps when it was resolved).
      updatedAt: sql`${issues.updatedAt}`,
    })
    .where(eq(issues.id, issueId))
}

/**
 * Reopens a resolved issue seen again: back to unresolved, its resolution forgotten, a `regressed`
 * activity saying where it came back (session, moment, release) and which release it was fixed in,
 * and the events: `issue/recurred` as always, `issue/regressed` with the releases.
 */
async function regress(
  tx: Tx,
  input: {
    organizationId: string
    sessionId: string
    sessionStart: number
    release: string | null
    baseUrl: string
  },
  issueId: string,
  firstOccurrenceAt: Date,
  resolvedInRelease: string | null,
): Promise<void> {
  // Where it came back: this session, at its first occurrence here (not the issue's first session).
  const offsetMs = Math.max(0, Math.round(firstOccurrenceAt.getTime() - input.sessionStart))
  await tx
    .update(issues)
    .set({
      status: 'unresolved',
      resolvedInRelease: null,
      resolvedInNextRelease: false,
      resolvedAt: null,
      updatedAt: sql`now()`,
    })
    .where(eq(issues.id, issueId))
  await tx.insert(issueActivities).values({
    issueId,
    organizationId: input.organizationId,
    kind: 'regressed',
    fromStatus: 'resolved',
    toStatus: 'unresolved',
    actorType: 'system',
    metadata: { sessionId: input.sessionId, offsetMs, release: input.release, resolvedInRelease },
  })
  const data = await issueEventData(tx, issueId)
  const replayUrl = `${input.baseUrl}/sessions/${input.sessionId}?t=${offsetMs}`
  await enqueueEvent(tx, {
    organizationId: input.organizationId,
    name: EVENTS.issueRecurred,
    payload: { ...data, sessionId: input.sessionId, replayUrl },
    dedupeKey: `issue.recurred:${issueId}:${input.sessionId}`,
  })
  await enqueueEvent(tx, {
    organizationId: input.organizationId,
    name: EVENTS.issueRegressed,
    payload: { ...data, sessionId: input.sessionId, replayUrl, release: input.release, resolvedInRelease },
    dedupeKey: `issue.regressed:${issueId}:${input.sessionId}`,
  })
}

/**
 * Turns one session's findings into issues, in the caller's transaction: a new fingerprint
 * creates an issue (and its `issue.created` outbox event), a known one links the session and
 * counts it once per distinct session, a resolved one seen again regresses. Re-processing a
 * session changes no count. A new issue takes the session's release as its first and last;
 * each later session that has one becomes its last (a session without one leaves it).
 */
export async function recordFindings(
  tx: Tx,
  input: {
    organizationId: string
    sessionId: string
    sessionStart: number
    /** The session's release: an issue's first and latest (docs/source-maps.md). */
    release: string | null
    findings: Finding[]
    baseUrl: string
  },
): Promise<RecordedFindings> {
  const result: RecordedFindings = { created: [], linked: [], regressed: [], oldRelease: [] }
  const { release } = input
  for (const finding of input.findings) {
    // The recording's time, already no later than its receipt plus the clock skew (analysis
    // clamps it); never after now either, so no stored occurrence lies in the future.
    const seenAt = sql`least(${new Date(finding.firstTimestamp).toISOString()}::timestamptz, now())`
    // Chosen here rather than by the database so the preview URL can name the issue; a known
    // fingerprint keeps its own id (and URL) and this one is discarded.
    const newId = randomUUID()
    const [issue] = await tx
      .insert(issues)
      .values({
        id: newId,
        organizationId: input.organizationId,
        fingerprint: finding.fingerprint,
        kind: finding.kind,
        sourceType: 'session_analysis',
        title: finding.title,
        description: finding.description,
        priority: finding.priority,
        priorityReason: finding.priorityReason,
        previewUrl: previewUrl(
          input.baseUrl,
          newId,
          input.sessionId,
          input.sessionStart,
          finding.firstTimestamp,
        ),
        stepsToReplicate: finding.stepsToReplicate,
        sessionCount: 0,
        firstRelease: release,
        lastRelease: release,
        firstSeenAt: seenAt,
        // Server time: lists rank issues by it, and a recording's clock is the sender's to set
        // (docs/hostile-input.md#times-come-from-the-server).
        lastSeenAt: sql`now()`,
        // `pageUrl`, not `url`: a failed request's own URL is the evidence's `url`.
        evidence: { ...finding.evidence, pathPattern: finding.pathPattern, pageUrl: finding.url },
      })
      .onConflictDoUpdate({
        target: [issues.organizationId, issues.fingerprint],
        // Being seen again is not an edit: updatedAt keeps the time of the last change (it
        // also tells when a resolved issue was resolved).
        set: {
          lastSeenAt: sql`now()`,
          updatedAt: sql`${issues.updatedAt}`,
        },
      })
      .returning({
        id: issues.id,
        status: issues.status,
        priority: issues.priority,
        priorityReason: issues.priorityReason,
        updatedAt: issues.updatedAt,
        resolvedInRelease: issues.resolvedInRelease,
        resolvedInNextRelease: issues.resolvedInNextRelease,
        resolvedAt: issues.resolvedAt,
        inserted: sql<boolean>`(xmax = 0)`,
      })
    const issueId = issue!.id

    const [link] = await tx
      .insert(issueSessions)
      .values({
        issueId,
        sessionId: input.sessionId,
        organizationId: input.organizationId,
        occurrences: finding.occurrences,
        firstOccurrenceAt: seenAt,
        evidence: finding.trigger ? { trigger: finding.trigger } : null,
      })
      .onConflictDoUpdate({
        target: [issueSessions.issueId, issueSessions.sessionId],
        // Re-processing sees the whole session again: the count is replaced, not added.
        set: { occurrences: finding.occurrences },
      })
      .returning({ inserted: sql<boolean>`(xmax = 0)`, firstOccurrenceAt: issueSessions.firstOccurrenceAt })
    if (!link?.inserted) {
      await refreshFromSource(tx, issueId, input.sessionId, finding, issue!.priorityReason)
      continue
    }

    // Only a newly linked session moves lastRelease: re-processing an older one does not.
    await tx
      .update(issues)
      .set({ sessionCount: sql`${issues.sessionCount} + 1`, ...(release ? { lastRelease: release } : {}) })
      .where(eq(issues.id, issueId))

    if (issue!.inserted) {
      result.created.push(issueId)
      await tx.insert(issueActivities).values({
        issueId,
        organizationId: input.organizationId,
        kind: 'created',
        toStatus: 'unresolved',
        actorType: 'system',
      })
      await enqueueEvent(tx, {
        organizationId: input.organizationId,
        name: EVENTS.issueCreated,
        payload: await issueEventData(tx, issueId),
        dedupeKey: `issue.created:${issueId}`,
      })
      continue
    }
    result.linked.push(issueId)

    // Seen again after it was resolved (only for an occurrence after resolving; issues resolved
    // before resolvedAt existed were resolved at their last change).
    const resolvedAt = issue!.resolvedAt ?? issue!.updatedAt
    if (issue!.status === 'resolved' && link.firstOccurrenceAt > resolvedAt) {
      if (await reopens(tx, input.organizationId, release, issue!)) {
        await regress(tx, input, issueId, link.firstOccurrenceAt, issue!.resolvedInRelease)
        result.regressed.push(issueId)
      } else {
        await tx
          .update(issueSessions)
          .set({ oldRelease: true })
          .where(and(eq(issueSessions.issueId, issueId), eq(issueSessions.sessionId, input.sessionId)))
        result.oldRelease.push(issueId)
      }
    }

    const [recent] = await tx
      .select({ n: count() })
      .from(issueSessions)
      .where(
        and(
          eq(issueSessions.issueId, issueId),
          gt(issueSessions.createdAt, sql`now() - interval '24 hours'`),
        ),
      )
    if (recent?.n === BREADTH_SESSIONS && issue!.priority !== 'critical')
      await tx
        .update(issues)
        .set({ priority: raise(issue!.priority), priorityReason: withBreadth(issue!.priorityReason) })
        .where(eq(issues.id, issueId))
  }
  return result
}
