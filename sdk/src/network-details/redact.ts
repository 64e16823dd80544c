/**
 * Redaction of captured network details (docs/network-details.md): headers, request and
 * response bodies. Pure and DOM-free: the browser part runs it before anything is emitted and
 * ingest (lib/ingest/network-redaction.ts) runs it again before a batch is stored, so both
 * sides agree byte for byte and a second pass over its own output changes nothing.
 *
 * Every input is attacker-written: JSON is parsed only up to PARSE_LIMIT characters and walked
 * iteratively up to MAX_DEPTH; everything else is scanned linearly (no regular expression here
 * can backtrack).
 */
import { NEVER_CAPTURED_HEADERS } from '../options'
import { redactTextCarriers } from './redact-text'
import { REDACTED } from './redacted'

export { REDACTED }
/** Every cut body ends with a marker that starts with this. */
export const TRUNCATED_PREFIX = '…[truncated: '
/** Bodies longer than this are not parsed as JSON; their key/value pairs are scanned instead. */
export const PARSE_LIMIT = 1_048_576
/** Deeper JSON is not re-serialised (JSON.stringify recurses); it is scanned as text instead. */
const MAX_DEPTH = 64
/** Longer keys are not matched word by word: their value is redacted. */
const MAX_KEY_LENGTH = 256
/** Header values are cut at this many characters. */
const MAX_HEADER_LENGTH = 2000
/** A marker is at most this long, so a cut body is at most its limit plus this. */
export const MARKER_ROOM = 64

/** The marker of a cut body; `atLeast` when the whole length is unknown (a capped read). */
export function truncationMarker(total: number, atLeast = false): string {
  return atLeast
    ? `${TRUNCATED_PREFIX}more than ${total} characters]`
    : `${TRUNCATED_PREFIX}${total} characters in all]`
}

/**
 * Built-in key words of bodies, compacted (lower case, no separators). A key is split into
 * words (`access_token`, `cardNumber`, `X-Api-Key` → words) and is secret when a run of up to
 * four consecutive words, joined, is one of these: `key` catches `api_key` and not `monkey`,
 * `card_number` is caught and a lone `number` is not.
 */
export const BODY_SECRET_WORDS: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'passcode',
  'token',
  'tokens',
  'secret',
  'secrets',
  'authorization',
  'auth',
  'apikey',
  'key',
  'privatekey',
  'session',
  'sessionid',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'signature',
  'jwt',
  'bearer',
  'csrf',
  'xsrf',
  'otp',
  'pin',
  'cardnumber',
  'cardno',
  'ccnumber',
  'ccnum',
  'creditcard',
  'pan',
  'cvv',
  'cvc',
  'cvv2',
  'csc',
  'ssn',
]

/**
 * Words of URL query and fragment parameters, and of form-urlencoded bodies (which are the same
 * format): the body words plus OAuth's `code` and a session's `sid`. `code` is not a body
 * word: `{"code": "NOT_FOUND"}` is what an error response is read for.
 */
export const PARAM_SECRET_WORDS: readonly string[] = [...BODY_SECRET_WORDS, 'code', 'sid', 'sig']

/**
 * Header names are short and chosen by developers, so a header is dropped when its compacted
 * name merely contains one of these (`x-auth-token`, `x-csrftoken`, `x-goog-api-key`).
 */
const HEADER_SECRET_PARTS: readonly string[] = [
  'auth',
  'token',
  'secret',
  'key',
  'session',
  'csrf',
  'xsrf',
  'cookie',
  'password',
  'passwd',
  'credential',
  'signature',
  'jwt',
  'bearer',
]

/** `access_token` → access, token; `X-Amz-Signature` → X, Amz, Signature; `apiKey` → api, Key. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.[\]]+/)
    .filter((w) => w.length > 0)
}

/** Lower case without separators: the form key words are compared in. */
export function compactWord(word: string): string {
  return nameWords(word).join('').toLowerCase()
}

const MAX_RUN = 4

/**
 * Words that make a key secret even at the end of a longer word written as one
 * (`newpassword`, `accesstoken`, `clientsecret`); short words such as `key` or `pin` are not
 * here, so `monkey` and `spinner` stay plain.
 */
const STRONG_SUFFIXES: readonly string[] = [
  'password',
  'passwd',
  'token',
  'tokens',
  'secret',
  'secrets',
  'apikey',
  'privatekey',
  'sessionid',
  'accesstoken',
  'clientsecret',
]

/** Separators of key words, as `nameWords` splits on them. */
const isSeparator = (c: number) =>
  c === 32 ||
  c === 9 ||
  c === 10 ||
  c === 13 ||
  c === 12 ||
  c === 11 ||
  c === 95 ||
  c === 45 ||
  c === 46 ||
  c === 91 ||
  c === 93
const isUpper = (c: number) => c >= 65 && c <= 90
const isLowerOrDigit = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57)

/** One character lower-cased the way `toLowerCase` would, kept one character long. */
function lowerCode(c: number): number {
  if (c < 128) return isUpper(c) ? c + 32 : c
  const lower = String.fromCharCode(c).toLowerCase()
  return lower.length === 1 ? lower.charCodeAt(0) : c
}

interface TrieNode {
  next: Map<number, TrieNode>
  word: boolean
}

/**
 * Cache entries kept per word list before it starts over (a batch's keys repeat a lot), and
 * the longest key remembered: the memo stays under a megabyte even in a long-lived page.
 */
const MAX_MEMO = 4096
const MAX_MEMO_KEY = 64

/**
 * Decides which names are secret; built once per word list (per batch at ingest, so its
 * memo lives as long as the batch). The test is a character loop over a trie of the words:
 * no regular expression, no split, nothing allocated per key.
 */
export class SecretNames {
  private readonly root: TrieNode = { next: new Map(), word: false }
  private readonly maxRun: number
  private readonly memo = new Map<string, boolean>()
  /** Word boundaries of the name being tested, reused across calls. */
  private starts: number[] = []
  private ends: number[] = []

  constructor(builtIn: readonly string[], extra: readonly string[] = []) {
    for (const word of builtIn) this.add(word)
    let maxRun = MAX_RUN
    for (const word of extra) {
      const parts = nameWords(word)
      if (parts.length === 0 || word.length > MAX_KEY_LENGTH) continue
      this.add(parts.join(''))
      maxRun = Math.max(maxRun, Math.min(parts.length, 8))
    }
    this.maxRun = maxRun
  }

  private add(word: string): void {
    let node = this.root
    for (let i = 0; i < word.length; i++) {
      const c = lowerCode(word.charCodeAt(i))
      let child = node.next.get(c)
      if (!child) {
        child = { next: new Map(), word: false }
        node.next.set(c, child)
      }
      node = child
    }
    node.word = true
  }

  isSecret(name: string): boolean {
    if (name.length > MAX_KEY_LENGTH) return true
    const known = this.memo.get(name)
    if (known !== undefined) return known
    const secret = this.test(name)
    if (name.length > MAX_MEMO_KEY) return secret
    if (this.memo.size >= MAX_MEMO) this.memo.clear()
    this.memo.set(name, secret)
    return secret
  }

  /**
   * Splits `name` into words as `nameWords` does (separators, a capital after a lower-case
   * letter or digit), then: a run of up to maxRun consecutive words joined is a word of the
   * list (the last word's trailing digits may be left off: `password1`), or one word without
   * its trailing digits ends with a strong word.
   */
  private test(name: string): boolean {
    const starts = this.starts
    const ends = this.ends
    let count = 0
    let start = -1
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i)
      if (isSeparator(c)) {
        if (start !== -1) {
          starts[count] = start
          ends[count++] = i
          start = -1
        }
      } else if (start === -1) start = i
      else if (isUpper(c) && isLowerOrDigit(name.charCodeAt(i - 1))) {
        starts[count] = start
        ends[count++] = i
        start = i
      }
    }
    if (start !== -1) {
      starts[count] = start
      ends[count++] = name.length
    }
    for (let w = 0; w < count; w++) {
      // Runs of words starting at word w.
      let node: TrieNode | undefined = this.root
      for (let v = w; v < count && v < w + this.maxRun && node; v++) {
        const end = ends[v]!
        let bare = end
        while (bare > starts[v]! && isDigitCode(name.charCodeAt(bare - 1))) bare--
        for (let p = starts[v]!; p < end && node; p++) {
          if (p === bare && node.word && p > starts[v]!) return true
          node = node.next.get(lowerCode(name.charCodeAt(p)))
        }
        if (node?.word) return true
      }
      if (this.endsWithStrong(name, starts[w]!, ends[w]!)) return true
    }
    return false
  }

  private endsWithStrong(name: string, start: number, end: number): boolean {
    let bare = end
    while (bare > start && isDigitCode(name.charCodeAt(bare - 1))) bare--
    for (const strong of STRONG_SUFFIXES) {
      if (bare - start < strong.length) continue
      let matches = true
      for (let k = 1; k <= strong.length && matches; k++)
        matches = lowerCode(name.charCodeAt(bare - k)) === strong.charCodeAt(strong.length - k)
      if (matches) return true
    }
    return false
  }
}

const isDigitCode = (c: number) => c >= 48 && c <= 57

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/**
 * `a=1&b=2` with the values of secret names, and values holding a JWT or a card number,
 * replaced. Other parameters stay byte for byte as written.
 */
export function redactParams(params: string, isSecret: (name: string) => boolean): string {
  return params
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=')
      if (eq === -1) return part
      const name = safeDecode(part.slice(0, eq))
      const value = safeDecode(part.slice(eq + 1))
      const secret = isSecret(name) || redactValues(value) !== value
      return secret && value !== '' ? `${part.slice(0, eq)}=${REDACTED}` : part
    })
    .join('&')
}

// ---------------------------------------------------------------------------------------------
// Values: JSON Web Tokens and card numbers, wherever they appear in a string.

const isB64Url = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95
const isDigit = (c: number) => c >= 48 && c <= 57
const isAlnum = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/** End of the base64url run starting at `i`. */
function runEnd(text: string, i: number): number {
  let j = i
  while (j < text.length && isB64Url(text.charCodeAt(j))) j++
  return j
}

function luhn(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

/**
 * Replaces JWTs (`eyJ…`.`…`.`…`) and card numbers (13 to 19 digits, single spaces or dashes
 * allowed between them, first digit 2 to 6 as payment cards have, Luhn-valid) by REDACTED.
 * One pass: a candidate that fails is skipped to where its scan stopped, since any candidate
 * starting inside it would fail at the same place. The first digit rule spares epoch
 * milliseconds (13 digits starting with 1).
 */
export function redactValues(text: string): string {
  if (text.length < 7) return text
  let out = ''
  let copied = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    // JWT: eyJ + run, '.', run, '.', optional run.
    if (c === 101 && text.startsWith('eyJ', i) && (i === 0 || !isAlnum(text.charCodeAt(i - 1)))) {
      const first = runEnd(text, i)
      if (first < text.length && text.charCodeAt(first) === 46) {
        const second = runEnd(text, first + 1)
        if (second > first + 1 && second < text.length && text.charCodeAt(second) === 46) {
          const end = runEnd(text, second + 1)
          out += text.slice(copied, i) + REDACTED
          copied = i = end
          continue
        }
        i = Math.max(second, i + 1)
        continue
      }
      i = first
      continue
    }
    if (isDigit(c) && (i === 0 || !isDigit(text.charCodeAt(i - 1)))) {
      // A run of digits with single separators; measured whole, never re-scanned.
      let digits = ''
      let j = i
      let lastDigitEnd = i
      while (j < text.length) {
        const d = text.charCodeAt(j)
        if (isDigit(d)) {
          if (digits.length <= 19) digits += text[j]
          j++
          lastDigitEnd = j
        } else if ((d === 32 || d === 45) && j + 1 < text.length && isDigit(text.charCodeAt(j + 1))) {
          j++
        } else break
      }
      const first = digits.charCodeAt(0)
      if (digits.length >= 13 && digits.length <= 19 && first >= 50 && first <= 54 && luhn(digits)) {
        out += text.slice(copied, i) + REDACTED
        copied = lastDigitEnd
      }
      i = lastDigitEnd
      continue
    }
    i++
  }
  return copied === 0 ? text : out + text.slice(copied)
}

// ---------------------------------------------------------------------------------------------
// Headers.

export interface HeaderRules {
  /** Lower-cased names kept; null keeps every name not dropped below (ingest does not know the allowlist). */
  allow: readonly string[] | null
  names: SecretNames
}

/** Whether a header name may be kept at all: never the credential headers or secret-named ones. */
export function isForbiddenHeader(name: string, names: SecretNames): boolean {
  const lower = name.toLowerCase()
  if (NEVER_CAPTURED_HEADERS.includes(lower)) return true
  const compact = compactWord(lower)
  if (HEADER_SECRET_PARTS.some((part) => compact.includes(part))) return true
  return names.isSecret(lower)
}

/**
 * The headers kept: on the allowlist, not forbidden, values with JWTs and card numbers
 * redacted. Names are lower-cased; at most 100 headers, each value at most 2000 characters.
 */
export function redactHeaders(
  headers: Iterable<readonly [string, string]>,
  rules: HeaderRules,
): Record<string, string> {
  const kept: Record<string, string> = {}
  let count = 0
  for (const [rawName, rawValue] of headers) {
    const name = rawName.toLowerCase()
    if (rules.allow && !rules.allow.includes(name)) continue
    if (name === '__proto__' || isForbiddenHeader(name, rules.names)) continue
    if (++count > 100) break
    // A value this cut already (the recorder's) keeps its marker: a second pass changes nothing.
    const cutAt = markerStart(rawValue)
    const long = rawValue.length > MAX_HEADER_LENGTH && (cutAt === -1 || cutAt > MAX_HEADER_LENGTH)
    const value = long ? truncate(rawValue, MAX_HEADER_LENGTH) : rawValue
    kept[name] = redactValues(value)
  }
  return kept
}

// ---------------------------------------------------------------------------------------------
// Bodies.

/** Content types whose bodies are captured: text and JSON. */
export function isTextualType(contentType: string | null | undefined): boolean {
  if (!contentType) return false
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase()
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type.includes('javascript') ||
    type === 'application/ld+json' ||
    type === 'application/graphql'
  )
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Defines rather than assigns: a key such as `__proto__` must never reach a setter. */
function setOwn(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
}

/** JSON held inside a string value (`{"data":"{\\"password\\":…}"}`) is redacted this many levels deep. */
const MAX_NESTED_JSON = 3

/**
 * Whether a JSON number is a card number: an exact integer as `redactValues` would judge its
 * digits, or an integer of 17 to 19 digits starting 2 to 6 that JSON.parse could no longer
 * keep exactly (its Luhn digit is lost, so it is redacted on its shape alone).
 */
function isCardNumber(n: number): boolean {
  if (!Number.isInteger(n) || n < 1e12 || n >= 1e19) return false
  const digits = String(n)
  if (n <= Number.MAX_SAFE_INTEGER) return redactValues(digits) !== digits
  const first = digits.charCodeAt(0)
  return first >= 50 && first <= 54
}

/**
 * A string value with JWTs and card numbers replaced, JSON inside it redacted too, and other
 * text by its carriers (a GraphQL query's inline arguments, XML, `key: value` lines).
 */
function cleanString(text: string, names: SecretNames, level: number): string {
  const first = firstNonSpace(text)
  if ((first === 123 || first === 91) && level < MAX_NESTED_JSON)
    return redactJsonText(text, names, level + 1)
  return redactValues(redactTextCarriers(text, names))
}

/** Text that is not parsed: `"key": value` pairs, then the other carriers of secrets (redact-text.ts). */
function redactText(text: string, names: SecretNames): string {
  return redactTextCarriers(redactJsonPairs(text, names), names)
}

/** The cleaned form of a non-secret value, or undefined when it is an object or array to walk. */
function cleanScalar(item: Json, names: SecretNames, level: number): Json | undefined {
  if (typeof item === 'string') return cleanString(item, names, level)
  if (typeof item === 'number') return isCardNumber(item) ? REDACTED : item
  if (item === null || typeof item === 'boolean') return item
  return undefined
}

/**
 * Redacts a parsed JSON value in place. Returns whether anything changed, or null when the
 * value is nested deeper than MAX_DEPTH (then it is not re-serialised).
 */
function redactTree(root: Json, names: SecretNames, level: number): boolean | null {
  let changed = false
  const stack: { value: Json; depth: number }[] = [{ value: root, depth: 0 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    if (depth >= MAX_DEPTH) return null
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!
        const clean = cleanScalar(item, names, level)
        if (clean === undefined) stack.push({ value: item, depth: depth + 1 })
        else if (clean !== item) {
          value[i] = clean
          changed = true
        }
      }
      continue
    }
    for (const key of Object.keys(value)) {
      const item = value[key]!
      if (
        names.isSecret(key) &&
        item !== null &&
        typeof item !== 'boolean' &&
        item !== '' &&
        item !== REDACTED
      ) {
        setOwn(value, key, REDACTED)
        changed = true
        continue
      }
      const clean = cleanScalar(item, names, level)
      if (clean === undefined) stack.push({ value: item, depth: depth + 1 })
      else if (clean !== item) {
        setOwn(value, key, clean)
        changed = true
      }
    }
  }
  return changed
}

/**
 * JSON text (a body or a string value holding JSON) redacted: parsed when at most
 * PARSE_LIMIT characters and not too deep, else scanned. A parsed body that needs no change
 * is kept byte for byte only when the scanner agrees: JSON.parse keeps the last of repeated
 * keys, so `{"user":{"password":"x"},"user":1}` looks clean parsed while its text is not;
 * then the parsed (clean) tree is written out instead.
 */
function redactJsonText(content: string, names: SecretNames, level: number): string {
  if (content.length <= PARSE_LIMIT) {
    let parsed: Json | undefined
    try {
      parsed = JSON.parse(content) as Json
    } catch {
      parsed = undefined
    }
    if (parsed !== undefined) {
      const changed = redactTree(parsed, names, level)
      if (changed === true) return JSON.stringify(parsed)
      if (changed === false) return redactText(content, names) === content ? content : JSON.stringify(parsed)
    }
  }
  return redactValues(redactText(content, names))
}

/** Index just past the JSON string whose opening quote is at `i`, or -1 when it is not closed. */
function stringEnd(text: string, i: number): number {
  let j = i + 1
  while (j < text.length) {
    const c = text.charCodeAt(j)
    if (c === 92) j += 2
    else if (c === 34) return j + 1
    else j++
  }
  return -1
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13

function decodeKey(raw: string): string {
  if (!raw.includes('\\')) return raw.slice(1, -1)
  if (raw.length > MAX_KEY_LENGTH + 2) return raw
  try {
    const decoded: unknown = JSON.parse(raw)
    return typeof decoded === 'string' ? decoded : raw
  } catch {
    return raw.slice(1, -1)
  }
}

const isNumberChar = (c: number) => isDigit(c) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45
const QUOTED_REDACTED = `"${REDACTED}"`

/**
 * The array or object value of a secret key, starting at `start`, with every string and
 * number in it (keys included) replaced by `"[redacted]"`, up to its matching close bracket
 * (strings skipped whole, depth counted). `end` is just past that bracket, or -1 when the
 * text ends first (a cut body): then everything to the end was redacted.
 */
function redactNested(text: string, start: number): { text: string; end: number } {
  let out = ''
  let copied = start
  let depth = 0
  let j = start
  while (j < text.length) {
    const c = text.charCodeAt(j)
    if (c === 91 || c === 123) {
      depth++
      j++
    } else if (c === 93 || c === 125) {
      j++
      if (--depth === 0) return { text: out + text.slice(copied, j), end: j }
    } else if (c === 34) {
      const end = stringEnd(text, j)
      if (end === -1) {
        // Cut inside a string: the rest is the secret, unless it is our own value, cut.
        if (!QUOTED_REDACTED.startsWith(text.slice(j))) {
          out += text.slice(copied, j) + QUOTED_REDACTED
          copied = text.length
        }
        break
      }
      // Keys too: under a secret key, a key can be the secret (`{"auth":{"hunter2":true}}`).
      const kept =
        end - j === 2 || (end - j === QUOTED_REDACTED.length && text.startsWith(QUOTED_REDACTED, j))
      if (!kept) {
        out += text.slice(copied, j) + QUOTED_REDACTED
        copied = end
      }
      j = end
    } else if (c === 45 || isDigit(c)) {
      let end = j + 1
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
      out += text.slice(copied, j) + QUOTED_REDACTED
      copied = j = end
    } else j++
  }
  return { text: out + text.slice(copied), end: -1 }
}

/**
 * `"secret key": value` pairs in text that is not parsed (too large, cut, malformed): a
 * string or number value of a secret key is replaced by `"[redacted]"`, and so is every
 * string and number inside an array or object value of a secret key (to the end of the text
 * when it is not closed); the keys inside other values are scanned as they come. One pass
 * over the text.
 */
export function redactJsonPairs(text: string, names: SecretNames): string {
  let out = ''
  let copied = 0
  let i = text.indexOf('"')
  while (i !== -1 && i < text.length) {
    const end = stringEnd(text, i)
    if (end === -1) break
    let k = end
    while (k < text.length && isSpace(text.charCodeAt(k))) k++
    if (k >= text.length || text.charCodeAt(k) !== 58 || !names.isSecret(decodeKey(text.slice(i, end)))) {
      i = text.indexOf('"', end)
      continue
    }
    k++
    while (k < text.length && isSpace(text.charCodeAt(k))) k++
    if (k >= text.length) break
    const c = text.charCodeAt(k)
    let valueEnd = -1
    if (c === 34) {
      valueEnd = stringEnd(text, k)
      if (valueEnd === -1) {
        // A value cut short: everything after the quote is the secret (unless it is ours, cut).
        if (!`"${REDACTED}"`.startsWith(text.slice(k))) out += `${text.slice(copied, k)}"${REDACTED}"`
        else out += text.slice(copied)
        copied = text.length
        break
      }
    } else if (c === 91 || c === 123) {
      const nested = redactNested(text, k)
      out += text.slice(copied, k) + nested.text
      copied = nested.end === -1 ? text.length : nested.end
      i = nested.end === -1 || nested.end >= text.length ? -1 : text.indexOf('"', nested.end)
      continue
    } else if (c === 45 || isDigit(c) || c === 116 || c === 102) {
      // Numbers; `true`/`false` are left as they are (they carry no secret).
      if (c === 116 || c === 102) {
        i = text.indexOf('"', k)
        continue
      }
      valueEnd = k + 1
      while (valueEnd < text.length) {
        const d = text.charCodeAt(valueEnd)
        if (isDigit(d) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) valueEnd++
        else break
      }
    }
    if (valueEnd === -1) {
      i = text.indexOf('"', k)
      continue
    }
    const value = text.slice(k, valueEnd)
    if (value !== `"${REDACTED}"` && value !== '""') {
      out += `${text.slice(copied, k)}"${REDACTED}"`
      copied = valueEnd
    }
    i = valueEnd >= text.length ? -1 : text.indexOf('"', valueEnd)
  }
  return copied === 0 ? text : out + text.slice(copied)
}

export interface BodyRules {
  /** Key words of JSON bodies. */
  names: SecretNames
  /** Names of form-urlencoded parameters. */
  params: SecretNames
  /** Characters kept; a longer body is cut and marked. */
  maxLength: number
}

/** Rules from the built-in word lists plus `extra` words (the option's or the organization's). */
export function bodyRules(extra: readonly string[], maxLength: number): BodyRules {
  return {
    names: new SecretNames(BODY_SECRET_WORDS, extra),
    params: new SecretNames(PARAM_SECRET_WORDS, extra),
    maxLength,
  }
}

/** Whether a content type is form-urlencoded (its body is parameters whatever it looks like). */
export function isFormType(contentType: string | null | undefined): boolean {
  if (!contentType) return false
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() === 'application/x-www-form-urlencoded'
}

/**
 * A body read as parameters, line by line (`a=1&b=2`, and `key=value` lines of plain text):
 * values of secret names redacted to the end of their parameter, so a value the cut ended is
 * redacted to its end too. Nothing is excluded for its characters: spaces, quotes and new
 * lines are all data.
 */
function redactParamText(text: string, params: SecretNames): string {
  const isSecret = (name: string) => params.isSecret(name)
  if (!text.includes('\n')) return redactParams(text, isSecret)
  return text
    .split('\n')
    .map((line) => redactParams(line, isSecret))
    .join('\n')
}

function firstNonSpace(text: string): number {
  let i = 0
  while (i < text.length && isSpace(text.charCodeAt(i))) i++
  return i < text.length ? text.charCodeAt(i) : -1
}

/** The first `max` characters of `text`, never ending inside a surrogate pair. */
function head(text: string, max: number): string {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, max > 0 && last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/** Cuts `text` to `max` characters and marks it; `atLeast` marks it even when short (a capped read). */
export function truncate(text: string, max: number, total = text.length, atLeast = false): string {
  if (text.length <= max && !atLeast) return text
  return `${head(text, max)}${truncationMarker(total, atLeast)}`
}

/** Where the recorder's marker starts when `text` ends with one, else -1. */
export function markerStart(text: string): number {
  if (!text.endsWith(']')) return -1
  const at = text.lastIndexOf(TRUNCATED_PREFIX)
  return at !== -1 && text.length - at <= MARKER_ROOM ? at : -1
}

/**
 * A body as it may be stored: JSON (parsed when at most PARSE_LIMIT characters and not too
 * deep) with secret keys' values replaced, form-urlencoded bodies by parameter, any other text
 * (and JSON too large, cut or malformed, and JSON string values) scanned for `"key": value`
 * pairs, XML elements, `key: "value"`/`key=value` pairs and lines (redact-text.ts); JWTs and card
 * numbers replaced everywhere; then cut to `maxLength` with a marker. `capped` is the length
 * read when `text` is only the start of a longer body. A body without secrets comes back as
 * the same string, and a body this returned comes back unchanged (a cut one keeps its marker).
 */
export function redactBody(
  text: string,
  rules: BodyRules,
  capped?: number,
  contentType?: string | null,
): string {
  const marker = capped === undefined ? markerStart(text) : -1
  const content = marker === -1 ? text : text.slice(0, marker)
  const whole = marker === -1 && capped === undefined
  const first = firstNonSpace(content)
  let clean: string
  if (isFormType(contentType) || (first !== 123 && first !== 91 && first !== 60 && content.includes('='))) {
    // Parameters; the pair scanner after them catches `"key": value` text among them.
    clean = redactValues(redactText(redactParamText(content, rules.params), rules.names))
  } else if (whole && (first === 123 || first === 91)) clean = redactJsonText(content, rules.names, 0)
  else clean = redactValues(redactText(content, rules.names))
  if (capped !== undefined) return truncate(clean, rules.maxLength, capped, true)
  if (marker !== -1) {
    // Cut by the recorder already: kept with its marker unless longer than this side allows.
    return head(clean, rules.maxLength) + text.slice(marker)
  }
  return truncate(clean, rules.maxLength)
}

// ---------------------------------------------------------------------------------------------
// Omission reasons: a fixed set, so no page-controlled text rides along in them.

/** Reasons given as they are; `over N bytes` and `content-type <media type>` are checked below. */
const FIXED_REASONS: readonly string[] = [
  'FormData',
  'Blob',
  'binary',
  'stream',
  'Document',
  'object',
  'number',
  'boolean',
  'bigint',
  'symbol',
  'function',
  'unreadable',
  'event stream',
  'responseType arraybuffer',
  'responseType blob',
  'responseType document',
  'content-type unknown',
  "over the batch's detail budget",
]
/** What an omission reason outside the set becomes. */
export const UNKNOWN_REASON = 'omitted'
const MAX_MEDIA_TYPE = 100

/** RFC 9110 token characters, the only ones a media type's type and subtype are made of. */
function isTokenChar(c: number): boolean {
  return isAlnum(c) || (c < 127 && "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c)))
}

/** `type/subtype` of a Content-Type, lower case, when it is tokens only and at most 100 characters. */
function mediaType(contentType: string): string | null {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase()
  if (type.length === 0 || type.length > MAX_MEDIA_TYPE) return null
  let slashes = 0
  for (let i = 0; i < type.length; i++) {
    const c = type.charCodeAt(i)
    if (c === 47) slashes++
    else if (!isTokenChar(c)) return null
  }
  return slashes === 1 && !type.startsWith('/') && !type.endsWith('/') ? type : null
}

/** The reason for a body left out for its content type: the media type only, or `unknown`. */
export function contentTypeReason(contentType: string | null | undefined): string {
  const type = contentType ? mediaType(contentType) : null
  return `content-type ${type ?? 'unknown'}`
}

/** An omission reason as it may be stored: one of the fixed set, else `omitted`. */
export function omissionReason(reason: string): string {
  if (FIXED_REASONS.includes(reason)) return reason
  if (reason.startsWith('content-type ')) {
    const type = mediaType(reason.slice('content-type '.length))
    return type !== null && reason === `content-type ${type}` ? reason : UNKNOWN_REASON
  }
  if (reason.startsWith('over ') && reason.endsWith(' bytes') && reason.length <= 30) {
    const digits = reason.slice(5, -6)
    let allDigits = digits.length > 0
    for (let i = 0; i < digits.length; i++) if (!isDigit(digits.charCodeAt(i))) allDigits = false
    if (allDigits) return reason
  }
  return UNKNOWN_REASON
}
