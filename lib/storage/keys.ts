/**
 * Blob keys are relative, slash-separated paths. Every adapter validates with this module before
 * touching storage: the local adapter maps keys onto the file system, where a stray `..` or
 * absolute path would escape the root, and Vercel Blob builds the object URL by pasting the
 * key unencoded after the host, where `?`, `#` or `%` would change which object is read.
 */

/** Vercel Blob rejects longer pathnames (MAXIMUM_PATHNAME_LENGTH in @vercel/blob). */
export const MAX_KEY_LENGTH = 950

/** NAME_MAX on common file systems; a longer segment could be stored on Vercel but not locally. */
export const MAX_SEGMENT_LENGTH = 255

// An allow-list rather than a deny-list: everything else (spaces, `%`, `?`, `#`, `:`, unicode)
// behaves differently on some file system or in a URL. A leading dot is refused so that `.`
// and `..` can never appear, and so that the local adapter can keep its temporary files under
// dot-names that no key collides with.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

export class InvalidBlobKeyError extends Error {
  override name = 'InvalidBlobKeyError'

  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    // JSON.stringify makes NUL and backslashes visible in logs; long hostile keys are cut short
    super(`Invalid blob key ${JSON.stringify(key.slice(0, 120))}: ${reason}`)
  }
}

function problemWith(key: unknown, allowTrailingSlash: boolean): string | null {
  if (typeof key !== 'string') return 'must be a string'
  if (key.length === 0) return 'must not be empty'
  if (key.length > MAX_KEY_LENGTH) return `must be at most ${MAX_KEY_LENGTH} characters`
  if (key.includes('\0')) return 'must not contain NUL'
  if (key.includes('\\')) return 'must not contain a backslash'
  if (key.startsWith('/')) return 'must be relative (no leading slash)'
  const segments = key.split('/')
  if (allowTrailingSlash && segments.length > 1 && segments.at(-1) === '') segments.pop()
  for (const segment of segments) {
    if (segment === '') return 'must not contain empty segments (`//` or a trailing slash)'
    if (segment === '.' || segment === '..') return 'must not contain `.` or `..` segments'
    if (segment.length > MAX_SEGMENT_LENGTH)
      return `segments must be at most ${MAX_SEGMENT_LENGTH} characters`
    if (!SEGMENT.test(segment))
      return 'segments may only use A-Z, a-z, 0-9, `.`, `_` and `-`, and must not start with `.`'
  }
  return null
}

export function isValidBlobKey(key: unknown): key is string {
  return problemWith(key, false) === null
}

export function assertValidBlobKey(key: string): void {
  const problem = problemWith(key, false)
  if (problem) throw new InvalidBlobKeyError(String(key), problem)
}

/**
 * A list prefix is matched as a plain string prefix (as Vercel Blob does), so `org/1/s` also
 * matches `org/1/sessions/...`. It is valid when empty, or when it is a valid key optionally
 * followed by one slash.
 */
export function assertValidBlobPrefix(prefix: string): void {
  if (prefix === '') return
  const problem = problemWith(prefix, true)
  if (problem) throw new InvalidBlobKeyError(String(prefix), problem)
}
