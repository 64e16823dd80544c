/// <reference lib="dom" />
import type { RecordPlugin } from '@rrweb/types'
import { type AddCustomEvent, createCustomEventQueue } from './custom-event-queue'

const NAVIGATION_EVENT_TAG = 'navigation'

/**
 * Payload of the Custom event `{tag: 'navigation'}` (docs/design/analysis.md §4.1). rrweb writes a Meta
 * event only on full loads and checkouts, so without this an SPA route change is invisible
 * and every later finding would be attributed to the first route.
 */
export interface NavigationPayload {
  href: string
  from: string
  kind: 'push' | 'replace' | 'pop'
}

export interface NavigationCaptureOptions {
  /** rrweb's `record.addCustomEvent`. */
  addCustomEvent: AddCustomEvent
  win?: Window
  maxBuffered?: number
  /**
   * Called on every history call and back/forward, before the event is emitted, also while
   * rrweb does not record: the page rules (page-rules.ts) decide whether that event is kept.
   */
  onUrlChange?: () => void
}

export interface NavigationCapture {
  /** Add to rrweb's `plugins`: it tells the capture when recording starts and stops. */
  plugin: RecordPlugin
  uninstall(): void
}

function withoutFragment(href: string): string {
  const hash = href.indexOf('#')
  return hash === -1 ? href : href.slice(0, hash)
}

/**
 * In-page anchors (`#pricing`, `href="#"`) change the URL but not the page; counting them as
 * navigations would also make a dead `a[href="#"]` look like it responded. Hash routers
 * (`#/cart`, `#!/cart`) do change the page, so those still count.
 */
function isPageChange(from: string, to: string): boolean {
  if (from === to) return false
  if (withoutFragment(from) !== withoutFragment(to)) return true
  const hash = to.slice(to.indexOf('#') + 1)
  return hash.startsWith('/') || hash.startsWith('!')
}

/**
 * Wraps `history.pushState` / `replaceState` and listens for `popstate` immediately — call it
 * at script start so routers that change the URL during boot are seen — and emits a Custom
 * event per page change once rrweb records.
 */
export function installNavigationCapture(options: NavigationCaptureOptions): NavigationCapture {
  const win = options.win ?? window
  const queue = createCustomEventQueue({
    name: 'sdk/navigation',
    addCustomEvent: options.addCustomEvent,
    win,
    maxBuffered: options.maxBuffered ?? 20,
  })
  const history = win.history
  const originalPush = history.pushState
  const originalReplace = history.replaceState
  let last = win.location.href

  const observe = (kind: NavigationPayload['kind']) => {
    options.onUrlChange?.()
    const href = win.location.href
    if (!isPageChange(last, href)) {
      last = href
      return
    }
    const payload: NavigationPayload = { href, from: last, kind }
    last = href
    queue.push(NAVIGATION_EVENT_TAG, payload)
  }

  // Assigned on the instance (not the prototype) so uninstall restores exactly what was there,
  // including another library's wrapper installed before ours.
  history.pushState = function pushState(
    this: History,
    data: unknown,
    unused: string,
    url?: string | URL | null,
  ) {
    const result = originalPush.call(this, data, unused, url)
    observe('push')
    return result
  }
  history.replaceState = function replaceState(
    this: History,
    data: unknown,
    unused: string,
    url?: string | URL | null,
  ) {
    const result = originalReplace.call(this, data, unused, url)
    observe('replace')
    return result
  }
  const onPop = () => observe('pop')
  win.addEventListener('popstate', onPop)

  return {
    plugin: queue.plugin,
    uninstall: () => {
      history.pushState = originalPush
      history.replaceState = originalReplace
      win.removeEventListener('popstate', onPop)
    },
  }
}
