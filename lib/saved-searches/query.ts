import { and, eq } from 'drizzle-orm'
import type { DbOrTx, Tx } from '@/db/client'
import { savedSearches } from '@/db/schema'
import { InvalidInputError, isUuid, SearchQueryError } from '@/lib/errors'
import { logger } from '@/lib/log'
import { matchingSessionIds } from '@/lib/search'
import type { QueryNode } from '@/lib/search/ast'
import { parseQuery } from '@/lib/search/parse'

/**
 * A saved search's query, checked with the language's own parser: the same message and
 * position the sessions list answers for a malformed `q` (docs/search.md).
 */
export function checkQuery(text: unknown): { text: string; node: QueryNode } {
  if (typeof text !== 'string') throw new InvalidInputError('query must be a string')
  const trimmed = text.trim()
  const parsed = parseQuery(trimmed)
  if (!parsed.ok) throw new SearchQueryError(parsed.error, parsed.position)
  return { text: trimmed, node: parsed.query }
}

/**
 * The query of a saved search of this organization, parsed; null when there is none (deleted,
 * or another organization's). A stored query that no longer parses (the language changed)
 * finds nothing rather than everything: a filter never silently widens.
 */
export async function savedQueryOf(
  db: DbOrTx,
  organizationId: string,
  savedSearchId: string,
): Promise<QueryNode | null> {
  const [row] = await db
    .select({ query: savedSearches.query })
    .from(savedSearches)
    .where(and(eq(savedSearches.id, savedSearchId), eq(savedSearches.organizationId, organizationId)))
  if (!row) return null
  const parsed = parseQuery(row.query)
  return parsed.ok ? parsed.query : null
}

/**
 * Which of `sessionIds` the saved search finds; none when the search is gone, and none when its
 * query fails in the database. Processing, alert rules and signal backfills call this inside
 * their own transactions: one member's query that the database refuses must cost only its own
 * filter, never every session of the organization (so it runs in a savepoint, and is logged).
 */
export async function sessionsMatchingSaved(
  db: DbOrTx,
  input: { organizationId: string; savedSearchId: string; sessionIds: string[] },
): Promise<Set<string>> {
  if (input.sessionIds.length === 0) return new Set()
  const query = await savedQueryOf(db, input.organizationId, input.savedSearchId)
  if (!query) return new Set()
  try {
    const ids = await db.transaction((savepoint) =>
      matchingSessionIds(savepoint, {
        organizationId: input.organizationId,
        query,
        sessionIds: input.sessionIds,
        limit: input.sessionIds.length,
      }),
    )
    return new Set(ids)
  } catch (error) {
    logger.warn(
      { err: error, organizationId: input.organizationId, savedSearchId: input.savedSearchId },
      'saved search failed in the database; it finds no session',
    )
    return new Set()
  }
}

/**
 * True when the saved search is the organization's, holding its row shared until the caller's
 * transaction ends: a signal or an alert rule saved with it cannot race its deletion
 * (deleteSavedSearch locks the row before it reads the uses).
 */
export async function holdSavedSearch(
  tx: Tx,
  organizationId: string,
  savedSearchId: string,
): Promise<boolean> {
  if (!isUuid(savedSearchId)) return false
  const [row] = await tx
    .select({ id: savedSearches.id })
    .from(savedSearches)
    .where(and(eq(savedSearches.id, savedSearchId), eq(savedSearches.organizationId, organizationId)))
    .for('share')
  return Boolean(row)
}
