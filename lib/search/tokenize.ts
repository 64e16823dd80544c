import type { Operator } from './ast'

/**
 * The search language's tokens. Query text is typed by strangers, so the tokenizer is one pass
 * over the characters with no regular expression: its time is linear in the (already bounded)
 * text whatever it holds.
 */
export type Token =
  | { type: 'word'; text: string; pos: number }
  | { type: 'string'; text: string; pos: number }
  | { type: 'op'; op: Operator; pos: number }
  | { type: '(' | ')' | '[' | ']' | 'end'; pos: number }

export class SearchSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
  }
}

/** Characters of a bare word: letters, digits and `_ - . / : @ * +`; any non-ASCII letter too. */
export function isWordChar(ch: string): boolean {
  const code = ch.charCodeAt(0)
  if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return true
  if ('_-./:@*+'.includes(ch)) return true
  return code >= 0x80 && !isSpace(ch)
}

function isSpace(ch: string): boolean {
  return ch.trim() === ''
}

const PUNCTUATION = new Set(['(', ')', '[', ']'])

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i] as string
    if (isSpace(ch)) {
      i++
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ type: ch as '(' | ')' | '[' | ']', pos: i })
      i++
    } else if (ch === '"') {
      i = readString(text, i, tokens)
    } else if (isWordChar(ch)) {
      const start = i
      while (i < text.length && isWordChar(text[i] as string)) i++
      tokens.push({ type: 'word', text: text.slice(start, i), pos: start })
    } else {
      const op = operatorAt(text, i)
      if (!op) throw new SearchSyntaxError(`Unexpected character "${ch}"`, i)
      tokens.push({ type: 'op', op, pos: i })
      i += op.length
    }
  }
  tokens.push({ type: 'end', pos: text.length })
  return tokens
}

function operatorAt(text: string, i: number): Operator | null {
  const ch = text[i]
  const next = text[i + 1]
  if (ch === '=' || ch === '~') return ch
  if (ch === '!') return next === '=' ? '!=' : next === '~' ? '!~' : null
  if (ch === '>') return next === '=' ? '>=' : '>'
  if (ch === '<') return next === '=' ? '<=' : '<'
  return null
}

/** Reads the quoted string opening at `start`; returns the index after its closing quote. */
function readString(text: string, start: number, tokens: Token[]): number {
  let value = ''
  let i = start + 1
  while (i < text.length) {
    const ch = text[i] as string
    if (ch === '"') {
      tokens.push({ type: 'string', text: value, pos: start })
      return i + 1
    }
    if (ch === '\\') {
      const escaped = text[i + 1]
      if (escaped !== '"' && escaped !== '\\')
        throw new SearchSyntaxError('Only \\" and \\\\ may follow a backslash in a quoted value', i)
      value += escaped
      i += 2
    } else {
      value += ch
      i++
    }
  }
  throw new SearchSyntaxError('Unterminated quoted value', start)
}

const UNITS = new Map([
  ['ms', 1],
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
])

/**
 * What a bare word means as a value: a number (`42`, `-1.5`), a duration (`500ms`, `2h`) or text.
 * Read character by character for the same reason as the tokenizer.
 */
export function classifyWord(
  text: string,
): { type: 'number'; value: number } | { type: 'duration'; ms: number } | { type: 'string' } {
  let i = text[0] === '-' ? 1 : 0
  const digitsFrom = i
  while (i < text.length && isDigit(text[i] as string)) i++
  if (i === digitsFrom) return { type: 'string' }
  if (text[i] === '.') {
    const fraction = ++i
    while (i < text.length && isDigit(text[i] as string)) i++
    if (i === fraction) return { type: 'string' }
  }
  const numeral = text.slice(0, i)
  const value = Number(numeral)
  if (!Number.isFinite(value)) return { type: 'string' }
  const unit = text.slice(i)
  if (unit === '') return { type: 'number', value }
  const factor = UNITS.get(unit)
  if (factor === undefined || digitsFrom === 1) return { type: 'string' }
  return { type: 'duration', ms: value * factor }
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9'
}
