/**
 * The search language's syntax tree (docs/search.md). Pure data, shared by the parser, the
 * formatter, the SQL compiler and the dashboard's query builder, so it imports nothing.
 */

/** The moment kinds a query names; `page` is the trail's navigation, `event` its custom entry. */
export const MOMENT_KINDS = [
  'click',
  'input',
  'page',
  'console',
  'error',
  'request',
  'rage_click',
  'dead_click',
  'event',
] as const
export type MomentKind = (typeof MOMENT_KINDS)[number]

export const OPERATORS = ['=', '!=', '~', '!~', '>', '>=', '<', '<='] as const
export type Operator = (typeof OPERATORS)[number]

/**
 * A value as written. Numbers and durations keep their text (`raw`) so a string field compared
 * with `007` still sees `007`, and so formatting gives back what was typed.
 */
export type QueryValue =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number; raw: string }
  | { type: 'duration'; ms: number; raw: string }

/** `field op value`; the field is lower-cased except the key after `prop.` or `user.`. */
export interface Condition {
  field: string
  op: Operator
  value: QueryValue
}

/** One moment of the trail satisfying every condition (`click[text = Pay and role = button]`). */
export interface MomentNode {
  kind: MomentKind
  conditions: Condition[]
}

export type QueryNode =
  | { type: 'and'; children: QueryNode[] }
  | { type: 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode }
  /** One moment, or moments each strictly after the previous; `withinMs` bounds first to last. */
  | { type: 'sequence'; moments: MomentNode[]; withinMs: number | null; withinRaw: string | null }
  | ({ type: 'session' } & Condition)

export type SequenceNode = Extract<QueryNode, { type: 'sequence' }>
export type SessionConditionNode = Extract<QueryNode, { type: 'session' }>

export const SEARCH_LIMITS = {
  /** Characters of query text; longer text is refused before it is read. */
  text: 1_000,
  /** Session conditions, moment conditions and bare moments together. */
  conditions: 32,
  /** Moments in one `then` sequence. */
  sequence: 5,
  /** Parentheses and `not`s nested inside each other. */
  depth: 8,
  /** A sequence's `within`, in milliseconds (30 days: longer than any visit). */
  withinMs: 720 * 3_600_000,
} as const
