/**
 * The size in UTF-8 bytes of a value's JSON text, without writing the text. The trail checks
 * its size entry by entry (trail-recorder.ts); writing each entry with JSON.stringify and
 * counting the bytes of the copy cost more than recording the entries did.
 */

/** The UTF-8 length of a string that holds no unpaired surrogate, as JSON text is. */
function utf8Length(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // Two bytes below U+0800, three above; a surrogate pair is four, two per half.
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2
  }
  return bytes
}

/** Each UTF-16 unit counts one byte, plus what its escape or UTF-8 sequence takes beyond that. */
function stringBytes(text: string): number {
  let bytes = text.length + 2
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // Printable ASCII but `"` and `\` is written as it is: most characters stop here.
    if (code >= 0x20 && code < 0x80 && code !== 34 && code !== 92) continue
    if (code < 0x20) {
      // \b \t \n \f \r have two-character escapes, the other controls \u00XX.
      bytes += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 1 : 5
    } else if (code < 0x800) {
      bytes += 1 // \" and \\, or two bytes of UTF-8.
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2
        i++
      } else bytes += 5 // JSON.stringify writes an unpaired surrogate as \uXXXX.
    } else {
      bytes += code <= 0xdfff && code >= 0xdc00 ? 5 : 2
    }
  }
  return bytes
}

function numberBytes(value: number): number {
  if (!Number.isFinite(value)) return 4
  // Integers below 1e21 are written digit by digit; powers of ten up to there are exact.
  if (Number.isInteger(value) && Math.abs(value) < 1e21) {
    let digits = 1
    for (let power = 10; power <= Math.abs(value); power *= 10) digits++
    return value < 0 ? digits + 1 : digits
  }
  return String(value).length
}

function objectBytes(value: Record<string, unknown>): number {
  let bytes = 2
  let first = true
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const item = value[key]
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
    bytes += (first ? 0 : 1) + stringBytes(key) + 1 + jsonUtf8Length(item)
    first = false
  }
  return bytes
}

/**
 * `utf8Length(JSON.stringify(value))` for strings, numbers, booleans, null and plain objects
 * of them; anything else (arrays, objects with a prototype or a toJSON) is written and counted.
 */
export function jsonUtf8Length(value: unknown): number {
  if (typeof value === 'string') return stringBytes(value)
  if (typeof value === 'number') return numberBytes(value)
  if (typeof value === 'boolean') return value ? 4 : 5
  if (value === null) return 4
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && !('toJSON' in value))
    return objectBytes(value as Record<string, unknown>)
  return utf8Length(JSON.stringify(value) ?? '')
}
