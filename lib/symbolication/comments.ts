/**
 * The comments a bundler leaves at the end of a minified file. Found with lastIndexOf and a
 * fixed-length check rather than a regex over the file: linear whatever the file holds.
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** A debug ID as stored: a UUID in lowercase, or null when the value is not one. */
export function normalizeDebugId(value: string): string | null {
  return UUID.test(value) ? value.toLowerCase() : null
}

/** The value of the last `//# name=` (or legacy `//@ name=`) comment, up to the end of its line. */
function lastComment(text: string, name: string): string | null {
  const at = Math.max(text.lastIndexOf(`//# ${name}=`), text.lastIndexOf(`//@ ${name}=`))
  if (at < 0) return null
  const start = at + name.length + 5
  const newline = text.indexOf('\n', start)
  const value = text.slice(start, newline < 0 ? undefined : newline).trim()
  return value === '' ? null : value
}

/** `//# sourceMappingURL=…`: the map the file names, as written (relative, absolute or data:). */
export function readSourceMappingUrl(text: string): string | null {
  return lastComment(text, 'sourceMappingURL')
}

/** `//# debugId=<uuid>`, lowercase; null when absent or not a UUID. */
export function readDebugIdComment(text: string): string | null {
  const value = lastComment(text, 'debugId')
  return value === null ? null : normalizeDebugId(value)
}

/**
 * How much of a minified file's end is read for its comments. Bundlers write them last, and a
 * reference a map can be paired by is an address (at most 2048 characters), so this holds
 * both; a 20 MB file is never decoded or scanned whole.
 */
export const COMMENT_TAIL_BYTES = 4096

const latin1 = new TextDecoder('latin1')

/** The comments of a minified file from its last COMMENT_TAIL_BYTES only. */
export function readTrailingComments(bytes: Uint8Array): {
  sourceMappingUrl: string | null
  debugId: string | null
} {
  // Only the comments are read, all ASCII: latin1 decodes any bytes without failing.
  const text = latin1.decode(bytes.subarray(Math.max(0, bytes.byteLength - COMMENT_TAIL_BYTES)))
  return { sourceMappingUrl: readSourceMappingUrl(text), debugId: readDebugIdComment(text) }
}
