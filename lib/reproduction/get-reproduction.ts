/**
 * An issue's reproduction: its best session (best-session.ts), that session's trail up to a
 * little after the failing moment, and the generated test. Shared by the Data API, the MCP tool
 * and the dashboard.
 */
import { and, eq, inArray, lt } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { sessionTimelineEntries } from '@/db/schema'
import { TRAIL_LIMITS, type TrailKind } from '@/lib/analysis/trail'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { getIssueRow } from '@/lib/issues/get-issue'
import { readTrail } from '@/lib/sessions/trail-entries'
import { bestSession, type CandidateSession } from './best-session'
import { buildReproduction, type ReproductionSession } from './build-reproduction'
import type { Reproduction } from './views'

/** Entries after the failing moment that may still belong to it (a request answered late). */
const AFTER_MS = 10_000
/** How far back the trail is read: steps before that would be left out of the test anyway. */
const BEFORE_MS = 30 * 60_000

const ACTION_KINDS: TrailKind[] = ['navigation', 'click', 'input']

/**
 * Whether the session has user actions before the window of its trail that was read: only then
 * were earlier steps left out. Asked of this one session's rows, so that the answer cannot come
 * from other sessions (a count in the candidates query once compared an unqualified session_id
 * with itself and counted every session's actions, and a two-step test said steps were left out).
 */
async function actionsBefore(db: DbOrTx, organizationId: string, sessionId: string, at: number) {
  const e = sessionTimelineEntries
  const [row] = await db
    .select({ at: e.at })
    .from(e)
    .where(
      and(
        eq(e.sessionId, sessionId),
        eq(e.organizationId, organizationId),
        inArray(e.kind, ACTION_KINDS),
        lt(e.at, at),
      ),
    )
    .limit(1)
  return row !== undefined
}

function triggerOf(evidence: Record<string, unknown> | null): ReproductionSession['trigger'] {
  const element = (evidence?.trigger as { element?: { selector?: unknown; text?: unknown } } | undefined)
    ?.element
  if (!element || typeof element.selector !== 'string') return null
  return { selector: element.selector, text: typeof element.text === 'string' ? element.text : '' }
}

async function sessionInput(
  db: DbOrTx,
  organizationId: string,
  candidate: CandidateSession,
): Promise<ReproductionSession> {
  const failingAt = candidate.firstOccurrenceAt.getTime()
  const base = {
    sessionId: candidate.sessionId,
    entryUrl: candidate.entryUrl,
    failingAt,
    trailTruncated: candidate.trailTruncated === true,
    identifiedUser: candidate.identifiedUser,
    trigger: triggerOf(candidate.evidence),
    userAgent: candidate.userAgent ?? null,
  }
  if (candidate.trailTruncated === null) return { ...base, trail: null, earlierEntries: false }
  const fromAt = failingAt - BEFORE_MS
  const rows = await readTrail(db, organizationId, candidate.sessionId, {
    fromAt,
    toAt: failingAt + AFTER_MS,
    limit: TRAIL_LIMITS.entries,
  })
  const earlierEntries = await actionsBefore(db, organizationId, candidate.sessionId, fromAt)
  return { ...base, trail: rows.map((row) => row.entry), earlierEntries }
}

export async function getIssueReproduction(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<Reproduction> {
  const issue = await getIssueRow(db, principal.organizationId, issueId)
  const candidate = await bestSession(db, principal.organizationId, issue)
  const session = candidate ? await sessionInput(db, principal.organizationId, candidate) : null
  const draft = buildReproduction(issue, session)
  return {
    issueId: issue.id,
    sessionId: draft.sessionId,
    language: 'typescript',
    framework: '@playwright/test',
    filename: `issue-${issue.id.slice(0, 8)}.spec.ts`,
    test: draft.test,
    limitations: draft.limitations,
    steps: draft.steps,
  }
}
