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

/** What replaces a secret value, in bodies, headers and URLs. */
export const REDACTED = '[redacted]'
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

/** Decides which names are secret; built once per word list. */
export class SecretNames {
  private readonly words: Set<string>
  private readonly maxRun: number

  constructor(builtIn: readonly string[], extra: readonly string[] = []) {
    this.words = new Set(builtIn)
    let maxRun = MAX_RUN
    for (const word of extra) {
      const parts = nameWords(word)
      if (parts.length === 0 || word.length > MAX_KEY_LENGTH) continue
      this.words.add(parts.join('').toLowerCase())
      maxRun = Math.max(maxRun, Math.min(parts.length, 8))
    }
    this.maxRun = maxRun
  }

  isSecret(name: string): boolean {
    if (name.length > MAX_KEY_LENGTH) return true
    const words = nameWords(name).map((w) => w.toLowerCase())
    for (let i = 0; i < words.length; i++) {
      let joined = ''
      for (let j = i; j < words.length && j < i + this.maxRun; j++) {
        joined += words[j]
        if (this.words.has(joined)) return true
      }
    }
    return false
  }
}

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

/**
 * Redacts a parsed JSON value in place. Returns whether anything changed, or null when the
 * value is nested deeper than MAX_DEPTH (then it is not re-serialised).
 */
function redactTree(root: Json, names: SecretNames): boolean | null {
  let changed = false
  const stack: { value: Json; depth: number }[] = [{ value: root, depth: 0 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    if (depth >= MAX_DEPTH) return null
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!
        if (typeof item === 'string') {
          const clean = redactValues(item)
          if (clean !== item) {
            value[i] = clean
            changed = true
          }
        } else stack.push({ value: item, depth: depth + 1 })
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
      } else if (typeof item === 'string') {
        const clean = redactValues(item)
        if (clean !== item) {
          setOwn(value, key, clean)
          changed = true
        }
      } else stack.push({ value: item, depth: depth + 1 })
    }
  }
  return changed
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

/**
 * `"secret key": value` pairs in text that is not parsed (too large, cut, malformed): a
 * string or number value of a secret key is replaced by `"[redacted]"`; the keys inside an
 * object or array value are scanned as they come. One pass over the text.
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

function looksLikeForm(text: string): boolean {
  if (!text.includes('=') || text.length > PARSE_LIMIT) return false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isSpace(c) || c === 34 || c === 123 || c === 60) return false
  }
  return true
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
 * (and JSON too large, cut or malformed) scanned for `"key": value` pairs; JWTs and card
 * numbers replaced everywhere; then cut to `maxLength` with a marker. `capped` is the length
 * read when `text` is only the start of a longer body. A body without secrets comes back as
 * the same string, and a body this returned comes back unchanged (a cut one keeps its marker).
 */
export function redactBody(text: string, rules: BodyRules, capped?: number): string {
  const marker = capped === undefined ? markerStart(text) : -1
  const content = marker === -1 ? text : text.slice(0, marker)
  const whole = marker === -1 && capped === undefined
  let clean: string | null = null
  const first = firstNonSpace(content)
  if (whole && (first === 123 || first === 91) && content.length <= PARSE_LIMIT) {
    let parsed: Json | undefined
    try {
      parsed = JSON.parse(content) as Json
    } catch {
      parsed = undefined
    }
    if (parsed !== undefined) {
      const changed = redactTree(parsed, rules.names)
      if (changed === false) clean = content
      else if (changed === true) clean = JSON.stringify(parsed)
    }
  } else if (whole && looksLikeForm(content)) {
    clean = redactParams(content, (name) => rules.params.isSecret(name))
  }
  if (clean === null) clean = redactValues(redactJsonPairs(content, rules.names))
  if (capped !== undefined) return truncate(clean, rules.maxLength, capped, true)
  if (marker !== -1) {
    // Cut by the recorder already: kept with its marker unless longer than this side allows.
    return head(clean, rules.maxLength) + text.slice(marker)
  }
  return truncate(clean, rules.maxLength)
}
