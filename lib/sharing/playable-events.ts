import { EventType } from '@/lib/analysis/rrweb'
import type { RrwebEvent } from '@/lib/analysis/types'

// What the player rebuilds the page from. Custom events (our own and the site's, with their
// payloads) and plugin events (console messages, requests with their captured headers and
// bodies) feed the dashboard's panes, which a share link does not show (docs/sharing.md).
const PLAYABLE = new Set<number>([
  EventType.DomContentLoaded,
  EventType.Load,
  EventType.FullSnapshot,
  EventType.IncrementalSnapshot,
  EventType.Meta,
])

/** Whether a share link's player gets the event: only what draws the page, never a pane's data. */
export function playableOnly(event: RrwebEvent): boolean {
  return typeof event === 'object' && event !== null && PLAYABLE.has(event.type)
}
