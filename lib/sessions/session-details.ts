import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import type { ApiSessionDetails } from './api-views'
import { trailFromDigest } from './digest-trail'
import { SESSION_NOT_FOUND } from './get-session'
import { toSessionItem } from './list-session-items'
import { sessionFigures } from './session-figures'
import { LINKS_PER_SESSION, sessionLinks } from './session-links'
import { deterministicSummary } from './session-summary'
import { entryFacts, type SummaryFact, trailFacts } from './summary-facts'

type SessionRow = typeof replaySessions.$inferSelect

/** One session of the organization; another organization's, or a malformed id, does not exist. */
export async function sessionRowOf(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<SessionRow> {
  if (!isUuid(sessionId)) throw new NotFoundError(SESSION_NOT_FOUND)
  const [row] = await db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
  if (!row) throw new NotFoundError(SESSION_NOT_FOUND)
  return row
}

/**
 * What the summary is built from: the stored trail when the last pass stored one (its
 * `trailTruncated` is then set), else the digest of a pass from before trails; null when the
 * session was never analysed.
 */
export async function summaryFactsOf(
  db: DbOrTx,
  row: Pick<SessionRow, 'id' | 'organizationId' | 'trailTruncated' | 'digest'>,
): Promise<SummaryFact[] | null> {
  if (row.trailTruncated !== null) return trailFacts(db, row.organizationId, row.id)
  const trail = trailFromDigest(row.digest)
  return trail ? entryFacts(trail.entries) : null
}

/** GET /api/v1/sessions/{id} and get_session's facts: the list item, the summary and the counts. */
export async function getSessionDetails(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<ApiSessionDetails> {
  const row = await sessionRowOf(db, organizationId, sessionId)
  const [facts, links] = await Promise.all([
    summaryFactsOf(db, row),
    sessionLinks(db, organizationId, [row.id], LINKS_PER_SESSION.details),
  ])
  return {
    ...toSessionItem(row, links.get(row.id)),
    entryUrl: row.entryUrl,
    language: row.language,
    viewport: row.viewport,
    summary: row.aiSummary
      ? { text: row.aiSummary, source: 'ai' }
      : { text: deterministicSummary(facts, sessionFigures(row)), source: 'deterministic' },
    trailTruncated: row.trailTruncated,
    counts: {
      errors: sessionFigures(row).errors,
      rageClicks: row.rageClickCount,
      deadClicks: facts ? facts.filter((fact) => fact.kind === 'dead_click').length : null,
    },
    pinnedAt: row.pinnedAt?.toISOString() ?? null,
  }
}
