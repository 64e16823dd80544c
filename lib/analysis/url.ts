/**
 * URL helpers (docs/design/analysis.md §4.4): path patterns that group pages and requests whatever ids
 * they carry, sites for the third-party test, and the critical-path test of §4.5.
 */

const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const HEX_SEGMENT = /^(?=[0-9a-f]*\d)[0-9a-f]{8,}$/
const DATE_SEGMENT = /^\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?$/
const NUMERIC_SEGMENT = /^\d+$/

/**
 * `name@host.tld` with no other `@` or `/`, what `/^[^@/]+@[^@/]+\.[^@/]+$/` tested; that
 * pattern tried every `.` of a long host against the rest.
 */
export function isEmailSegment(segment: string): boolean {
  const at = segment.indexOf('@')
  if (at <= 0 || segment.indexOf('@', at + 1) >= 0 || segment.includes('/')) return false
  // A dot with at least one character on each side within the host.
  const dot = segment.indexOf('.', at + 2)
  return dot >= 0 && dot < segment.length - 1
}

function isMixedToken(segment: string): boolean {
  return segment.length >= 16 && /^[\w-]+$/.test(segment) && /\d/.test(segment) && /[a-z]/.test(segment)
}

function patternSegment(segment: string): string {
  if (NUMERIC_SEGMENT.test(segment) || DATE_SEGMENT.test(segment)) return ':id'
  if (UUID_SEGMENT.test(segment)) return ':uuid'
  if (HEX_SEGMENT.test(segment)) return ':hash'
  if (isEmailSegment(segment) || isMixedToken(segment)) return ':token'
  return segment
}

const patternCache = new Map<string, string>()
const PATTERN_CACHE_LIMIT = 1024

/** Turns a path (or a whole URL) into its pattern: `/Orders/123/?x=1` → `/orders/:id`. */
export function pathPattern(pathOrUrl: string): string {
  let pattern = patternCache.get(pathOrUrl)
  if (pattern === undefined) {
    pattern = computePathPattern(pathOrUrl)
    if (patternCache.size >= PATTERN_CACHE_LIMIT) patternCache.clear()
    patternCache.set(pathOrUrl, pattern)
  }
  return pattern
}

function computePathPattern(pathOrUrl: string): string {
  let path = pathOrUrl
  const schemeEnd = path.indexOf('://')
  if (schemeEnd >= 0) {
    const slash = path.indexOf('/', schemeEnd + 3)
    path = slash >= 0 ? path.slice(slash) : '/'
  }
  const cut = path.search(/[?#]/)
  if (cut >= 0) path = path.slice(0, cut)
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // A malformed escape is still a usable path.
  }
  const segments = decoded.toLowerCase().split('/').filter(Boolean).map(patternSegment)
  return `/${segments.join('/')}`
}

export function parseUrl(url: string, base?: string): URL | null {
  try {
    return new URL(url, base)
  } catch {
    return null
  }
}

const ABSOLUTE_HTTP = /^(https?):\/\/([^/?#]*)([^?#]*)/i

/**
 * Absolute URL, lower-case host and path of a request URL. Every request passes here, so the
 * common absolute and root-relative forms are split without building a URL object.
 */
export function splitRequestUrl(url: string, pageUrl: string): { href: string; host: string; path: string } {
  const absolute = ABSOLUTE_HTTP.exec(url)
  if (absolute) return { href: url, host: absolute[2]!.toLowerCase(), path: absolute[3] || '/' }
  const page = ABSOLUTE_HTTP.exec(pageUrl)
  if (page && url.startsWith('/') && !url.startsWith('//')) {
    const cut = url.search(/[?#]/)
    return {
      href: `${page[1]}://${page[2]}${url}`,
      host: page[2]!.toLowerCase(),
      path: cut >= 0 ? url.slice(0, cut) : url,
    }
  }
  const parsed = parseUrl(url, pageUrl || undefined)
  if (!parsed) return { href: url, host: '', path: url }
  return {
    href: parsed.href,
    host: /^https?:$/.test(parsed.protocol) ? parsed.host.toLowerCase() : '',
    path: parsed.pathname,
  }
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url)
}

const TWO_LEVEL_SUFFIX = /^(?:co|com|org|net|gov|ac|edu)\.[a-z]{2}$/

/** The registrable part of a host, close enough to tell first-party from third-party. */
export function siteOf(host: string): string {
  const bare = host.toLowerCase().replace(/:\d+$/, '')
  if (/^[\d.]+$/.test(bare) || bare.startsWith('[') || !bare.includes('.')) return bare
  const labels = bare.split('.')
  const keep = TWO_LEVEL_SUFFIX.test(labels.slice(-2).join('.')) ? 3 : 2
  return labels.slice(-keep).join('.')
}

export function hostOf(url: string, base?: string): string | null {
  const parsed = parseUrl(url, base)
  return parsed && /^https?:$/.test(parsed.protocol) ? parsed.host.toLowerCase() : null
}

export function isThirdParty(url: string, pageUrl: string): boolean {
  const host = hostOf(url, pageUrl)
  const pageHost = hostOf(pageUrl)
  if (!host || !pageHost) return false
  return siteOf(host) !== siteOf(pageHost)
}

const CRITICAL_WORD =
  /^(?:checkout|carts?|basket|pay|payments?|billing|orders?|purchase|signup|sign-up|register|registration|login|log-in|logon|signin|sign-in|auth|oauth|authenticate|authentication|authorize)$/

/** §4.5 "critical path": checkout, cart, payment, billing, order, signup, login or auth. */
export function isCriticalPath(path: string): boolean {
  for (const segment of path.toLowerCase().split('/')) {
    if (!segment) continue
    if (CRITICAL_WORD.test(segment)) return true
    for (const token of segment.split(/[-_.]/)) if (CRITICAL_WORD.test(token)) return true
  }
  return false
}

/**
 * The URL for text a person reads: no fragment, and query values only when they are short
 * plain words or numbers (`?page=2`); anything else may be a token or an address.
 */
export function displayUrl(url: string): string {
  const hash = url.indexOf('#')
  const bare = hash >= 0 ? url.slice(0, hash) : url
  const query = bare.indexOf('?')
  if (query < 0) return bare
  const params = bare
    .slice(query + 1)
    .split('&')
    .filter(Boolean)
    .map((param) => {
      const eq = param.indexOf('=')
      if (eq < 0) return param
      const value = param.slice(eq + 1)
      return /^[\w.-]{0,20}$/.test(value) && !/\d{5,}/.test(value) ? param : `${param.slice(0, eq)}=…`
    })
  return params.length > 0 ? `${bare.slice(0, query)}?${params.join('&')}` : bare.slice(0, query)
}
