/**
 * How a minified file is addressed (docs/source-maps.md): uploads store either the full URL
 * the browser loads it from, or `~/path`, which matches that path on any origin; a frame's URL
 * is looked up under both. Query and fragment never take part: cache busters change them.
 * Both sides are normalised alike: the path decoded (browsers report `%5Bslug%5D` for the
 * `[slug]` folder a build wrote), the scheme and host in lower case (as browsers report them).
 */
import { cutQuery } from '@/lib/analysis/stack'

/**
 * The path with its percent escapes decoded, except those of `/ ? # ...` (decodeURI's rule,
 * so a `%2F` never becomes a folder); a malformed escape keeps the raw text.
 */
export function decodePath(path: string): string {
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}

/** The path relative to its root: without leading `./` and `/`. */
function relative(path: string): string {
  return path.replace(/^(?:\.\/)+/, '').replace(/^\/+/, '')
}

/** `urlPrefix` as addresses hold it: scheme and host lower-cased, path decoded, ending in `/`. */
function prefixAddress(urlPrefix: string): string {
  let prefix = urlPrefix
  try {
    const url = new URL(urlPrefix)
    prefix = `${url.protocol}//${url.host}${decodePath(url.pathname)}`
  } catch {
    // Checked by the upload before it gets here; as typed otherwise.
  }
  return prefix.endsWith('/') ? prefix : `${prefix}/`
}

/** The address an uploaded file is stored under: `urlPrefix` + path, or `~/` + path without one. */
export function uploadAddress(relativePath: string, urlPrefix: string | null): string {
  const path = decodePath(relative(relativePath))
  return urlPrefix ? `${prefixAddress(urlPrefix)}${path}` : `~/${path}`
}

/**
 * The addresses a frame's URL may have been uploaded under, most specific first: the full URL
 * (origin lower-cased) as reported, then decoded, then `~/path` as reported, then decoded.
 */
export function frameAddresses(frameUrl: string): string[] {
  const url = cutQuery(frameUrl)
  // Anchored, and the scheme's class cannot hold `:`: one pass, no backtracking.
  const origin = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(url)?.[0] ?? ''
  const path = url.slice(origin.length)
  const decoded = decodePath(path)
  const full = origin.toLowerCase()
  return [
    ...new Set([`${full}${path}`, `${full}${decoded}`, `~/${relative(path)}`, `~/${relative(decoded)}`]),
  ]
}
