/**
 * Engines name the failing expression in many error messages (`e.map is not a function`,
 * `Cannot destructure property 'id' of 'r' as it is undefined`), and in a minified bundle that
 * expression starts with a variable the minifier named: `e` in one build, `n` in the next. An
 * error grouped by its original frame (docs/source-maps.md) would still get a new fingerprint
 * per deploy. This replaces the variable that starts such an expression with `<var>` and keeps
 * the rest: property names survive minification (`.map`, `'id'`), so they still tell errors
 * apart. Only the engines' own templates are read, with scans (no patterns), and only for
 * errors that symbolication placed: without maps, messages group exactly as before.
 */

const ENDINGS = [
  ' is not a function',
  ' is not a function or its return value is not iterable',
  ' is not iterable',
  ' is not a constructor',
  ' is undefined',
  ' is null',
]

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 36 || code === 95
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57)
}

/** `e.items.map` → `<var>.items.map`: the leading identifier of a member expression replaced. */
function replaceRoot(expression: string): string {
  if (expression.length === 0 || !isIdentifierStart(expression.charCodeAt(0))) return expression
  let end = 1
  while (end < expression.length && isIdentifierPart(expression.charCodeAt(end))) end++
  const rest = expression.slice(end)
  // Only a whole expression: an identifier followed by property accesses, calls or nothing.
  if (rest.length > 0 && rest[0] !== '.' && rest[0] !== '(' && rest[0] !== '[' && rest[0] !== '?')
    return expression
  // `this`, `window`, `document`... are the same in every build.
  const root = expression.slice(0, end)
  if (KEPT_ROOTS.has(root)) return expression
  return `<var>${rest}`
}

const KEPT_ROOTS = new Set([
  'this',
  'window',
  'document',
  'globalThis',
  'self',
  'navigator',
  'undefined',
  'null',
])

/** The text between the first `open` after `from` and the next `close`, as [start, end), or null. */
function quoted(text: string, from: number, quote: string): [number, number] | null {
  const start = text.indexOf(quote, from)
  if (start < 0) return null
  const end = text.indexOf(quote, start + 1)
  return end < 0 ? null : [start + 1, end]
}

function replaceBetween(text: string, [start, end]: [number, number]): string {
  return text.slice(0, start) + replaceRoot(text.slice(start, end)) + text.slice(end)
}

export function withoutMinifiedNames(message: string): string {
  // V8 and Firefox: `<expr> is not a function`, `... is not iterable`, `<expr> is undefined`.
  for (const ending of ENDINGS) {
    if (!message.endsWith(ending)) continue
    const head = message.slice(0, -ending.length)
    // Firefox: `can't access property "x", <expr> is undefined`.
    const comma = head.lastIndexOf(', ')
    if (comma >= 0 && head.startsWith("can't access property")) {
      return `${head.slice(0, comma + 2)}${replaceRoot(head.slice(comma + 2))}${ending}`
    }
    return replaceRoot(head) + ending
  }
  // V8: `Cannot destructure property 'id' of 'r' as it is undefined.`
  if (message.startsWith('Cannot destructure ')) {
    const of = message.indexOf(" of '")
    const span = of >= 0 ? quoted(message, of + 4, "'") : null
    if (span) return replaceBetween(message, span)
  }
  // Safari: `undefined is not an object (evaluating 'e.items.map')`.
  const evaluating = message.indexOf("(evaluating '")
  if (evaluating >= 0) {
    const span = quoted(message, evaluating + 12, "'")
    if (span) return replaceBetween(message, span)
  }
  return message
}
