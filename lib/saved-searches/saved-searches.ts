import { and, asc, desc, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, DbOrTx } from '@/db/client'
import { alertRules, savedSearches, signals } from '@/db/schema'
import { ConflictError, InvalidInputError, isUniqueViolation, isUuid, NotFoundError } from '@/lib/errors'
import { lockOrganization } from '@/lib/orgs/lock-organization'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { checkQuery } from './query'
import { type SavedSearch, toSavedSearch } from './views'

export const SAVED_SEARCHES_PAGE = { default: 50, max: 200 }
/** Each one is a query on the overview and a choice in two forms: a bounded list. */
export const MAX_SAVED_SEARCHES_PER_ORG = 100

const Name = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .refine(isStorableText, `name ${NOT_STORABLE}`)

const TAKEN = 'A saved search with this name already exists'
const NOT_FOUND = 'Saved search not found'

const own = (organizationId: string, id: string) =>
  and(eq(savedSearches.id, id), eq(savedSearches.organizationId, organizationId))

function checkId(id: string): void {
  if (!isUuid(id)) throw new NotFoundError(NOT_FOUND)
}

/** A unique-name clash found by the index (two saves at once) answers as the check before it does. */
async function naming<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(TAKEN)
    throw error
  }
}

export async function createSavedSearch(
  db: Db,
  ctx: { organizationId: string; userId: string | null },
  input: { name: unknown; query: unknown },
): Promise<SavedSearch> {
  const name = parseInput(Name, input.name)
  const { text } = checkQuery(input.query)
  return naming(() =>
    db.transaction(async (tx) => {
      // Counted under the organization's row lock: two saves at once cannot both pass the cap.
      await lockOrganization(tx, ctx.organizationId)
      const count = await tx.$count(savedSearches, eq(savedSearches.organizationId, ctx.organizationId))
      if (count >= MAX_SAVED_SEARCHES_PER_ORG)
        throw new InvalidInputError(
          `An organization has at most ${MAX_SAVED_SEARCHES_PER_ORG} saved searches`,
        )
      const [row] = await tx
        .insert(savedSearches)
        .values({ organizationId: ctx.organizationId, name, query: text, createdBy: ctx.userId })
        .returning()
      return toSavedSearch(row!)
    }),
  )
}

export async function getSavedSearch(db: DbOrTx, organizationId: string, id: string): Promise<SavedSearch> {
  checkId(id)
  const [row] = await db.select().from(savedSearches).where(own(organizationId, id))
  if (!row) throw new NotFoundError(NOT_FOUND)
  return toSavedSearch(row)
}

/** Newest first, in keyset pages like every list of the Data API. */
export async function listSavedSearches(
  db: DbOrTx,
  organizationId: string,
  query: { limit: number; cursor?: string },
): Promise<Page<SavedSearch>> {
  const request = { limit: query.limit, cursor: query.cursor, scope: `saved-searches:${organizationId}` }
  const rows = await db
    .select()
    .from(savedSearches)
    .where(
      and(
        eq(savedSearches.organizationId, organizationId),
        afterCursor(request, savedSearches.createdAt, savedSearches.id),
      ),
    )
    .orderBy(desc(savedSearches.createdAt), desc(savedSearches.id))
    .limit(query.limit + 1)
  return toPage(rows, request, toSavedSearch)
}

/** Every saved search of the organization by name, for the dashboard's lists and choices. */
export async function allSavedSearches(db: DbOrTx, organizationId: string): Promise<SavedSearch[]> {
  const rows = await db
    .select()
    .from(savedSearches)
    .where(eq(savedSearches.organizationId, organizationId))
    .orderBy(asc(sql`lower(${savedSearches.name})`), asc(savedSearches.id))
    .limit(MAX_SAVED_SEARCHES_PER_ORG)
  return rows.map(toSavedSearch)
}

/** Renames it, changes its query, or both; what is not given stays. */
export async function updateSavedSearch(
  db: Db,
  organizationId: string,
  id: string,
  input: { name?: unknown; query?: unknown },
): Promise<SavedSearch> {
  checkId(id)
  const name = input.name === undefined ? undefined : parseInput(Name, input.name)
  const query = input.query === undefined ? undefined : checkQuery(input.query).text
  if (name === undefined && query === undefined) throw new InvalidInputError('Give a name, a query or both')
  const [row] = await naming(() =>
    db
      .update(savedSearches)
      .set({ ...(name === undefined ? {} : { name }), ...(query === undefined ? {} : { query }) })
      .where(own(organizationId, id))
      .returning(),
  )
  if (!row) throw new NotFoundError(NOT_FOUND)
  return toSavedSearch(row)
}

export interface SavedSearchUse {
  kind: 'signal' | 'alert_rule'
  id: string
  name: string
}

/** The signals and alert rules that filter by the saved search. */
export async function usesOfSavedSearch(
  db: DbOrTx,
  organizationId: string,
  id: string,
): Promise<SavedSearchUse[]> {
  const [bySignals, byRules] = await Promise.all([
    db
      .select({ id: signals.id, name: signals.name })
      .from(signals)
      .where(and(eq(signals.organizationId, organizationId), eq(signals.savedSearchId, id))),
    db
      .select({ id: alertRules.id, name: alertRules.name })
      .from(alertRules)
      .where(
        and(
          eq(alertRules.organizationId, organizationId),
          sql`${alertRules.filters}->>'savedSearchId' = ${id}`,
        ),
      ),
  ])
  return [
    ...bySignals.map((s) => ({ kind: 'signal' as const, ...s })),
    ...byRules.map((r) => ({ kind: 'alert_rule' as const, ...r })),
  ]
}

const describeUse = (use: SavedSearchUse) =>
  `${use.kind === 'signal' ? 'signal' : 'alert rule'} “${use.name}”`

/**
 * Deletes it unless a signal or an alert rule filters by it: detaching them would widen what
 * they match without anyone deciding it, so the answer (409) names them to change first.
 * The row is locked first: a signal or rule being saved with it holds it shared until it
 * commits, so the uses read after the lock include it and nothing is left pointing at nothing.
 */
export async function deleteSavedSearch(db: Db, organizationId: string, id: string): Promise<void> {
  checkId(id)
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: savedSearches.id })
      .from(savedSearches)
      .where(own(organizationId, id))
      .for('update')
    if (!row) throw new NotFoundError(NOT_FOUND)
    const uses = await usesOfSavedSearch(tx, organizationId, id)
    if (uses.length > 0)
      throw new ConflictError(
        `Saved search is in use by ${uses.map(describeUse).join(', ')}: change or delete them first`,
      )
    await tx.delete(savedSearches).where(own(organizationId, id))
  })
}
