/**
 * JSON text of an already-parsed value, written only up to a length: JSON.stringify of a
 * replay's payload would copy all of it (megabytes, deep nesting) to keep the first few
 * thousand characters. This writer stops as soon as the text is long enough, so the work is
 * bounded by `max`, not by the payload.
 */
import { clip } from './bounds'

const MAX_DEPTH = 32

interface Writer {
  out: string
  max: number
}

function full(writer: Writer): boolean {
  return writer.out.length > writer.max
}

function write(writer: Writer, value: unknown, depth: number): void {
  if (full(writer)) return
  if (value === null || typeof value === 'boolean') {
    writer.out += String(value)
  } else if (typeof value === 'number') {
    writer.out += Number.isFinite(value) ? String(value) : 'null'
  } else if (typeof value === 'string') {
    // One character past the room left is enough to know the text was cut.
    writer.out += JSON.stringify(clip(value, writer.max - writer.out.length + 1))
  } else if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) {
      writer.out += '[…]'
      return
    }
    writer.out += '['
    for (let i = 0; i < value.length && !full(writer); i++) {
      if (i > 0) writer.out += ','
      write(writer, value[i] === undefined ? null : value[i], depth + 1)
    }
    writer.out += ']'
  } else if (typeof value === 'object') {
    if (depth >= MAX_DEPTH) {
      writer.out += '{…}'
      return
    }
    writer.out += '{'
    let first = true
    for (const key in value) {
      if (full(writer)) break
      if (!Object.hasOwn(value, key)) continue
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined || typeof item === 'function') continue
      if (!first) writer.out += ','
      first = false
      writer.out += `${JSON.stringify(clip(key, writer.max - writer.out.length + 1))}:`
      write(writer, item, depth + 1)
    }
    writer.out += '}'
  } else {
    writer.out += 'null'
  }
}

/**
 * `value` as JSON, or its first characters when longer than `max` (then it is not valid JSON
 * any more; the caller marks the cut). Undefined values and functions are left out as
 * JSON.stringify leaves them out.
 */
export function boundedJson(value: unknown, max: number): string {
  const writer: Writer = { out: '', max }
  write(writer, value, 0)
  return writer.out
}
