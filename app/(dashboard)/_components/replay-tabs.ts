import type { eventWithTime } from '@rrweb/types'

/**
 * A visit of several tabs (docs/replay.md#visits-across-tabs): the events endpoint tags each
 * event with its tab's `windowId` when a session has more than one. The player replays one tab
 * at a time on the visit's timeline and follows the tab the person was in.
 */

export interface ReplayTab {
  id: string
  /** "Tab 1", "Tab 2", … in the order the tabs first recorded something. */
  label: string
  /** The tab's events, framed by the visit's first and last moment so every tab shares one timeline. */
  events: eventWithTime[]
}

export interface TabView {
  tabs: ReplayTab[]
  /** Moments (epoch ms) from which another tab is the active one, in time order. */
  switches: { at: number; tab: string }[]
}

const FULL_SNAPSHOT = 2
const INCREMENTAL = 3
const META = 4
const CUSTOM = 5
// rrweb incremental sources that mean a person is in the tab: pointer, scroll, viewport, input, touch.
const PRESENCE_SOURCES = new Set([1, 2, 3, 4, 5, 6])
// A marker the replay ignores: it only stretches a tab's events over the visit's timeline.
const FRAME_TAG = 'svc.visit-frame'

function windowOf(event: eventWithTime): string | null {
  const id = (event as { windowId?: unknown }).windowId
  return typeof id === 'string' && id ? id : null
}

/** Whether the event shows the person in its tab: a page shown, or their own input. */
function showsPresence(event: eventWithTime): boolean {
  if (event.type === META || event.type === FULL_SNAPSHOT) return true
  if (event.type !== INCREMENTAL) return false
  const source = (event.data as { source?: unknown }).source
  return typeof source === 'number' && PRESENCE_SOURCES.has(source)
}

function frame(at: number): eventWithTime {
  return { type: CUSTOM, timestamp: at, data: { tag: FRAME_TAG, payload: {} } } as eventWithTime
}

/** The visit's tabs, or null for a session of one tab (events without a window, or all one). */
export function splitTabs(events: eventWithTime[], start: number, end: number): TabView | null {
  const byTab = new Map<string, eventWithTime[]>()
  const switches: TabView['switches'] = []
  for (const event of events) {
    const id = windowOf(event)
    if (id === null) return null
    let list = byTab.get(id)
    if (!list) {
      list = []
      byTab.set(id, list)
    }
    list.push(event)
    if (showsPresence(event) && switches.at(-1)?.tab !== id) switches.push({ at: event.timestamp, tab: id })
  }
  if (byTab.size < 2) return null
  const tabs = [...byTab].map(([id, list], i) => {
    const framed = [...list]
    if (framed[0]!.timestamp > start) framed.unshift(frame(start))
    if (framed[framed.length - 1]!.timestamp < end) framed.push(frame(end))
    return { id, label: `Tab ${i + 1}`, events: framed }
  })
  return { tabs, switches }
}

/** The tab the person was in at `at` (epoch ms): the first tab before anyone was seen. */
export function activeTabAt(view: TabView, at: number): string {
  let active = view.switches[0]?.tab ?? view.tabs[0]!.id
  for (const change of view.switches) {
    if (change.at > at) break
    active = change.tab
  }
  return active
}
