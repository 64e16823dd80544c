import type { z } from 'zod'
import { InvalidInputError, MalformedBodyError } from './errors'

/** Parses a value or throws an InvalidInputError carrying the first issue's message. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  throw new InvalidInputError(issue?.message ?? 'Invalid input')
}

/** JSON.parse that answers a typed error instead of a SyntaxError. */
export function parseJson(bytes: Buffer, message: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new MalformedBodyError(message)
  }
}

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether Postgres can store the text as given: a text column refuses NUL, and a jsonb value
 * refuses both NUL and an unpaired surrogate (a text column would silently store U+FFFD instead).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value)
}

/** The end of the message for text that `isStorableText` refuses, after the field's name. */
export const NOT_STORABLE = 'must not contain NUL characters or broken (unpaired) Unicode surrogates'

// Server actions are public endpoints: whatever React can decode from a request body reaches
// them (numbers, arrays, objects whose `toString` is not a function, Files), whatever their
// TypeScript signature says. These read text out of such values without ever throwing.

/** A text argument of a server action; anything that is not a string reads as no text at all. */
export function textArgument(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The fields of an object argument of a server action; anything else has none. */
export function recordArgument(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

/**
 * One text field of a submitted form: `fallback` when the form does not have it (or is no
 * form at all), '' when it holds a file, the first value when the field was sent twice.
 */
export function formText(form: unknown, name: string, fallback = ''): string {
  if (!(form instanceof FormData) || !form.has(name)) return fallback
  return textArgument(form.get(name))
}

/** Every text value of a repeated form field (checkboxes); files are left out. */
export function formTexts(form: unknown, name: string): string[] {
  if (!(form instanceof FormData)) return []
  return form.getAll(name).filter((value): value is string => typeof value === 'string')
}
