/// <reference lib="dom" />
/**
 * `allowPages` / `denyPages`: on which pages recording runs. Checked when the recorder starts
 * and on every URL change in the page (history calls, back/forward, hash changes).
 */
import type { UrlPattern } from './options'

/** A URL longer than this is matched by its start only: the page's own patterns run on it. */
export const MAX_MATCHED_URL_CHARS = 8192

export interface PageRules {
  /** Empty: every page. */
  allowPages: UrlPattern[]
  denyPages: UrlPattern[]
}

function matches(url: string, pattern: UrlPattern): boolean {
  if (typeof pattern === 'string') return url.includes(pattern)
  // A global or sticky expression would continue from the last match's position.
  pattern.lastIndex = 0
  return pattern.test(url)
}

/** Whether recording runs on `url`: allowed (or no allow list) and not denied. */
export function pageAllowed(url: string, rules: PageRules): boolean {
  const bounded = url.length > MAX_MATCHED_URL_CHARS ? url.slice(0, MAX_MATCHED_URL_CHARS) : url
  if (rules.allowPages.length > 0 && !rules.allowPages.some((p) => matches(bounded, p))) return false
  return !rules.denyPages.some((p) => matches(bounded, p))
}

/**
 * The referrer as batches may carry it: a page of this site the rules do not allow is left
 * out, since its address is what the rules keep from the server. Other sites are kept.
 */
export function allowedReferrer(referrer: string, origin: string, rules: PageRules): string | null {
  if (!referrer) return null
  if (!referrer.startsWith(`${origin}/`) && referrer !== origin) return referrer
  return pageAllowed(referrer, rules) ? referrer : null
}

export interface PageGate {
  /** Whether the current page may be recorded. */
  readonly allowed: boolean
  /**
   * The page batches name as theirs: the current one while allowed, else the last allowed page
   * of this document (null when there was none), so a denied address is never sent.
   */
  readonly lastAllowedUrl: string | null
  /** Re-reads the address; call on any hint that it changed. */
  check(): void
  detach(): void
}

/**
 * Follows the page's address: `onChange` is called when recording becomes allowed or denied.
 * Without rules every page is allowed and nothing is watched.
 */
export function watchPageRules(
  win: Window,
  rules: PageRules,
  onChange: (allowed: boolean) => void,
): PageGate {
  const active = rules.allowPages.length > 0 || rules.denyPages.length > 0
  let href = win.location.href
  let allowed = !active || pageAllowed(href, rules)
  let lastAllowedUrl: string | null = allowed ? href : null

  const check = () => {
    if (!active) return
    const now = win.location.href
    if (now === href) return
    href = now
    const next = pageAllowed(now, rules)
    if (next) lastAllowedUrl = now
    if (next === allowed) return
    allowed = next
    onChange(next)
  }
  // History calls are seen through the navigation capture, which calls `check`.
  if (active) {
    win.addEventListener('popstate', check)
    win.addEventListener('hashchange', check)
  }
  return {
    get allowed() {
      return allowed
    },
    get lastAllowedUrl() {
      return allowed ? win.location.href : lastAllowedUrl
    },
    check,
    detach: () => {
      win.removeEventListener('popstate', check)
      win.removeEventListener('hashchange', check)
    },
  }
}
