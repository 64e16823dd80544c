/**
 * How much of each string from a replay the analyser reads (issue 14). Ingest keys are
 * public, so every string in an event is written by whoever holds one: each is cut to these
 * lengths where it is read from the event, before any pattern or scanner sees it, so the
 * work per event has a ceiling whatever the batch holds. The limits sit far above what real
 * pages produce (the recordings in tests/fixtures stay well under every one), so ordinary
 * sessions analyse exactly as without them.
 */

/** A console argument, an error message or a network error text. */
export const MAX_MESSAGE_CHARS = 4_096

/** Short identifiers: error type, mechanism, HTTP method, initiator type, tag and attribute names. */
export const MAX_NAME_CHARS = 256

/** One line of a stack trace (V8 lines with long URLs stay far below). */
export const MAX_STACK_LINE_CHARS = 2_000

/** Lines of one stack trace read (V8 keeps 10 frames by default, Firefox 128). */
export const MAX_STACK_LINES = 200

/** A page or request URL (browsers send longer ones, but nobody reads past this). */
export const MAX_URL_CHARS = 8_192

/** An attribute value: class, id, style, href, aria-label... (`_cssText` is CSS, below). */
export const MAX_ATTRIBUTE_CHARS = 4_096

/** A text node's content as kept for visible text, which shows at most 100 characters. */
export const MAX_TEXT_CHARS = 2_000

/**
 * One stylesheet (`_cssText`, a `<style>` text node, a StyleSheetRule insert) read for
 * `cursor: pointer`; its rules are read in one linear pass, so no rule needs a bound of its own.
 */
export const MAX_STYLESHEET_CHARS = 1_048_576

/** A status text and other free text that is only displayed. */
export const MAX_SHORT_TEXT_CHARS = 200

/**
 * The first `max` UTF-16 units of `value`, never ending inside a surrogate pair (a lone half
 * would be refused by Postgres' jsonb when the finding is stored).
 */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value
  const last = value.charCodeAt(max - 1)
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/** A string field of an event, cut to `max`; null when it is not a string. */
export function boundedStr(value: unknown, max: number): string | null {
  return typeof value === 'string' ? clip(value, max) : null
}
