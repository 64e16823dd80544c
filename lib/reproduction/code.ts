/**
 * Writing page-derived text into generated TypeScript. Every string of a trail was written by
 * whoever recorded the page, so it enters code only as a JSON string literal (which is a valid
 * TypeScript string literal too) and comments only after everything that could end a comment
 * or a line has been taken out.
 */
import { CUT_MARKER } from '@/lib/analysis/trail'

/** Longest literal the generator writes; longer texts are cut (and so matched by prefix). */
export const MAX_LITERAL = 300
const MAX_COMMENT = 160

// Line terminators of ECMAScript (LF, CR, LS, PS) and every other control character, plus the
// invisible ones (format characters such as bidi overrides and zero-width spaces, private-use
// and unassigned code points): a reader must see in the file what the compiler sees (Trojan Source).
const UNSAFE_IN_COMMENT = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u2028\u2029]/gu
// Invisible code points and the two separators, which JSON.stringify leaves raw in a literal.
const UNSEEN_IN_LITERAL = /[\p{Cf}\p{Co}\p{Cn}\u2028\u2029]/gu

/** `\uXXXX` for each UTF-16 unit of the code point, so a pair outside the BMP becomes two escapes. */
function escapeUnits(char: string): string {
  let out = ''
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`
  return out
}

/**
 * A string literal for `text`. JSON.stringify escapes quotes, backslashes, controls and lone
 * surrogates; the two separators are escaped too, so the literal reads the same in every
 * TypeScript version, and invisible code points are escaped so that no bidi override or
 * zero-width character reorders or hides what the file shows (the string's value is unchanged).
 */
export function lit(text: string, max = MAX_LITERAL): string {
  return JSON.stringify(bounded(text, max)).replace(UNSEEN_IN_LITERAL, escapeUnits)
}

/** `text` without the truncation marker, cut to `max` without splitting a surrogate pair. */
export function bounded(text: string, max = MAX_LITERAL): string {
  const whole = withoutCutMarker(text)
  if (whole.length <= max) return whole
  const last = whole.charCodeAt(max - 1)
  return whole.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

export function withoutCutMarker(text: string): string {
  return text.endsWith(CUT_MARKER) ? text.slice(0, -CUT_MARKER.length) : text
}

/** Whether the recorder or the trail cut `text` (so only its start is known). */
export function wasCut(text: string): boolean {
  return text.endsWith(CUT_MARKER)
}

/**
 * Text for a `//` comment: one line, no control characters, no `*​/` (the generated file has
 * no block comments, but a reader may paste a line into one). Quoted with JSON so that where
 * page text starts and ends stays visible.
 */
export function commentText(text: string, max = MAX_COMMENT): string {
  const line = text.replace(UNSAFE_IN_COMMENT, ' ').replaceAll('*/', '* /')
  return JSON.stringify(bounded(line, max)).replace(UNSAFE_IN_COMMENT, ' ').replaceAll('*/', '* /')
}

/** One-line prose of ours with page text already passed through commentText. */
export function comment(indent: string, text: string): string {
  return `${indent}// ${text.replace(UNSAFE_IN_COMMENT, ' ').replaceAll('*/', '* /')}`
}
