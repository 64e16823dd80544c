/**
 * The bounds of one source map upload (docs/source-maps.md). Every figure is checked before
 * the bytes it bounds are parsed, so a hostile upload costs at most these.
 */
export const SOURCEMAP_LIMITS = {
  /** One map or minified file, after a `.gz` part is decompressed. */
  maxFileBytes: 20 * 1024 * 1024,
  /** The whole request, after the body's Content-Encoding and every `.gz` part are undone. */
  maxRequestBytes: 50 * 1024 * 1024,
  /** File parts in one request (maps and minified files together). */
  maxFiles: 200,
  /** A file's relative path as sent in the part's filename. */
  maxPathLength: 1024,
  /** The stored address (`urlPrefix/path`); frames are matched on URLs at most this long. */
  maxAddressLength: 2048,
  maxUrlPrefixLength: 1024,
} as const

const MB = 1024 * 1024

/** The refusal of a request over `maxRequestBytes`, worded once for every surface. */
export const REQUEST_TOO_LARGE = `Source map upload too large: at most ${SOURCEMAP_LIMITS.maxRequestBytes / MB} MB per request (uncompressed)`

export const TOO_MANY_FILES = `Too many files: at most ${SOURCEMAP_LIMITS.maxFiles} per request`
