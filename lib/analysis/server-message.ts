/**
 * The error message a server put in a failed request's response body (issue 20,
 * docs/network-details.md), read from the body the recorder captured for allowlisted URLs:
 * `{"error":{"message":"Insufficient stock"}}` becomes `Insufficient stock`. The body is
 * written by whoever holds the public ingest key, so it is cut before anything reads it,
 * parsed only when small, searched one level deep at fixed keys, and scanned as text in one
 * linear pass without regular expressions that could backtrack.
 */
import { clip } from './bounds'
import { collapseWhitespace, truncate } from './normalize'
import { isObj } from './rrweb'

/** The message as kept in the evidence and shown: one short line. */
export const MAX_SERVER_MESSAGE_CHARS = 300

/** Bodies longer than this are not parsed as JSON (an API error body is a few hundred bytes). */
export const MAX_JSON_BODY_CHARS = 65_536

/** How much of a text or HTML body is scanned for its first line. */
const MAX_TEXT_SCAN_CHARS = 65_536

// Fields a message is commonly in, in order (RFC 9457's `detail` and `title`, GraphQL's errors).
const MESSAGE_KEYS = ['message', 'error', 'error_description', 'detail', 'title'] as const

/** A usable message: a string with something visible in it, as one bounded line. */
function line(value: unknown): string | null {
  if (typeof value !== 'string') return null
  // Cut first so that collapsing whitespace never walks a megabyte string.
  const text = collapseWhitespace(clip(value, MAX_SERVER_MESSAGE_CHARS * 4))
  return text === '' ? null : truncate(text, MAX_SERVER_MESSAGE_CHARS)
}

/** `value` itself when a string, else its `message` (an error object's). */
function stringOrMessage(value: unknown): string | null {
  return line(value) ?? (isObj(value) ? line(value.message) : null)
}

/** The message of a parsed JSON body; only fixed keys at most two levels deep are read. */
function jsonMessage(value: unknown): string | null {
  if (typeof value === 'string') return line(value)
  // Some APIs answer a bare list of errors.
  if (Array.isArray(value)) return stringOrMessage(value[0])
  if (!isObj(value)) return null
  for (const key of MESSAGE_KEYS) {
    const found = key === 'error' ? stringOrMessage(value.error) : line(value[key])
    if (found) return found
  }
  return Array.isArray(value.errors) ? stringOrMessage(value.errors[0]) : null
}

// Inline elements continue the line they are in; any other tag ends it (`<h1>Oops</h1><p>..`).
const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'code', 'em', 'i', 'kbd', 'small', 'span', 'strong', 'u'])
// Their content is never text a reader sees.
const HIDDEN_TAGS = new Set(['script', 'style', 'head', 'template', 'noscript'])
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
}

function isNameCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)
}

/** The tag name starting at `from` (after `<` and an optional `/`), lower-cased. */
function tagName(text: string, from: number): string {
  let end = from
  while (end < text.length && end - from < 16 && isNameCode(text.charCodeAt(end))) end++
  return text.slice(from, end).toLowerCase()
}

/** Where the closing tag of `name` starts at or after `from` (any case), or the end of the text. */
function closingTag(text: string, name: string, from: number): number {
  let at = text.indexOf('</', from)
  while (at >= 0 && tagName(text, at + 2) !== name) at = text.indexOf('</', at + 2)
  return at < 0 ? text.length : at
}

/**
 * The first line of visible text of a text or HTML body: tags are skipped (a block tag ends a
 * line), the content of script and style is skipped, comments too, and a few entities are
 * decoded. Every index only moves forward, so the work is linear in the scanned length.
 */
export function firstTextLine(body: string): string | null {
  const text = clip(body, MAX_TEXT_SCAN_CHARS)
  let current = ''
  let i = 0
  const flush = (): string | null => {
    const found = line(current)
    current = ''
    return found
  }
  while (i < text.length) {
    const char = text[i]!
    if (char === '\n' || char === '\r') {
      const found = flush()
      if (found) return found
      i++
    } else if (char === '<' && text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4)
      i = end < 0 ? text.length : end + 3
    } else if (
      char === '<' &&
      (isNameCode(text.charCodeAt(i + 1)) || text[i + 1] === '/' || text[i + 1] === '!')
    ) {
      const closing = text[i + 1] === '/'
      const name = tagName(text, i + (closing ? 2 : 1))
      const end = text.indexOf('>', i + 1)
      i = end < 0 ? text.length : end + 1
      if (!closing && HIDDEN_TAGS.has(name)) {
        i = closingTag(text, name, i)
      } else if (!INLINE_TAGS.has(name)) {
        const found = flush()
        if (found) return found
      }
    } else if (char === '&') {
      const end = text.indexOf(';', i + 1)
      const entity = end > i && end - i <= 6 ? ENTITIES[text.slice(i + 1, end).toLowerCase()] : undefined
      current += entity ?? '&'
      i = entity === undefined ? i + 1 : end + 1
    } else {
      current += char
      i++
    }
    // A line longer than any message is ended here, so `current` stays small.
    if (current.length > MAX_SERVER_MESSAGE_CHARS * 4) {
      const found = flush()
      if (found) return found
    }
  }
  return flush()
}

/**
 * The server's message in a captured response body, or null when there is none: JSON bodies
 * (up to MAX_JSON_BODY_CHARS) give their first message field, other bodies their first line of
 * text. A body that looks like JSON but does not parse (cut by the recorder, or malformed)
 * gives nothing rather than a line of raw JSON.
 */
export function serverMessage(body: unknown): string | null {
  if (typeof body !== 'string') return null
  let start = 0
  while (start < body.length && start < 1024 && /\s/.test(body[start]!)) start++
  const first = body[start]
  if (first === '{' || first === '[' || first === '"') {
    if (body.length > MAX_JSON_BODY_CHARS) return null
    try {
      return jsonMessage(JSON.parse(body))
    } catch {
      return null
    }
  }
  return firstTextLine(body)
}
