/**
 * Secrets in text that is not JSON (docs/network-details.md#redaction), by the same secret
 * key words as JSON keys:
 *
 * - XML and SOAP elements with a secret local name (`<password>`, `<wsse:Password>`): their
 *   whole content, child elements and CDATA included, becomes `[redacted]`.
 * - `name: "value"`, `name = 'value'`, `name="value"` pairs anywhere: GraphQL inline arguments
 *   (`login(password: "…")`, block strings and escaped quotes too, also still JSON-escaped
 *   inside a JSON text that was not parsed), XML and HTML attributes, JavaScript and YAML;
 *   `name: 1234` numbers, `name=value` up to a delimiter.
 * - `name: value` and `name=value` lines (plain text, YAML, properties, INI): the rest of the
 *   line (for `=`, up to a `&`, as in form parameters).
 *
 * Shared by the recorder and ingest like the rest of the redaction. Each scanner is one
 * forward pass with no regular expression: callers bound the text first (the recorder's read
 * cap, ingest's per-batch budget), so the cost per body is linear in a bounded length.
 * A value that is never closed (a cut body) is redacted to the end of the text, and the
 * output scanned again changes nothing.
 */
import { REDACTED } from './redacted'

/** Decides which names are secret (`SecretNames`). */
export interface SecretTest {
  isSecret(name: string): boolean
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isDigit = (c: number) => c >= 48 && c <= 57
/** Characters of keys: letters, digits, `_`, `-`, `.`. */
const isKeyChar = (c: number) => isLetter(c) || isDigit(c) || c === 95 || c === 45 || c === 46
/** Characters of XML names: the key characters and `:` (a namespace prefix). */
const isXmlNameChar = (c: number) => isKeyChar(c) || c === 58
const isBlank = (c: number) => c === 32 || c === 9
const isNumberChar = (c: number) => isDigit(c) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45

/** Where an unquoted `name=value` value ends. */
function isValueDelimiter(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === 38 || // &
    c === 59 || // ;
    c === 44 || // ,
    c === 60 || // <
    c === 62 || // >
    c === 34 || // "
    c === 39 || // '
    c === 41 || // )
    c === 125 // }
  )
}

/** The end of a start or close tag's name starting at `i`. */
function xmlNameEnd(text: string, i: number): number {
  let j = i
  while (j < text.length && isXmlNameChar(text.charCodeAt(j))) j++
  return j
}

/**
 * The `>` that ends the tag whose name ends at `from`, or the index of a `<` (or -1) when none
 * comes first: then it was no tag. Quotes are not honoured: a `>` inside an attribute value
 * only moves where a secret element's content starts, and that content is redacted to its
 * close tag all the same.
 */
function tagEnd(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j)
    if (c === 62) return j
    if (c === 60) return -1
  }
  return -1
}

/** Whether `qname` stands at `i` as a whole name. */
function nameAt(text: string, i: number, qname: string): boolean {
  return text.startsWith(qname, i) && !isXmlNameChar(text.charCodeAt(i + qname.length))
}

/**
 * Where the content of element `qname` that starts at `from` ends: the `<` of its close tag
 * (elements of the same name inside counted), or the end of the text when it is never closed.
 * CDATA sections are skipped whole. Each `<` is looked at once, and a name comparison stops
 * before the next `<` (no name holds one), so the walk is linear.
 */
function contentEnd(text: string, from: number, qname: string): number {
  let depth = 1
  let p = from
  for (;;) {
    p = text.indexOf('<', p)
    if (p === -1) return text.length
    if (text.charCodeAt(p + 1) === 47 && nameAt(text, p + 2, qname)) {
      if (--depth === 0) return p
      p += 2
    } else if (text.startsWith('<![CDATA[', p)) {
      const end = text.indexOf(']]>', p + 9)
      if (end === -1) return text.length
      p = end + 3
    } else if (nameAt(text, p + 1, qname)) {
      const end = tagEnd(text, p + 1 + qname.length)
      if (end !== -1 && text.charCodeAt(end - 1) !== 47) depth++
      p++
    } else p++
  }
}

/** The local part of an XML name: `wsse:Password` → `Password`. */
function localName(qname: string): string {
  const colon = qname.lastIndexOf(':')
  return colon === -1 ? qname : qname.slice(colon + 1)
}

/** The content of every element with a secret local name replaced by REDACTED (empty ones kept). */
export function redactXmlElements(text: string, names: SecretTest): string {
  let out = ''
  let copied = 0
  let i = text.indexOf('<')
  while (i !== -1) {
    const start = i + 1
    if (!isLetter(text.charCodeAt(start)) && text.charCodeAt(start) !== 95) {
      i = text.indexOf('<', start)
      continue
    }
    const nameEnd = xmlNameEnd(text, start)
    const end = tagEnd(text, nameEnd)
    const qname = text.slice(start, nameEnd)
    if (end === -1 || text.charCodeAt(end - 1) === 47 || !names.isSecret(localName(qname))) {
      i = text.indexOf('<', end === -1 ? nameEnd : end + 1)
      continue
    }
    const from = end + 1
    const to = contentEnd(text, from, qname)
    const content = text.slice(from, to)
    if (content !== '' && content !== REDACTED) {
      out += text.slice(copied, from) + REDACTED
      copied = to
    }
    i = to >= text.length ? -1 : text.indexOf('<', to + 1)
  }
  return copied === 0 ? text : out + text.slice(copied)
}

/** Just before the closing `quote` of a value starting at `i` (backslash escapes skipped), or the end. */
function quotedEnd(text: string, i: number, quote: number): number {
  let j = i
  while (j < text.length) {
    const c = text.charCodeAt(j)
    if (c === 92) j += 2
    else if (c === quote) return j
    else j++
  }
  return text.length
}

/** Just before the `"""` that closes a GraphQL block string starting at `i` (`\"""` is kept), or the end. */
function blockStringEnd(text: string, i: number): number {
  let p = i
  for (;;) {
    p = text.indexOf('"""', p)
    if (p === -1) return text.length
    if (text.charCodeAt(p - 1) !== 92) return p
    p += 3
  }
}

/**
 * Just before the `\"` that closes a value written as `\"…\"` inside JSON text that was not
 * parsed (a GraphQL query in a cut JSON body). A JSON `\\` is a backslash of the value, which
 * escapes the character after it (`\\\"` is the value's escaped quote); a bare `"` ends the
 * JSON string around the value, so the value too.
 */
function escapedQuoteEnd(text: string, i: number): number {
  let j = i
  while (j < text.length) {
    const c = text.charCodeAt(j)
    if (c === 34) return j
    if (c !== 92) {
      j++
      continue
    }
    const next = text.charCodeAt(j + 1)
    if (next === 34) return j
    j += 2
    if (next === 92) j += text.charCodeAt(j) === 92 ? 2 : 1
  }
  return text.length
}

/** Where the value after a secret name's separator lies, or null when there is none to redact. */
function valueSpan(
  text: string,
  v: number,
  separator: number,
  atLineStart: boolean,
): { start: number; end: number } | null {
  const c = text.charCodeAt(v)
  if (c === 34 && text.startsWith('"""', v)) return { start: v + 3, end: blockStringEnd(text, v + 3) }
  if (c === 92 && text.charCodeAt(v + 1) === 34) return { start: v + 2, end: escapedQuoteEnd(text, v + 2) }
  if (c === 34 || c === 39) return { start: v + 1, end: quotedEnd(text, v + 1, c) }
  if (atLineStart) {
    // The rest of the line; with `=`, up to a `&` too (a line of form parameters).
    let end = v
    while (end < text.length) {
      const d = text.charCodeAt(end)
      if (d === 10 || (d === 38 && separator === 61)) break
      end++
    }
    while (end > v && (isBlank(text.charCodeAt(end - 1)) || text.charCodeAt(end - 1) === 13)) end--
    return end > v ? { start: v, end } : null
  }
  if (separator === 61) {
    let end = v
    while (end < text.length && !isValueDelimiter(text.charCodeAt(end))) end++
    return end > v ? { start: v, end } : null
  }
  if (isDigit(c) || (c === 45 && isDigit(text.charCodeAt(v + 1)))) {
    let end = v + 1
    while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
    return { start: v, end }
  }
  return null
}

/**
 * Values of secret names written `name: value` or `name = value` (see the module comment).
 * Inline, a `:` value is redacted only when quoted or a number (`role: ADMIN` and `$variables`
 * carry nothing); at the start of a line the rest of the line is the value. `::`, `==`, `=>`
 * are not separators, and `xmlns:name=` declares a namespace (its name is no key).
 */
export function redactNamedValues(text: string, names: SecretTest): string {
  let out = ''
  let copied = 0
  /** Only blanks (or a YAML `- `) since the last line break. */
  let lineStart = true
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (!isKeyChar(c)) {
      if (c === 10) lineStart = true
      else if (!isBlank(c) && c !== 13) lineStart = false
      i++
      continue
    }
    const keyStart = i
    const atLineStart: boolean = lineStart
    lineStart = false
    while (i < text.length && isKeyChar(text.charCodeAt(i))) i++
    if (i - keyStart === 1 && c === 45) {
      lineStart = atLineStart
      continue
    }
    let k = i
    while (k < text.length && isBlank(text.charCodeAt(k))) k++
    const separator = text.charCodeAt(k)
    if (separator !== 58 && separator !== 61) continue
    const after = text.charCodeAt(k + 1)
    if (after === separator || (separator === 61 && after === 62)) continue
    if (keyStart >= 6 && text.startsWith('xmlns:', keyStart - 6)) continue
    if (!names.isSecret(text.slice(keyStart, i))) continue
    let v = k + 1
    while (v < text.length && isBlank(text.charCodeAt(v))) v++
    const span = valueSpan(text, v, separator, atLineStart)
    if (!span) continue
    const value = text.slice(span.start, span.end)
    if (value !== '' && value !== REDACTED) {
      out += text.slice(copied, span.start) + REDACTED
      copied = span.end
    }
    i = span.end
  }
  return copied === 0 ? text : out + text.slice(copied)
}

/** Both scanners over text that is not parsed as JSON. */
export function redactTextCarriers(text: string, names: SecretTest): string {
  const xml = text.includes('<') ? redactXmlElements(text, names) : text
  return xml.includes(':') || xml.includes('=') ? redactNamedValues(xml, names) : xml
}
