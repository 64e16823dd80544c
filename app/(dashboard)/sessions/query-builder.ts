import type { MomentKind, Operator, QueryNode, QueryValue } from '@/lib/search/ast'
import { MOMENT_KINDS, OPERATORS } from '@/lib/search/ast'
import {
  EVENT_PROP_PREFIX,
  type FieldType,
  MOMENT_FIELDS,
  momentFieldType,
  operatorsFor,
  SESSION_FIELDS,
  sessionFieldType,
  USER_TRAIT_PREFIX,
} from '@/lib/search/fields'
import { parseQuery } from '@/lib/search/parse'
import { isWordChar } from '@/lib/search/tokenize'

/**
 * The sessions page's query builder as plain data, and its two-way mapping to the query text
 * (docs/search.md). The text is the query: the builder only writes and reads it, so switching
 * between the two never loses anything the builder can show, and a query it cannot show (a
 * nested mix of `and` and `or`) stays in the text form.
 */

export interface BuilderCondition {
  field: string
  op: Operator
  value: string
}

/** One moment: a kind and what it must satisfy (none: any moment of that kind). */
export interface BuilderStep {
  kind: MomentKind
  conditions: BuilderCondition[]
}

/** A row is a moment, a `then` sequence of moments, or a condition on the session; `not` negates it. */
export type BuilderRow =
  | { target: 'moment'; not: boolean; steps: BuilderStep[]; within: string }
  | { target: 'session'; not: boolean; condition: BuilderCondition }

export interface BuilderQuery {
  /** How the rows combine: all of them, or any. */
  join: 'and' | 'or'
  rows: BuilderRow[]
}

export const SESSION_TARGET = 'session'
export type RowKind = MomentKind | typeof SESSION_TARGET
export const ROW_KINDS: readonly RowKind[] = [...MOMENT_KINDS, SESSION_TARGET]

export const KIND_NAMES: Record<RowKind, string> = {
  click: 'Click',
  input: 'Input',
  page: 'Page',
  console: 'Console message',
  error: 'Error',
  request: 'Request',
  rage_click: 'Rage click',
  dead_click: 'Dead click',
  event: 'Custom event',
  session: 'Session',
}

/** The fields offered for a kind; `prop.<key>` and `user.<trait>` are typed by hand. */
export function fieldsFor(kind: RowKind): string[] {
  const known = Object.keys(kind === SESSION_TARGET ? SESSION_FIELDS : MOMENT_FIELDS[kind])
  if (kind === 'event') return [...known, EVENT_PROP_PREFIX]
  if (kind === SESSION_TARGET) return [...known, USER_TRAIT_PREFIX]
  return known
}

export function fieldType(kind: RowKind, field: string): FieldType | null {
  return kind === SESSION_TARGET ? sessionFieldType(field) : momentFieldType(kind, field)
}

/** The operators a field takes; every operator while the field is not (yet) a known one. */
export function operatorsOf(kind: RowKind, field: string): readonly Operator[] {
  const type = fieldType(kind, field)
  return type ? operatorsFor(type) : OPERATORS
}

export function emptyCondition(kind: RowKind): BuilderCondition {
  return { field: fieldsFor(kind)[0] ?? '', op: '=', value: '' }
}

export function emptyStep(kind: MomentKind = 'click'): BuilderStep {
  return { kind, conditions: [] }
}

export function emptyRow(kind: RowKind = 'click'): BuilderRow {
  return kind === SESSION_TARGET
    ? { target: 'session', not: false, condition: emptyCondition(kind) }
    : { target: 'moment', not: false, steps: [emptyStep(kind)], within: '' }
}

const KEYWORDS = new Set(['and', 'or', 'not', 'then', 'within'])

/**
 * A typed value as query text: a bare word when it is one, so `500` and `30s` read as a number
 * and a duration as they would typed in the text form; quoted otherwise.
 */
export function valueText(value: string): string {
  if (value !== '' && [...value].every(isWordChar) && !KEYWORDS.has(value.toLowerCase())) return value
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

const conditionText = (condition: BuilderCondition) =>
  `${condition.field.trim()} ${condition.op} ${valueText(condition.value)}`

function stepText(step: BuilderStep): string {
  const [only, ...more] = step.conditions
  if (!only) return step.kind
  if (more.length === 0) return `${step.kind}.${conditionText(only)}`
  return `${step.kind}[${step.conditions.map(conditionText).join(' and ')}]`
}

function rowText(row: BuilderRow): string {
  const body =
    row.target === 'session'
      ? conditionText(row.condition)
      : row.steps.map(stepText).join(' then ') + (row.within.trim() ? ` within ${row.within.trim()}` : '')
  return row.not ? `not ${body}` : body
}

/** The builder's rows as query text ('' for no rows). */
export function builderToText(query: BuilderQuery): string {
  // A sequence or a session condition binds tighter than `and`/`or`, so no parentheses are needed.
  return query.rows.map(rowText).join(` ${query.join} `)
}

function valueString(value: QueryValue): string {
  return value.type === 'string' ? value.value : value.raw
}

const toCondition = (condition: { field: string; op: Operator; value: QueryValue }): BuilderCondition => ({
  field: condition.field,
  op: condition.op,
  value: valueString(condition.value),
})

function toRow(node: QueryNode, negated = false): BuilderRow | null {
  switch (node.type) {
    case 'not':
      return negated ? null : toRow(node.child, true)
    case 'session':
      return { target: 'session', not: negated, condition: toCondition(node) }
    case 'sequence':
      return {
        target: 'moment',
        not: negated,
        steps: node.moments.map((moment) => ({
          kind: moment.kind,
          conditions: moment.conditions.map(toCondition),
        })),
        within: node.withinRaw ?? '',
      }
    default:
      return null
  }
}

/** A parsed query as builder rows, or null when the builder cannot show it (nested and/or). */
export function queryToBuilder(node: QueryNode): BuilderQuery | null {
  const join = node.type === 'or' ? 'or' : 'and'
  const children = node.type === 'and' || node.type === 'or' ? node.children : [node]
  const rows: BuilderRow[] = []
  // `(a and b) and c` is `a and b and c`: a group of the row's own kind opens into rows.
  const flat = children.flatMap((child) =>
    (child.type === 'and' || child.type === 'or') && child.type === join ? child.children : [child],
  )
  for (const child of flat) {
    const row = toRow(child)
    if (!row) return null
    rows.push(row)
  }
  return { join, rows }
}

export type TextToBuilder =
  | { ok: true; builder: BuilderQuery }
  | { ok: false; reason: 'invalid'; error: string; position: number }
  | { ok: false; reason: 'nested' }

/** The text form's query as builder rows: empty text is an empty builder. */
export function textToBuilder(text: string): TextToBuilder {
  if (text.trim() === '') return { ok: true, builder: { join: 'and', rows: [] } }
  const parsed = parseQuery(text)
  if (!parsed.ok) return { ok: false, reason: 'invalid', error: parsed.error, position: parsed.position }
  const builder = queryToBuilder(parsed.query)
  return builder ? { ok: true, builder } : { ok: false, reason: 'nested' }
}
