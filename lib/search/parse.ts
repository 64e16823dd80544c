import {
  type Condition,
  MOMENT_KINDS,
  type MomentKind,
  type MomentNode,
  type QueryNode,
  type QueryValue,
  SEARCH_LIMITS,
} from './ast'
import {
  DEVICE_VALUES,
  EVENT_PROP_PREFIX,
  type FieldType,
  momentFieldType,
  operatorsFor,
  SESSION_FIELDS,
  sessionFieldType,
  USER_TRAIT_PREFIX,
} from './fields'
import { classifyWord, SearchSyntaxError, type Token, tokenize } from './tokenize'

export type ParseResult = { ok: true; query: QueryNode } | { ok: false; error: string; position: number }

/**
 * Reads query text into a syntax tree, or says what is wrong and at which 0-based character.
 * The text's length is checked before anything else reads it; depth, conditions and sequence
 * length are counted while parsing, so the recursion never goes deeper than the limits allow.
 */
export function parseQuery(text: string): ParseResult {
  if (text.length > SEARCH_LIMITS.text)
    return {
      ok: false,
      error: `A query is at most ${SEARCH_LIMITS.text} characters`,
      position: SEARCH_LIMITS.text,
    }
  const broken = unstorableAt(text)
  if (broken >= 0)
    return { ok: false, error: 'A query must not contain NUL characters or broken Unicode', position: broken }
  try {
    const parser = new Parser(tokenize(text))
    return { ok: true, query: parser.query() }
  } catch (error) {
    if (error instanceof SearchSyntaxError)
      return { ok: false, error: error.message, position: error.position }
    throw error
  }
}

/** The first NUL or unpaired surrogate, which no database text can hold; -1 when none. */
function unstorableAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0) return i
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return i
      i++
    } else if (code >= 0xdc00 && code <= 0xdfff) return i
  }
  return -1
}

const KEYWORDS = new Set(['and', 'or', 'not', 'then', 'within'])
const KINDS: ReadonlySet<string> = new Set(MOMENT_KINDS)
const KIND_LIST = MOMENT_KINDS.join(', ')

function keyword(token: Token): string | null {
  if (token.type !== 'word') return null
  const lower = token.text.toLowerCase()
  return KEYWORDS.has(lower) ? lower : null
}

function describe(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'the end of the query'
    case 'word':
      return `"${token.text}"`
    case 'string':
      return 'a quoted value'
    case 'op':
      return `"${token.op}"`
    default:
      return `"${token.type}"`
  }
}

/** A field as stored in the tree: lower-cased, but the key after `prop.`/`user.` keeps its case. */
function normalizeField(text: string, freePrefix: string): string {
  const lower = text.toLowerCase()
  if (lower.startsWith(freePrefix) && lower.length > freePrefix.length)
    return freePrefix + text.slice(freePrefix.length)
  return lower
}

class Parser {
  private index = 0
  private conditions = 0

  constructor(private readonly tokens: Token[]) {}

  query(): QueryNode {
    if (this.peek().type === 'end') throw new SearchSyntaxError('The query is empty', 0)
    const node = this.or(0)
    const rest = this.peek()
    if (rest.type !== 'end') {
      const word = keyword(rest)
      if (word === 'then' || word === 'within')
        throw new SearchSyntaxError(`"${word}" must follow a moment (${KIND_LIST})`, rest.pos)
      if (rest.type === ')') throw new SearchSyntaxError('Unmatched ")"', rest.pos)
      throw new SearchSyntaxError(`Unexpected ${describe(rest)}`, rest.pos)
    }
    return node
  }

  private peek(): Token {
    return this.tokens[this.index] as Token
  }

  private next(): Token {
    const token = this.peek()
    if (token.type !== 'end') this.index++
    return token
  }

  private or(depth: number): QueryNode {
    const children = [this.and(depth)]
    while (keyword(this.peek()) === 'or') {
      this.next()
      children.push(this.and(depth))
    }
    return children.length === 1 ? (children[0] as QueryNode) : { type: 'or', children }
  }

  private and(depth: number): QueryNode {
    const children = [this.unary(depth)]
    for (;;) {
      const token = this.peek()
      const word = keyword(token)
      if (word === 'and') {
        this.next()
      } else if (!(token.type === '(' || (token.type === 'word' && (word === null || word === 'not')))) {
        break
      }
      children.push(this.unary(depth))
    }
    return children.length === 1 ? (children[0] as QueryNode) : { type: 'and', children }
  }

  private deeper(depth: number, token: Token): number {
    if (depth + 1 > SEARCH_LIMITS.depth)
      throw new SearchSyntaxError(`Parentheses and "not" nest at most ${SEARCH_LIMITS.depth} deep`, token.pos)
    return depth + 1
  }

  private unary(depth: number): QueryNode {
    const token = this.peek()
    const word = keyword(token)
    if (word === 'not') {
      this.next()
      return { type: 'not', child: this.unary(this.deeper(depth, token)) }
    }
    if (token.type === '(') {
      const inner = this.deeper(depth, token)
      this.next()
      const node = this.or(inner)
      const close = this.peek()
      if (close.type !== ')')
        throw new SearchSyntaxError(`Expected ")" but found ${describe(close)}`, close.pos)
      this.next()
      return node
    }
    if (token.type !== 'word' || word !== null)
      throw new SearchSyntaxError(`Expected a condition but found ${describe(token)}`, token.pos)
    const dot = token.text.indexOf('.')
    const head = (dot < 0 ? token.text : token.text.slice(0, dot)).toLowerCase()
    return KINDS.has(head) ? this.sequence() : this.sessionCondition()
  }

  private sessionCondition(): QueryNode {
    const token = this.next() as Extract<Token, { type: 'word' }>
    const lower = token.text.toLowerCase()
    const field = Object.hasOwn(SESSION_FIELDS, lower) ? lower : normalizeField(token.text, USER_TRAIT_PREFIX)
    const type = sessionFieldType(field)
    if (!type)
      throw new SearchSyntaxError(
        `Unknown field "${token.text}": a session field or a moment (${KIND_LIST})`,
        token.pos,
      )
    this.count(token.pos)
    return { type: 'session', ...this.comparison(field, type) }
  }

  private sequence(): QueryNode {
    const moments = [this.moment()]
    while (keyword(this.peek()) === 'then') {
      this.next()
      const token = this.peek()
      if (moments.length >= SEARCH_LIMITS.sequence)
        throw new SearchSyntaxError(`A sequence has at most ${SEARCH_LIMITS.sequence} moments`, token.pos)
      const head = token.type === 'word' ? token.text.split('.', 1)[0]?.toLowerCase() : undefined
      if (!head || !KINDS.has(head) || keyword(token))
        throw new SearchSyntaxError(`Expected a moment (${KIND_LIST}) after "then"`, token.pos)
      moments.push(this.moment())
    }
    if (keyword(this.peek()) !== 'within')
      return { type: 'sequence', moments, withinMs: null, withinRaw: null }
    this.next()
    const token = this.peek()
    const duration = token.type === 'word' ? classifyWord(token.text) : null
    if (token.type !== 'word' || duration?.type !== 'duration')
      throw new SearchSyntaxError('"within" takes a duration such as 500ms, 30s, 5m or 2h', token.pos)
    // The bound becomes a whole number of milliseconds added to a moment's time in SQL: a
    // fraction of a millisecond or a span past any recording would fail there, not here.
    const withinMs = Math.round(duration.ms)
    if (withinMs < 1 || withinMs > SEARCH_LIMITS.withinMs)
      throw new SearchSyntaxError('"within" takes a duration from 1ms to 720h', token.pos)
    this.next()
    return { type: 'sequence', moments, withinMs, withinRaw: token.text }
  }

  private moment(): MomentNode {
    const token = this.next() as Extract<Token, { type: 'word' }>
    const dot = token.text.indexOf('.')
    if (dot >= 0) {
      const kind = token.text.slice(0, dot).toLowerCase() as MomentKind
      const fieldPos = token.pos + dot + 1
      this.count(token.pos)
      return { kind, conditions: [this.momentCondition(kind, token.text.slice(dot + 1), fieldPos)] }
    }
    const kind = token.text.toLowerCase() as MomentKind
    const after = this.peek()
    if (after.type === 'op')
      throw new SearchSyntaxError(
        `A moment's field goes after a dot or in brackets: ${kind}.field ${after.op} … or ${kind}[field ${after.op} …]`,
        after.pos,
      )
    if (after.type !== '[') {
      this.count(token.pos)
      return { kind, conditions: [] }
    }
    this.next()
    const conditions: Condition[] = []
    for (;;) {
      const field = this.peek()
      if (field.type !== 'word' || keyword(field))
        throw new SearchSyntaxError(`Expected a field of ${kind} but found ${describe(field)}`, field.pos)
      this.next()
      this.count(field.pos)
      conditions.push(this.momentCondition(kind, field.text, field.pos))
      const joint = this.next()
      if (joint.type === ']') break
      if (keyword(joint) !== 'and')
        throw new SearchSyntaxError(`Expected "and" or "]" but found ${describe(joint)}`, joint.pos)
    }
    return { kind, conditions }
  }

  private momentCondition(kind: MomentKind, text: string, pos: number): Condition {
    const field = normalizeField(text, EVENT_PROP_PREFIX)
    const type = momentFieldType(kind, field)
    if (!type) throw new SearchSyntaxError(`Unknown field "${text}" for ${kind}`, pos)
    return this.comparison(field, type)
  }

  private comparison(field: string, type: FieldType): Condition {
    const opToken = this.next()
    if (opToken.type !== 'op')
      throw new SearchSyntaxError(
        `Expected an operator (= != ~ !~ > >= < <=) after ${field} but found ${describe(opToken)}`,
        opToken.pos,
      )
    const op = opToken.op
    if (!operatorsFor(type).includes(op))
      throw new SearchSyntaxError(
        `${field} does not take "${op}" (it takes ${operatorsFor(type).join(' ')})`,
        opToken.pos,
      )
    const valueToken = this.next()
    if (valueToken.type !== 'word' && valueToken.type !== 'string')
      throw new SearchSyntaxError(
        `Expected a value after "${op}" but found ${describe(valueToken)}`,
        valueToken.pos,
      )
    const value = valueFrom(valueToken)
    const problem = mismatch(type, op, value)
    if (problem) throw new SearchSyntaxError(`${field} ${problem}`, valueToken.pos)
    return { field, op, value }
  }

  private count(pos: number): void {
    if (++this.conditions > SEARCH_LIMITS.conditions)
      throw new SearchSyntaxError(`A query has at most ${SEARCH_LIMITS.conditions} conditions`, pos)
  }
}

function valueFrom(token: Extract<Token, { type: 'word' | 'string' }>): QueryValue {
  if (token.type === 'string') return { type: 'string', value: token.text }
  const meaning = classifyWord(token.text)
  if (meaning.type === 'number') return { type: 'number', value: meaning.value, raw: token.text }
  if (meaning.type === 'duration') return { type: 'duration', ms: meaning.ms, raw: token.text }
  return { type: 'string', value: token.text }
}

/** Why `value` does not fit a field of `type`, or null when it does. */
function mismatch(type: FieldType, op: string, value: QueryValue): string | null {
  switch (type) {
    case 'number':
      return value.type === 'number' ? null : 'takes a number'
    case 'duration':
      return value.type === 'string' ? 'takes a duration (500ms, 30s, 5m, 2h) or milliseconds' : null
    case 'boolean':
      return value.type === 'string' && ['true', 'false'].includes(value.value.toLowerCase())
        ? null
        : 'takes true or false'
    case 'enum':
      if (op !== '=' && op !== '!=') return null
      return value.type === 'string' &&
        (DEVICE_VALUES as readonly string[]).includes(value.value.toLowerCase())
        ? null
        : `is one of ${DEVICE_VALUES.join(', ')}`
    case 'json':
      return ['>', '>=', '<', '<='].includes(op) && value.type === 'string'
        ? `takes a number with "${op}"`
        : null
    default:
      return null
  }
}
