/// <reference lib="dom" />

/**
 * Tells, when the page is left, whether the visit goes on in this tab: a reload, or the site's
 * own next page (a link, a form, `location` set by the page). Those pages continue the session
 * and would only have the server analyse it again and again; the visit ends when the tab is
 * closed or goes to another site. Read from the Navigation API's `navigate` event (Chromium,
 * Firefox and Safari since 2026); without it every last page left counts as the end, as before.
 */

/** The part of the Navigation API's `navigate` event read here. */
interface NavigateEvent extends Event {
  navigationType: 'push' | 'replace' | 'reload' | 'traverse'
  destination: { url: string; sameDocument: boolean }
  downloadRequest: string | null
}

interface NavigationTarget {
  addEventListener(type: 'navigate', listener: (event: NavigateEvent) => void): void
  removeEventListener(type: 'navigate', listener: (event: NavigateEvent) => void): void
}

/** A navigation the page started but did not leave by within this long was cancelled or failed. */
const PENDING_MS = 10_000

export interface SiteNavigationWatch {
  /** Whether the page is being left for a page of the same site in this tab. */
  continuesHere(): boolean
  detach(): void
}

export function watchSiteNavigation(win: Window, now: () => number): SiteNavigationWatch {
  const navigation = (win as Window & { navigation?: NavigationTarget }).navigation
  let continuingAt: number | null = null
  const onNavigate = (event: NavigateEvent) => {
    if (event.destination.sameDocument || event.downloadRequest !== null) return
    if (event.navigationType === 'reload') {
      continuingAt = now()
      return
    }
    let origin: string
    try {
      origin = new URL(event.destination.url).origin
    } catch {
      return
    }
    continuingAt = origin === win.location.origin ? now() : null
  }
  navigation?.addEventListener('navigate', onNavigate)
  return {
    continuesHere: () => continuingAt !== null && now() - continuingAt < PENDING_MS,
    detach: () => navigation?.removeEventListener('navigate', onNavigate),
  }
}
