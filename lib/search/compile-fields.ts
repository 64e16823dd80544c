import { type SQL, sql } from 'drizzle-orm'
import { replaySessions } from '@/db/schema'
import type { TrailKind } from '@/lib/analysis/trail'
import type { Condition, MomentKind, QueryValue } from './ast'
import {
  EVENT_PROP_PREFIX,
  type FieldType,
  momentFieldType,
  sessionFieldType,
  USER_TRAIT_PREFIX,
} from './fields'

/**
 * Field conditions as SQL. Every value the query carries is a bound parameter; the only text
 * put into SQL as-is is this file's own JSON paths and the alias the compiler chose. A
 * condition is always true or false, never null: `!=` and `!~` are exactly `not =` and `not ~`,
 * so a session or moment without the field (no release, a request without status) matches them.
 */

export const TRAIL_KIND: Record<MomentKind, TrailKind> = {
  click: 'click',
  input: 'input',
  page: 'navigation',
  console: 'console',
  error: 'error',
  request: 'request',
  rage_click: 'rage_click',
  dead_click: 'dead_click',
  event: 'custom',
}

/** `%`, `_` and `\` typed in a query are literal characters, not LIKE wildcards. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** What a field reads: text, a number, or a JSON value of any type. */
type Operand = { as: 'text'; sql: SQL } | { as: 'number'; sql: SQL } | { as: 'json'; sql: SQL }

const TARGET_KEYS: Record<string, string> = {
  text: 'text',
  role: 'role',
  testid: 'testId',
  selector: 'selector',
  name: 'name',
}
const ENTRY_KEYS: Record<string, string> = {
  url: 'url',
  level: 'level',
  message: 'message',
  source: 'source',
  method: 'method',
  name: 'tag',
  failed: 'failed',
}
const NUMBER_KEYS: Record<string, string> = { count: 'count', status: 'status', duration: 'durationMs' }

/** A JSON number as numeric; anything else (null, a string) as SQL null, never a cast error. */
function jsonNumber(json: SQL): SQL {
  return sql`(case when jsonb_typeof(${json}) = 'number' then (${json} #>> '{}')::numeric end)`
}

/** The path of a URL: what follows scheme and host, without query or fragment; `/` when empty. */
function urlPath(url: SQL): SQL {
  const rest = sql`regexp_replace(${url}, '^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*', '')`
  return sql`coalesce(nullif(split_part(split_part(${rest}, '#', 1), '?', 1), ''), '/')`
}

/** The operand of a moment field, read from the entry of trail row `alias`. */
function momentOperand(kind: MomentKind, field: string, alias: SQL): Operand {
  const entry = sql`${alias}.entry`
  if (field.startsWith(EVENT_PROP_PREFIX)) {
    const key = field.slice(EVENT_PROP_PREFIX.length)
    // The payload is JSON text cut at TRAIL_LIMITS.payload, so it may not parse: then no property.
    // search_try_jsonb (migration 0012_search) answers null for text that does not parse.
    return { as: 'json', sql: sql`(search_try_jsonb(${entry} ->> 'payload') -> ${key}::text)` }
  }
  const target = TARGET_KEYS[field]
  if (target && kind !== 'event')
    return { as: 'text', sql: sql`(${entry} -> 'target' ->> ${sql.raw(`'${target}'`)})` }
  const number = NUMBER_KEYS[field]
  if (number) return { as: 'number', sql: jsonNumber(sql`(${entry} -> ${sql.raw(`'${number}'`)})`) }
  if (kind === 'page' && field === 'path') return { as: 'text', sql: urlPath(sql`(${entry} ->> 'url')`) }
  const key = ENTRY_KEYS[field]
  if (!key) throw new Error(`No column for ${kind}.${field}`)
  return { as: 'text', sql: sql`(${entry} ->> ${sql.raw(`'${key}'`)})` }
}

function sessionOperand(field: string): Operand {
  switch (field) {
    case 'user.id':
      return { as: 'text', sql: sql`${replaySessions.userId}` }
    case 'user.email':
      return { as: 'text', sql: sql`${replaySessions.userEmail}` }
    case 'user.name':
      return { as: 'text', sql: sql`${replaySessions.userName}` }
    case 'release':
      return { as: 'text', sql: sql`${replaySessions.release}` }
    case 'browser':
      return { as: 'text', sql: sql`${replaySessions.browser}` }
    case 'os':
      return { as: 'text', sql: sql`${replaySessions.os}` }
    case 'device':
      return { as: 'text', sql: sql`${replaySessions.device}` }
    case 'language':
      return { as: 'text', sql: sql`${replaySessions.language}` }
    // Nothing the service trusts tells a visitor's country (docs/search.md#session-fields).
    case 'country':
      return { as: 'text', sql: sql`null::text` }
    case 'duration':
      return { as: 'number', sql: sql`${replaySessions.durationMs}` }
    case 'pages':
      return { as: 'number', sql: sql`${replaySessions.pageCount}` }
    case 'errors':
      return { as: 'number', sql: sql`${replaySessions.errorCount}` }
    case 'rage_clicks':
      return { as: 'number', sql: sql`${replaySessions.rageClickCount}` }
  }
  if (field.startsWith(USER_TRAIT_PREFIX)) {
    const key = field.slice(USER_TRAIT_PREFIX.length)
    return { as: 'json', sql: sql`(${replaySessions.userProperties} -> ${key}::text)` }
  }
  throw new Error(`No column for session field ${field}`)
}

/** The value as text (a number or duration as typed) and as a number when it is one. */
function textOf(value: QueryValue): string {
  return value.type === 'string' ? value.value : value.raw
}
function numberOf(value: QueryValue): number | null {
  return value.type === 'number' ? value.value : value.type === 'duration' ? value.ms : null
}

const COMPARISONS = { '>': sql`>`, '>=': sql`>=`, '<': sql`<`, '<=': sql`<=` } as const

function positive(operand: Operand, condition: Condition, type: FieldType): SQL {
  const { op, value } = condition
  const base = op === '!=' ? '=' : op === '!~' ? '~' : op
  const number = numberOf(value)
  if (type === 'boolean') return sql`(${operand.sql} = ${textOf(value).toLowerCase()})`
  if (operand.as === 'number') {
    const compare = base === '=' ? sql`=` : COMPARISONS[base as keyof typeof COMPARISONS]
    return sql`(${operand.sql} ${compare} ${number}::numeric)`
  }
  const text = operand.as === 'json' ? sql`(${operand.sql} #>> '{}')` : operand.sql
  if (base === '~') return sql`(${text} ilike ${containing(textOf(value))})`
  if (base === '=') return sql`(lower(${text}) = lower(${textOf(value)}::text))`
  // A comparison on a JSON value: a JSON number, or a string that is a plain decimal number.
  const numeric = sql`(case when jsonb_typeof(${operand.sql}) = 'number' then (${text})::numeric when jsonb_typeof(${operand.sql}) = 'string' and ${text} ~ '^-?[0-9]{1,30}(\\.[0-9]{1,30})?$' then (${text})::numeric end)`
  return sql`(${numeric} ${COMPARISONS[base as keyof typeof COMPARISONS]} ${number}::numeric)`
}

function compileCondition(operand: Operand, condition: Condition, type: FieldType): SQL {
  const matches = sql`coalesce(${positive(operand, condition, type)}, false)`
  return condition.op === '!=' || condition.op === '!~' ? sql`(not ${matches})` : matches
}

/** A moment field's condition over the trail row `alias`. */
export function momentCondition(kind: MomentKind, condition: Condition, alias: SQL): SQL {
  const type = momentFieldType(kind, condition.field)
  if (!type) throw new Error(`Unknown field ${kind}.${condition.field}`)
  return compileCondition(momentOperand(kind, condition.field, alias), condition, type)
}

/** A session field's condition over the `replay_sessions` row of the enclosing query. */
export function sessionCondition(condition: Condition): SQL {
  const type = sessionFieldType(condition.field)
  if (!type) throw new Error(`Unknown session field ${condition.field}`)
  return compileCondition(sessionOperand(condition.field), condition, type)
}
