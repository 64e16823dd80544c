import { InvalidInputError } from '@/lib/errors'

// A date, or a date and time with an explicit offset: a time without one would be read in
// the server's zone. No nested quantifiers, and the length is checked first.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/
const MAX_INSTANT_CHARS = 40

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z')
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z')

/** `Date.parse` rolls 2026-02-31 over to March 3rd; a day the month does not have is refused. */
function isCalendarDate(text: string): boolean {
  const year = Number(text.slice(0, 4))
  const month = Number(text.slice(5, 7))
  const day = Number(text.slice(8, 10))
  // Day 0 of the next month is the last day of this one (2000 is a leap year: February has 29).
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate()
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false
  return month !== 2 || day <= 28 || isLeap(year)
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

export function instantMessage(name: string): string {
  return `${name} must be an ISO 8601 time with a time zone, e.g. 2026-01-31T12:00:00Z`
}

/** An ISO 8601 instant from a query parameter or tool argument named `name`. */
export function parseInstant(value: string, name: string): Date {
  const text = value.trim()
  if (text.length > MAX_INSTANT_CHARS || !ISO_INSTANT.test(text))
    throw new InvalidInputError(instantMessage(name))
  const time = Date.parse(text)
  // Postgres keeps years 1 to 9999 in a timestamp; an offset can push a valid text past them.
  if (Number.isNaN(time) || time < FIRST_INSTANT || time > LAST_INSTANT || !isCalendarDate(text))
    throw new InvalidInputError(instantMessage(name))
  return new Date(time)
}
