/**
 * What makes an error-only session upload its buffer: the moments the server's analysis reports
 * (lib/analysis/detectors): an uncaught error or unhandled rejection, a failed request, a rage
 * click. Kept in step with those detectors, so a session is uploaded when its analysis can find
 * something. Pure, so Node tests drive it.
 */
import type { TimedEvent } from './batch'

const CUSTOM_EVENT = 5
const PLUGIN_EVENT = 6
const INCREMENTAL_EVENT = 3
const MOUSE_INTERACTION = 2
const CLICK = 2
/** Tag of the errors plugin's Custom event (plugins/errors.ts). */
const ERROR_TAG = 'error'
/** Name of the network plugin (plugins/network.ts). */
const NETWORK_PLUGIN = 'rrweb/network@1'

/** As lib/analysis/detectors/rage.ts: 4 clicks, each within 1 s and 30 px of the previous. */
export const RAGE_MIN_CLICKS = 4
export const RAGE_GAP_MS = 1000
export const RAGE_DISTANCE_PX = 30

/** As lib/analysis/detectors/network.ts: analytics and tag hosts fail often and are not the product's problem. */
const IGNORED_HOSTS =
  /(?:^|\.)(?:google-analytics\.com|googletagmanager\.com|doubleclick\.net|segment\.io|hotjar\.com|sentry\.io|posthog\.com|mixpanel\.com|amplitude\.com|clarity\.ms|facebook\.com|intercom\.io)$/i
/** Host names are short; a longer URL is cut before it is parsed. */
const MAX_URL_CHARS = 4096
const MAX_ERROR_CHARS = 200

function hostOf(url: string): string {
  try {
    return new URL(url.slice(0, MAX_URL_CHARS)).hostname
  } catch {
    return ''
  }
}

/**
 * A request the server reports as network_error: a 5xx, a 429, or no answer at all unless the
 * page aborted it on purpose; analytics hosts excepted.
 */
export function isFailedRequest(request: unknown): boolean {
  if (typeof request !== 'object' || request === null) return false
  const r = request as { status?: unknown; error?: unknown; url?: unknown; name?: unknown }
  const status = r.status
  if (typeof status !== 'number') return false
  if (status === 0) {
    const error = typeof r.error === 'string' ? r.error.slice(0, MAX_ERROR_CHARS) : ''
    if (/abort/i.test(error)) return false
  } else if (status < 500 && status !== 429) return false
  const url = typeof r.url === 'string' ? r.url : typeof r.name === 'string' ? r.name : ''
  return !IGNORED_HOSTS.test(hostOf(url))
}

/**
 * Rage clicks as the server counts them, without its element resolution (which needs the DOM
 * of the replay): clicks near each other stand in for clicks on one element.
 */
export class RageClickDetector {
  private count = 0
  private lastAt = 0
  private lastX = 0
  private lastY = 0

  /** Returns true on the click that completes a burst (once per burst). */
  click(at: number, x: number, y: number): boolean {
    // Manhattan distance, as the server measures it.
    const near = Math.abs(x - this.lastX) + Math.abs(y - this.lastY) <= RAGE_DISTANCE_PX
    if (this.count > 0 && at - this.lastAt <= RAGE_GAP_MS && at >= this.lastAt && near) this.count++
    else this.count = 1
    this.lastAt = at
    this.lastX = x
    this.lastY = y
    return this.count === RAGE_MIN_CLICKS
  }

  reset(): void {
    this.count = 0
  }
}

/** Why an error-only session uploads, or null for an ordinary event. */
export type TriggerKind = 'error' | 'network' | 'rage_click'

export class TriggerDetector {
  private readonly rage = new RageClickDetector()

  check(event: TimedEvent): TriggerKind | null {
    const data = event.data as Record<string, unknown> | null
    if (typeof data !== 'object' || data === null) return null
    if (event.type === CUSTOM_EVENT) return data.tag === ERROR_TAG ? 'error' : null
    if (event.type === PLUGIN_EVENT) {
      if (data.plugin !== NETWORK_PLUGIN) return null
      const requests = (data.payload as { requests?: unknown } | null)?.requests
      return Array.isArray(requests) && requests.some(isFailedRequest) ? 'network' : null
    }
    if (event.type === INCREMENTAL_EVENT && data.source === MOUSE_INTERACTION && data.type === CLICK) {
      const { x, y } = data
      if (typeof x !== 'number' || typeof y !== 'number') return null
      return this.rage.click(event.timestamp, x, y) ? 'rage_click' : null
    }
    return null
  }

  reset(): void {
    this.rage.reset()
  }
}
