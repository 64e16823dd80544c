/**
 * Text patterns an owner masks (docs/privacy.md#re-masking). Owners type them, so the syntax
 * is small and every matcher runs in time linear in the text it scans — no regular expression
 * built from what an owner typed:
 *
 * - `text`    the literal text, case-sensitive;
 * - `~text`   the literal text, ignoring the case of ASCII letters;
 * - `@email`, `@card-number`  a built-in detector (MASK_BUILT_INS);
 * - `\…`      the rest literally, for a literal that starts with `~`, `@` or `\`.
 *
 * A match is replaced by as many `*` as it has characters, so lengths and offsets stay put.
 */

export const MAX_PATTERN_CHARS = 200
/** The shortest literal: masking every "a" of a session would destroy it, not protect it. */
export const MIN_LITERAL_CHARS = 3

export const MASK_BUILT_INS = {
  '@email': 'e-mail addresses (name@domain.tld)',
  '@card-number':
    'payment card numbers: 13 to 19 digits, groups split by one space or hyphen, passing the Luhn check',
} as const
export type MaskBuiltIn = keyof typeof MASK_BUILT_INS

export type MaskPattern =
  | { kind: 'literal'; text: string; ignoreCase: boolean }
  | { kind: 'builtin'; name: MaskBuiltIn }

export class MaskPatternError extends Error {
  override name = 'MaskPatternError'
}

/** One pattern as typed, or a MaskPatternError saying what is wrong with it. */
export function parseMaskPattern(typed: string): MaskPattern {
  if (typed.length > MAX_PATTERN_CHARS)
    throw new MaskPatternError(`A pattern has at most ${MAX_PATTERN_CHARS} characters`)
  for (let i = 0; i < typed.length; i++)
    if (typed.charCodeAt(i) < 32) throw new MaskPatternError('A pattern may not hold control characters')
  if (typed.startsWith('@')) {
    if (Object.hasOwn(MASK_BUILT_INS, typed)) return { kind: 'builtin', name: typed as MaskBuiltIn }
    throw new MaskPatternError(
      `Unknown built-in pattern ${JSON.stringify(typed)}: use ${Object.keys(MASK_BUILT_INS).join(' or ')}, or \\@… for a literal`,
    )
  }
  const ignoreCase = typed.startsWith('~')
  const text = ignoreCase || typed.startsWith('\\') ? typed.slice(1) : typed
  if (text.length < MIN_LITERAL_CHARS)
    throw new MaskPatternError(`A literal pattern has at least ${MIN_LITERAL_CHARS} characters`)
  return { kind: 'literal', text: ignoreCase ? asciiLower(text) : text, ignoreCase }
}

// Only A–Z: the folded text keeps every offset of the original (toLowerCase may not, e.g. "İ").
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
}

type Range = [start: number, end: number]

function literalRanges(haystack: string, needle: string, out: Range[]): void {
  let from = 0
  while (true) {
    const at = haystack.indexOf(needle, from)
    if (at < 0) return
    out.push([at, at + needle.length])
    from = at + needle.length
  }
}

const isLocalChar = (c: number) =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 46 ||
  c === 95 ||
  c === 37 ||
  c === 43 ||
  c === 45
const isDomainChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 45
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/**
 * Each `@` is expanded left over address characters and right over domain characters; `@` is
 * neither, so every character is looked at a bounded number of times.
 */
function emailRanges(text: string, out: Range[]): void {
  let at = text.indexOf('@')
  while (at >= 0) {
    let start = at
    while (start > 0 && isLocalChar(text.charCodeAt(start - 1))) start--
    let end = at + 1
    while (end < text.length && isDomainChar(text.charCodeAt(end))) end++
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--
    const domain = text.slice(at + 1, end)
    const dot = domain.lastIndexOf('.')
    let tld = 0
    for (let i = dot + 1; dot > 0 && i < domain.length && isLetter(domain.charCodeAt(i)); i++) tld++
    if (start < at && dot > 0 && tld >= 2 && tld === domain.length - dot - 1) out.push([start, end])
    at = text.indexOf('@', end > at ? end : at + 1)
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57

function luhn(digits: number[]): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i]!
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** Runs of digits with single spaces or hyphens between them; each run is checked whole. */
function cardRanges(text: string, out: Range[]): void {
  let i = 0
  while (i < text.length) {
    if (!isDigit(text.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    const digits: number[] = []
    let count = 0
    let end = i
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (isDigit(c)) {
        if (++count <= 19) digits.push(c - 48)
        i++
        end = i
      } else if ((c === 32 || c === 45) && i + 1 < text.length && isDigit(text.charCodeAt(i + 1))) i++
      else break
    }
    if (count >= 13 && count <= 19 && luhn(digits)) out.push([start, end])
  }
}

/** Where the patterns match in `text`: sorted, possibly overlapping ranges. */
export function patternRanges(text: string, patterns: readonly MaskPattern[]): Range[] {
  const ranges: Range[] = []
  let folded: string | null = null
  for (const pattern of patterns) {
    if (pattern.kind === 'literal') {
      if (text.length < pattern.text.length) continue
      if (pattern.ignoreCase) {
        folded ??= asciiLower(text)
        literalRanges(folded, pattern.text, ranges)
      } else literalRanges(text, pattern.text, ranges)
    } else if (pattern.name === '@email') emailRanges(text, ranges)
    else cardRanges(text, ranges)
  }
  return ranges.sort((a, b) => a[0] - b[0])
}

/** The text with every match of the patterns replaced by `*`s; the same string when none matched. */
export function maskPatternsIn(text: string, patterns: readonly MaskPattern[]): string {
  if (patterns.length === 0 || text.length === 0) return text
  const ranges = patternRanges(text, patterns)
  if (ranges.length === 0) return text
  let out = ''
  let at = 0
  for (const [start, end] of ranges) {
    const from = Math.max(start, at)
    if (end <= from) continue
    out += text.slice(at, from) + '*'.repeat(end - from)
    at = end
  }
  return out + text.slice(at)
}

/**
 * A pattern as records may name it: built-ins by name, a literal by its length only, since a
 * literal is often the very secret being masked (audit entries, a finished re-masking).
 */
export function describeMaskPattern(typed: string): string {
  if (typed.startsWith(DESCRIBED)) return typed.slice(DESCRIBED.length)
  if (Object.hasOwn(MASK_BUILT_INS, typed)) return typed
  const ignoreCase = typed.startsWith('~')
  const length = ignoreCase || typed.startsWith('\\') ? typed.length - 1 : typed.length
  return `(literal${ignoreCase ? ', any case' : ''}, ${length} characters)`
}

/**
 * Marks a stored pattern as already described (a finished re-masking keeps only the
 * description). Typed patterns hold no control characters, so none can start with it.
 */
const DESCRIBED = '\u0001'
export const forgetLiteral = (typed: string): string =>
  Object.hasOwn(MASK_BUILT_INS, typed) ? typed : DESCRIBED + describeMaskPattern(typed)
