/**
 * The name of the function a position of original source is written in, read from the
 * source itself (docs/source-maps.md, "Symbolication"): a map's mapping at a frame names
 * the token that threw, not its function. A hand scanner over a bounded window before the
 * position (no patterns: sources are uploaded by users), tracking braces with the tokens
 * that open each one, so strings, comments and template literals do not count.
 */

/** How far back the scan starts: at most this many lines and characters before the position. */
export const NAME_SCAN_LINES = 200
export const NAME_SCAN_CHARS = 20_000
/** Tokens kept of the statement before a `{`: enough for a signature with types. */
const MAX_HEADER_TOKENS = 64

/** Words before `(...) {` that open a block, not a method. */
const BLOCK_WORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'with',
  'return',
  'typeof',
  'new',
  'await',
  'yield',
  'in',
  'of',
  'case',
  'do',
  'else',
  'try',
  'finally',
  'void',
  'delete',
  'throw',
])

function isIdentifierCode(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 36 ||
    code > 127
  )
}

function isIdentifier(token: string | undefined): token is string {
  if (!token) return false
  const first = token.charCodeAt(0)
  return isIdentifierCode(first) && !(first >= 48 && first <= 57)
}

/** Index of the `(` that the `)` at `close` closes, or -1. */
function openingParen(tokens: string[], close: number): number {
  let depth = 0
  for (let i = close; i >= 0; i--) {
    if (tokens[i] === ')') depth++
    else if (tokens[i] === '(' && --depth === 0) return i
  }
  return -1
}

/** Index just before a `<...>` that ends at `end` (TypeScript type parameters), or `end`. */
function beforeTypeParameters(tokens: string[], end: number): number {
  if (tokens[end] !== '>') return end
  let depth = 0
  for (let i = end; i >= 0; i--) {
    if (tokens[i] === '>') depth++
    else if (tokens[i] === '<' && --depth === 0) return i - 1
  }
  return end
}

/**
 * The name a function expression starting at `start` is given by what it is assigned to:
 * `name = …`, `const name: T = …`, `name: …`; null when it is an argument or anonymous.
 */
function assignedName(tokens: string[], start: number): string | null {
  const before = tokens[start - 1]
  if (before === '=') {
    const target = tokens[start - 2]
    if (isIdentifier(target) && tokens[start - 3] !== ':') return target
    for (let i = start - 2; i >= 0; i--) {
      const declared = tokens[i + 1]
      if ((tokens[i] === 'const' || tokens[i] === 'let' || tokens[i] === 'var') && isIdentifier(declared))
        return declared
    }
    return null
  }
  const property = tokens[start - 2]
  if (before === ':' && isIdentifier(property)) return property
  return null
}

/** The `)` that ends a parameter list at the header's end: last, or before a `: ReturnType`. */
function parameterListEnd(tokens: string[], end: number): number {
  if (tokens[end] === ')') return end
  for (let i = end; i > 0; i--) if (tokens[i] === ':' && tokens[i - 1] === ')') return i - 1
  return -1
}

/** The arrow function whose `=>` is at `arrow`: its name, or null when anonymous. */
function arrowName(tokens: string[], arrow: number): string | null {
  let start: number
  const previous = tokens[arrow - 1]
  if (isIdentifier(previous) && tokens[arrow - 2] !== ':' && tokens[arrow - 2] !== ')') start = arrow - 1
  else {
    const close = parameterListEnd(tokens, arrow - 1)
    if (close < 0) return null
    const open = openingParen(tokens, close)
    if (open < 0) return null
    start = beforeTypeParameters(tokens, open - 1) + 1
  }
  if (tokens[start - 1] === 'async') start--
  return assignedName(tokens, start)
}

/**
 * What the tokens before a `{` make of the block: a function's name, null for an anonymous
 * function, undefined for a block that is no function (if, class, object literal).
 */
export function headerFunction(tokens: string[]): string | null | undefined {
  const last = tokens.length - 1
  if (last < 0) return undefined
  if (tokens[last] === '=>') return arrowName(tokens, last)
  const close = parameterListEnd(tokens, last)
  if (close < 0) return undefined
  const open = openingParen(tokens, close)
  if (open < 1) return undefined
  let nameAt = beforeTypeParameters(tokens, open - 1)
  if (tokens[nameAt] === '*') nameAt--
  const name = tokens[nameAt]
  if (name === 'function') return assignedName(tokens, tokens[nameAt - 1] === 'async' ? nameAt - 1 : nameAt)
  if (!isIdentifier(name) || BLOCK_WORDS.has(name)) return undefined
  return name
}

interface Block {
  /** As headerFunction answered for the tokens that opened it. */
  fn: string | null | undefined
  /** A `${` of a template literal: its `}` goes back into the template. */
  template: boolean
  /**
   * The tokens before it, taken up again after its `}`: a brace inside a signature
   * (`f(o: { a: T }): R {`) or an expression must not lose the statement around it.
   */
  saved: string[]
}

/**
 * Skips a template literal's text from `at` (after '`', or after the `}` that closes a `${`):
 * where it stopped, and whether that was at a `${` rather than the closing '`'.
 */
function skipTemplate(text: string, at: number, end: number): { at: number; interpolation: boolean } {
  let i = at
  while (i < end) {
    const code = text.charCodeAt(i)
    if (code === 92) i += 2
    else if (code === 96) return { at: i + 1, interpolation: false }
    else if (code === 36 && text.charCodeAt(i + 1) === 123) return { at: i + 2, interpolation: true }
    else i++
  }
  return { at: end, interpolation: false }
}

/**
 * The innermost named function enclosing offset `end` of `text`, scanning from `start`
 * (a line start). Anonymous functions (callbacks) are passed over: a frame in one is named
 * by the function it is written in. Null when none is found in the window.
 */
export function enclosingFunctionName(text: string, start: number, end: number): string | null {
  const blocks: Block[] = []
  let header: string[] = []
  const push = (token: string) => {
    header.push(token)
    if (header.length > MAX_HEADER_TOKENS * 2) header = header.slice(-MAX_HEADER_TOKENS)
  }
  // A template's text, up to its end or its next `${`, whose tokens start afresh.
  const template = (from: number, saved: string[]): number => {
    const skipped = skipTemplate(text, from, end)
    if (skipped.interpolation) {
      blocks.push({ fn: undefined, template: true, saved })
      header = []
    } else {
      header = saved
      push('""')
    }
    return skipped.at
  }
  let i = start
  while (i < end) {
    const code = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    if (code <= 32) {
      i++
    } else if (code === 47 && next === 47) {
      while (i < end && text.charCodeAt(i) !== 10) i++
    } else if (code === 47 && next === 42) {
      const close = text.indexOf('*/', i + 2)
      i = close < 0 || close > end ? end : close + 2
    } else if (code === 39 || code === 34) {
      // A string ends at its quote or, unterminated (or a regex the scanner took for one), at the line's end.
      i++
      while (i < end) {
        const c = text.charCodeAt(i)
        if (c === 92) i += 2
        else if (c === code || c === 10) {
          i++
          break
        } else i++
      }
      push('""')
    } else if (code === 96) {
      i = template(i + 1, header)
    } else if (isIdentifierCode(code)) {
      const from = i
      while (i < end && isIdentifierCode(text.charCodeAt(i))) i++
      push(text.slice(from, i))
    } else if (code === 123) {
      blocks.push({ fn: headerFunction(header.slice(-MAX_HEADER_TOKENS)), template: false, saved: header })
      header = []
      i++
    } else if (code === 125) {
      const block = blocks.pop()
      i++
      if (block?.template) i = template(i, block.saved)
      else {
        header = block ? block.saved : []
        push('{}')
      }
    } else if (code === 59) {
      header = []
      i++
    } else if (code === 61 && next === 62) {
      push('=>')
      i += 2
    } else if (code === 61 && next === 61) {
      while (i < end && text.charCodeAt(i) === 61) i++
      push('==')
    } else {
      push(text[i]!)
      i++
    }
  }
  // A concise arrow body (`const total = (items) => items.reduce(…)`) opens no block.
  const pending = header.slice(-MAX_HEADER_TOKENS)
  const arrow = pending.lastIndexOf('=>')
  if (arrow > 0 && pending.indexOf('{}', arrow) < 0) {
    const name = arrowName(pending, arrow)
    if (name) return name
  }
  for (let b = blocks.length - 1; b >= 0; b--) {
    const fn = blocks[b]!.fn
    if (fn) return fn
  }
  return null
}
