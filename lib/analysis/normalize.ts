/**
 * Text normalisation for grouping (docs/design/analysis.md §4.4): the same problem must produce the same
 * string whatever ids, counts, dates or addresses it mentions, while the words that carry the
 * bug — such as a quoted property name — stay.
 */
import { clip } from './bounds'
import { isNameCode, isWordCode } from './scan'

const UNCAUGHT_PREFIX = /^Uncaught(?: \(in promise\))?(?:\s+|$)/
const URL_RE = /\b(?:https?|wss?|file|blob|chrome-extension|moz-extension):\/\/[^\s'"`<>()]+/gi
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const DATE_RE = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g
// A hex run needs a digit, otherwise ordinary words made of a–f letters would be replaced.
const HEX_RE = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi
const LONG_NUMBER_RE = /\d{2,}(?:\.\d+)?/g
const STANDALONE_DIGIT_RE = /(?<![\w<])\d(?![\w>])/g

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${clip(text, max - 1)}…`
}

/** `[\w.+-]`: a character of an address's local part. */
function isLocalCode(code: number): boolean {
  return isWordCode(code) || code === 46 || code === 43 || code === 45
}

/** End of the label starting at `from` (`from` itself when there is none). */
function labelEnd(text: string, from: number): number {
  let at = from
  while (at < text.length && isNameCode(text.charCodeAt(at))) at++
  return at
}

/**
 * Replaces what `/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g` would match with `<email>`, in one pass: that
 * pattern retries every start of a long run of letters with no `@`, which is quadratic. The
 * local part of a match is the run of local characters right before its `@`, from where the
 * previous match ended; the domain is the longest `label(.label)+` after it.
 */
export function replaceEmails(text: string): string {
  let out = ''
  let copied = 0
  let found = false
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at
    while (start > copied && isLocalCode(text.charCodeAt(start - 1))) start--
    if (start === at) continue
    let end = labelEnd(text, at + 1)
    if (end === at + 1) continue
    let labels = 0
    while (text.charCodeAt(end) === 46) {
      const next = labelEnd(text, end + 1)
      if (next === end + 1) break
      end = next
      labels++
    }
    if (labels === 0) continue
    out += `${text.slice(copied, start)}<email>`
    copied = end
    found = true
    at = end - 1
  }
  return found ? out + text.slice(copied) : text
}

/** Removes the `Uncaught ` / `Uncaught (in promise) ` prefix Chromium puts on uncaught errors. */
export function stripUncaught(message: string): string {
  return message.replace(UNCAUGHT_PREFIX, '')
}

/**
 * The console plugin JSON-stringifies every argument (§1.7), so a string argument arrives with
 * its quotes. Returns the decoded value, or the raw text when it is not JSON.
 */
export function decodeConsoleArg(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw
  const first = raw.charCodeAt(0)
  // Only quoted strings, objects and arrays are worth parsing; bare words and numbers stay text.
  if (first !== 34 && first !== 123 && first !== 91) return raw
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** A readable one-line message from one decoded console argument. */
export function consoleArgText(raw: unknown): string {
  const value = decodeConsoleArg(raw)
  if (typeof value === 'string') return value
  if (value && typeof value === 'object' && 'message' in value) {
    const message = (value as { message?: unknown; name?: unknown }).message
    const name = (value as { name?: unknown }).name
    if (typeof message === 'string') return typeof name === 'string' ? `${name}: ${message}` : message
  }
  return JSON.stringify(value) ?? String(value)
}

export function normaliseMessage(message: string): string {
  let text = collapseWhitespace(stripUncaught(collapseWhitespace(message)))
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1)
  return replaceEmails(text.replace(URL_RE, '<url>'))
    .replace(UUID_RE, '<uuid>')
    .replace(DATE_RE, '<date>')
    .replace(HEX_RE, '<hex>')
    .replace(LONG_NUMBER_RE, '<n>')
    .replace(STANDALONE_DIGIT_RE, '<n>')
}

/** Element text as part of a fingerprint: case and counts churn, the words do not. */
export function normaliseLabel(text: string, max = 50): string {
  return normaliseMessage(text).toLowerCase().slice(0, max).trim()
}

const ERROR_TYPE_RE = /^([A-Za-z_$][\w$]*(?:Error|Exception)|Error)(?::\s*|$)/

/** Splits `TypeError: x` into its type and message; messages without a type are `Error`s. */
export function splitErrorType(message: string): { type: string; message: string } {
  const text = stripUncaught(collapseWhitespace(message))
  const match = ERROR_TYPE_RE.exec(text)
  if (!match?.[1]) return { type: 'Error', message: text }
  return { type: match[1], message: text.slice(match[0].length) || match[1] }
}
