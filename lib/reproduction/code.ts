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

// Line terminators of ECMAScript (LF, CR, LS, PS) and every other control character.
const UNSAFE_IN_COMMENT = /[\p{Cc}\u2028\u2029]/gu

/**
 * A string literal for `text`. JSON.stringify escapes quotes, backslashes and controls; the
 * two separators are escaped too, so the literal reads the same in every TypeScript version.
 */
export function lit(text: string, max = MAX_LITERAL): string {
  return JSON.stringify(bounded(text, max)).replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029')
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
