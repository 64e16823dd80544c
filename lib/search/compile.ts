import { and, not, or, type SQL, sql } from 'drizzle-orm'
import { replaySessions } from '@/db/schema'
import type { MomentNode, QueryNode, SequenceNode } from './ast'
import { momentCondition, sessionCondition, TRAIL_KIND } from './compile-fields'

/**
 * A query as one SQL condition on the `replay_sessions` row of the enclosing query, so it joins
 * a list's other filters, its order and its cursor. `and`, `or` and `not` combine whole
 * sessions; a sequence is an EXISTS over the session's trail (docs/search.md#how-it-runs).
 */
export function searchCondition(query: QueryNode, organizationId: string): SQL {
  switch (query.type) {
    case 'and':
      return and(...query.children.map((child) => searchCondition(child, organizationId))) as SQL
    case 'or':
      return or(...query.children.map((child) => searchCondition(child, organizationId))) as SQL
    case 'not':
      return not(searchCondition(query.child, organizationId))
    case 'session':
      return sessionCondition(query)
    case 'sequence':
      return sql`exists (${sequenceRows(query, organizationId, sql`${replaySessions.id}`)})`
  }
}

/** Trail rows of `moment` in the session `sessionId`: its kind and every bracketed condition. */
export function momentWhere(moment: MomentNode, alias: SQL, organizationId: string, sessionId: SQL): SQL {
  return and(
    sql`${alias}.session_id = ${sessionId}`,
    // Redundant with the session, and kept: a trail row of another organization can never match.
    sql`${alias}.organization_id = ${organizationId}::uuid`,
    sql`${alias}.kind = ${TRAIL_KIND[moment.kind]}`,
    ...moment.conditions.map((condition) => momentCondition(moment.kind, condition, alias)),
  ) as SQL
}

export const momentAlias = (index: number) => sql.raw(`m${index}`)

/**
 * `select m0.*, m1.*, ...` of the session's earliest match of `sequence`, or no row. Each moment
 * after the first is the earliest of its kind strictly after the previous (at, then position):
 * the earliest choice leaves the most room for the moments after it, so this finds a match
 * whenever there is one, with one index range per moment instead of every combination. With
 * `within`, each first moment is tried in turn (the earliest one may be too far from the rest),
 * and the later ones must fall within the window from it.
 */
export function sequenceRows(sequence: SequenceNode, organizationId: string, sessionId: SQL): SQL {
  const [first, ...rest] = sequence.moments
  if (!first) throw new Error('A sequence has at least one moment')
  const m0 = momentAlias(0)
  const firstRows = sql`(select ${m0}.at, ${m0}.position, ${m0}.kind, ${m0}.entry from session_timeline_entries ${m0} where ${momentWhere(first, m0, organizationId, sessionId)}${sequence.withinMs === null && rest.length > 0 ? sql` order by ${m0}.at, ${m0}.position limit 1` : sql``}) ${m0}`
  const laterals = rest.map((moment, i) => {
    const alias = momentAlias(i + 1)
    const previous = momentAlias(i)
    const window =
      sequence.withinMs === null ? sql`` : sql` and ${alias}.at <= ${m0}.at + ${sequence.withinMs}::bigint`
    return sql` cross join lateral (select ${alias}.at, ${alias}.position, ${alias}.kind, ${alias}.entry from session_timeline_entries ${alias} where ${momentWhere(moment, alias, organizationId, sessionId)} and (${alias}.at, ${alias}.position) > (${previous}.at, ${previous}.position)${window} order by ${alias}.at, ${alias}.position limit 1) ${alias}`
  })
  const columns = sequence.moments.map(
    (_, i) =>
      sql`${momentAlias(i)}.at as ${sql.raw(`at${i}`)}, ${momentAlias(i)}.position as ${sql.raw(`position${i}`)}, ${momentAlias(i)}.kind as ${sql.raw(`kind${i}`)}, ${momentAlias(i)}.entry as ${sql.raw(`entry${i}`)}`,
  )
  return sql`select ${sql.join(columns, sql`, `)} from ${firstRows}${sql.join(laterals, sql``)}`
}

/** The sequences of a query that say what matched: those not under a `not`. */
export function matchedSequences(query: QueryNode): SequenceNode[] {
  switch (query.type) {
    case 'and':
    case 'or':
      return query.children.flatMap(matchedSequences)
    case 'sequence':
      return [query]
    default:
      return []
  }
}
