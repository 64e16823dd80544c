import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { savedSearches } from '@/db/schema'
import type { Condition, MomentNode, QueryNode, QueryValue } from '@/lib/search/ast'
import { formatQuery } from '@/lib/search/format'
import { parseQuery } from '@/lib/search/parse'
import { MAX_SAVED_SEARCHES_PER_ORG } from './saved-searches'

/** What an erased identifier becomes in a saved search: a value no session carries. */
export const ERASED = '[erased]'

const erased: QueryValue = { type: 'string', value: ERASED }

/**
 * Identifiers long enough to be found inside other text (a URL, a message, a click's text)
 * without erasing unrelated values: e-mails, and ids of at least this many characters. A user
 * id as short as "42" is only ever matched as a whole value of a personal field.
 */
const FOUND_INSIDE_FROM = 6
const foundInside = (identifier: string) => identifier.includes('@') || identifier.length >= FOUND_INSIDE_FROM

/**
 * Only fields that can hold a person's identifier as a whole value: the user's id, e-mail,
 * name and traits, and a custom event's properties. `pages >= 42` stays, whoever user 42 is.
 */
const PERSONAL_FIELD = /^(user|prop)\./

/** True when the condition names the person: its whole value in a personal field, or inside any text. */
function names(condition: Condition, identifiers: Set<string>): boolean {
  const value = condition.value
  const written = (value.type === 'string' ? value.value : value.raw).toLowerCase()
  if (PERSONAL_FIELD.test(condition.field) && identifiers.has(written)) return true
  if (value.type !== 'string') return false
  for (const identifier of identifiers)
    if (foundInside(identifier) && written.includes(identifier)) return true
  return false
}

function redactCondition(condition: Condition, identifiers: Set<string>): Condition {
  return names(condition, identifiers) ? { ...condition, value: erased } : condition
}

function redactMoment(moment: MomentNode, identifiers: Set<string>): MomentNode {
  return { ...moment, conditions: moment.conditions.map((c) => redactCondition(c, identifiers)) }
}

/** The query with every personal field's value equal to an identifier replaced by ERASED. */
export function redactQuery(node: QueryNode, identifiers: Set<string>): QueryNode {
  switch (node.type) {
    case 'and':
    case 'or':
      return { ...node, children: node.children.map((c) => redactQuery(c, identifiers)) }
    case 'not':
      return { ...node, child: redactQuery(node.child, identifiers) }
    case 'sequence':
      return { ...node, moments: node.moments.map((m) => redactMoment(m, identifiers)) }
    case 'session':
      return redactCondition(node, identifiers) as typeof node
  }
}

/**
 * Every case-insensitive occurrence of an identifier in `text` replaced by ERASED. Compared a
 * code unit at a time (each lower-cased alone), so a character whose lower case is longer
 * (İ) cannot shift the positions and leave part of an identifier behind.
 */
function redactText(text: string, identifiers: Set<string>): string {
  let out = text
  for (const identifier of identifiers) {
    let at = 0
    while (at + identifier.length <= out.length) {
      if (occursAt(out, identifier, at)) {
        out = out.slice(0, at) + ERASED + out.slice(at + identifier.length)
        at += ERASED.length
      } else at++
    }
  }
  return out
}

function occursAt(text: string, lowerIdentifier: string, at: number): boolean {
  for (let i = 0; i < lowerIdentifier.length; i++)
    if ((text[at + i] as string).toLowerCase() !== lowerIdentifier[i]) return false
  return true
}

/**
 * An erasure's step for saved searches (docs/saved-searches.md#erasure): a saved search whose
 * query names the person (`user.id = 42`, `user.email = ada@example.com`: any value equal to
 * one of their identifiers in a `user.` or `prop.` field, or any text value holding an e-mail
 * or a longer id of theirs, `page.url ~ "/u/ada@example.com"`) gets that value replaced by
 * `[erased]`, and the identifier is taken out of its name, whatever its query says. It then finds no one, so a signal or alert rule filtered by it
 * narrows rather than widens, and it stays where it is used. Returns how many were rewritten.
 */
export async function redactSavedSearchesNaming(
  db: DbOrTx,
  organizationId: string,
  identifierValues: string[],
): Promise<number> {
  const identifiers = new Set(identifierValues.map((v) => v.toLowerCase()).filter((v) => v.length > 0))
  if (identifiers.size === 0) return 0
  const rows = await db
    .select({ id: savedSearches.id, name: savedSearches.name, query: savedSearches.query })
    .from(savedSearches)
    .where(eq(savedSearches.organizationId, organizationId))
    .limit(MAX_SAVED_SEARCHES_PER_ORG)
  let rewritten = 0
  for (const row of rows) {
    const parsed = parseQuery(row.query)
    // A query the language no longer reads is redacted as text.
    const query = parsed.ok
      ? formatQuery(redactQuery(parsed.query, identifiers))
      : redactText(row.query, identifiers)
    const before = parsed.ok ? formatQuery(parsed.query) : row.query
    // The name may repeat the identifier ("Ada's sessions") whether or not the query does; a
    // renamed one carries a piece of its id, so it cannot take the name of another saved search.
    const redactedName = redactText(row.name, identifiers)
    if (query === before && redactedName === row.name) continue
    const name = redactedName === row.name ? row.name : `${redactedName.slice(0, 80)} (${row.id.slice(0, 8)})`
    await db
      .update(savedSearches)
      .set({ query: query.slice(0, 1000), name })
      .where(and(eq(savedSearches.id, row.id), eq(savedSearches.organizationId, organizationId)))
    rewritten++
  }
  return rewritten
}
