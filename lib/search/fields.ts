import type { MomentKind, Operator } from './ast'

/**
 * What each field holds, which decides the operators and values it takes:
 * `text` compares as case-insensitive text (`= != ~ !~`); `number` and `duration` compare
 * numerically (a duration also takes a plain number of milliseconds); `boolean` is `true` or
 * `false` with `=`/`!=`; `enum` is text from a fixed set; `json` is a recorded property of any
 * type (a number compares numerically, anything else as text).
 */
export type FieldType = 'text' | 'number' | 'duration' | 'boolean' | 'enum' | 'json'

const TARGET = { text: 'text', role: 'text', testid: 'text', selector: 'text', name: 'text' } as const

export const MOMENT_FIELDS: Record<MomentKind, Readonly<Record<string, FieldType>>> = {
  click: { ...TARGET, count: 'number' },
  input: TARGET,
  page: { url: 'text', path: 'text' },
  console: { level: 'text', message: 'text' },
  error: { message: 'text', source: 'text' },
  request: { method: 'text', url: 'text', status: 'number', duration: 'duration', failed: 'boolean' },
  rage_click: { ...TARGET, count: 'number' },
  dead_click: TARGET,
  event: { name: 'text' },
}

export const SESSION_FIELDS: Readonly<Record<string, FieldType>> = {
  'user.id': 'text',
  'user.email': 'text',
  'user.name': 'text',
  release: 'text',
  browser: 'text',
  os: 'text',
  device: 'enum',
  country: 'text',
  language: 'text',
  duration: 'duration',
  pages: 'number',
  errors: 'number',
  rage_clicks: 'number',
}

export const DEVICE_VALUES = ['desktop', 'mobile', 'tablet'] as const

/** Prefixes whose key is free (`prop.plan`, `user.plan`); the key keeps its case. */
export const EVENT_PROP_PREFIX = 'prop.'
export const USER_TRAIT_PREFIX = 'user.'

/** The type of a moment field, or null when the kind has no such field. */
export function momentFieldType(kind: MomentKind, field: string): FieldType | null {
  if (kind === 'event' && field.startsWith(EVENT_PROP_PREFIX) && field.length > EVENT_PROP_PREFIX.length)
    return 'json'
  const fields = MOMENT_FIELDS[kind]
  // Own keys only: a field named `constructor` must not find Object's.
  return Object.hasOwn(fields, field) ? (fields[field] ?? null) : null
}

/** The type of a session field, or null when there is none; any other `user.<trait>` is json. */
export function sessionFieldType(field: string): FieldType | null {
  if (Object.hasOwn(SESSION_FIELDS, field)) return SESSION_FIELDS[field] ?? null
  if (field.startsWith(USER_TRAIT_PREFIX) && field.length > USER_TRAIT_PREFIX.length) return 'json'
  return null
}

/** The operators a field type takes. */
export function operatorsFor(type: FieldType): readonly Operator[] {
  switch (type) {
    case 'text':
    case 'enum':
      return ['=', '!=', '~', '!~']
    case 'boolean':
      return ['=', '!=']
    case 'number':
    case 'duration':
      return ['=', '!=', '>', '>=', '<', '<=']
    case 'json':
      return ['=', '!=', '~', '!~', '>', '>=', '<', '<=']
  }
}
