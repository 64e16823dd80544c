/**
 * The page the user is on (docs/design/analysis.md §1.5): `href` of the latest Meta event, or of our
 * `navigation` custom event for History API changes, which rrweb itself does not record.
 * Periodic checkouts repeat Meta on the same URL and are not new pages; a DomContentLoaded
 * before a Meta means a new document, so a reload of the same URL is one. In real recordings
 * (rrweb 2.2.2, recordAfter DOMContentLoaded) Load comes after Meta and FullSnapshot, so Load
 * marks a new document only when no Meta was seen since the last DomContentLoaded.
 */
import { clip, MAX_URL_CHARS } from './bounds'
import { displayUrl, hostOf, isHttpUrl, parseUrl, pathPattern } from './url'

export interface PageRef {
  /** The page URL as shown to people: fragment dropped, token-like query values masked. */
  url: string
  pathPattern: string
  /** Lower-case host, '' before the first page. */
  host: string
  /** Increments with every page load or SPA navigation: "the same page" means the same visit. */
  visit: number
}

export type PageChange = 'load' | 'navigation' | null

export class PageTracker {
  current: PageRef = { url: '', pathPattern: '/', host: '', visit: 0 }
  /** The visit that the latest change ended (0 before the first page). */
  previousVisit = 0
  loads = 0
  navigations = 0
  private href = ''

  /**
   * `nextVisit` numbers page visits: the tabs of one session share one numbering, so a visit
   * names one page of one tab (tabs.ts).
   */
  constructor(private readonly nextVisit: (current: number) => number = (current) => current + 1) {}
  private newDocument = false
  private documentHasMeta = false

  /**
   * DomContentLoaded, or Load with no Meta yet in this document: the next Meta belongs to a new
   * document. Returns whether this event started one.
   */
  documentStarted(type: 'domContentLoaded' | 'load'): boolean {
    if (type === 'load' && this.documentHasMeta) return false
    this.newDocument = true
    this.documentHasMeta = false
    return true
  }

  meta(href: string): PageChange {
    // Test recorders also see about:blank; only real pages count (§4.7).
    if (!isHttpUrl(href)) return null
    this.documentHasMeta = true
    const fresh = this.newDocument || this.current.visit === 0 || href !== this.href
    this.newDocument = false
    if (!fresh) return null
    this.loads++
    this.enter(href)
    return 'load'
  }

  navigation(href: string): PageChange {
    // Resolving percent-encodes, which can make a bounded URL longer again.
    const absolute = clip(parseUrl(href, this.href || undefined)?.href ?? href, MAX_URL_CHARS)
    // The SDK already leaves out in-page anchors, so any other URL change is a new page.
    if (!isHttpUrl(absolute) || absolute === this.href) return null
    this.navigations++
    this.enter(absolute)
    return 'navigation'
  }

  private enter(href: string): void {
    this.href = href
    this.previousVisit = this.current.visit
    this.current = {
      url: displayUrl(href),
      pathPattern: pathPattern(href),
      host: hostOf(href) ?? '',
      visit: this.nextVisit(this.current.visit),
    }
  }

  get pageCount(): number {
    return this.loads + this.navigations
  }
}
