/**
 * Which recorded URLs are pages of the site under test. A trail is written by whoever
 * controlled the recorded page, so a URL whose origin is the site's can still lead away once
 * its path is resolved against REPRO_BASE_URL: `https://shop.example//evil.example/login` has
 * the shop's origin, but its path `//evil.example/login` is a protocol-relative reference to
 * evil.example (and `/\evil.example` is parsed the same way).
 */

/** The origin of an http(s) URL; null for any other scheme or a URL that does not parse. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null
  } catch {
    return null
  }
}

/**
 * The path, query and fragment of `url` when it is a page of `origin` that stays there when
 * resolved against any base: one '/' not followed by another '/' or a '\'. Null otherwise.
 */
export function sitePath(url: string, origin: string | null): string | null {
  if (origin === null || originOf(url) !== origin) return null
  const parsed = new URL(url)
  const path = parsed.pathname
  if (!path.startsWith('/') || path[1] === '/' || path[1] === '\\') return null
  return `${path}${parsed.search}${parsed.hash}`
}
