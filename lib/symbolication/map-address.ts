/**
 * How a minified file is addressed (docs/source-maps.md): uploads store either the full URL
 * the browser loads it from, or `~/path`, which matches that path on any origin; a frame's URL
 * is looked up under both. Query and fragment never take part: cache busters change them.
 */
import { cutQuery } from '@/lib/analysis/stack'

/** The address an uploaded file is stored under: `urlPrefix` + path, or `~/` + path without one. */
export function uploadAddress(relativePath: string, urlPrefix: string | null): string {
  const path = relativePath.replace(/^(?:\.\/)+/, '').replace(/^\/+/, '')
  if (!urlPrefix) return `~/${path}`
  return `${urlPrefix.endsWith('/') ? urlPrefix : `${urlPrefix}/`}${path}`
}

/** The addresses a frame's URL may have been uploaded under, most specific first. */
export function frameAddresses(frameUrl: string): string[] {
  const url = cutQuery(frameUrl)
  const origin = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(url)
  if (!origin) return [url, `~/${url.replace(/^\/+/, '')}`]
  const path = url.slice(origin[0].length).replace(/^\/+/, '')
  return [url, `~/${path}`]
}
