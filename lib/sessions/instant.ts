import { InvalidInputError } from '@/lib/errors'

// A date, or a date and time with an explicit offset: a time without one would be read in
// the server's zone. No nested quantifiers, and the length is checked first.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/
const MAX_INSTANT_CHARS = 40

export function instantMessage(name: string): string {
  return `${name} must be an ISO 8601 time with a time zone, e.g. 2026-01-31T12:00:00Z`
}

/** An ISO 8601 instant from a query parameter or tool argument named `name`. */
export function parseInstant(value: string, name: string): Date {
  const text = value.trim()
  if (text.length > MAX_INSTANT_CHARS || !ISO_INSTANT.test(text))
    throw new InvalidInputError(instantMessage(name))
  const time = Date.parse(text)
  if (Number.isNaN(time)) throw new InvalidInputError(instantMessage(name))
  return new Date(time)
}
