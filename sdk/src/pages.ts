import type { KeyValueStore } from './storage'

const PAGES_PREFIX = 'svc_replay:pages:'
// A session seen by more pages than this is not a person's visit; the oldest entries go.
const MAX_PAGES = 20

type Heartbeats = Record<string, number>

/**
 * The live pages of each session, in localStorage: each page writes a heartbeat with its flush
 * timer and removes it on pagehide. The last live page to leave knows the visit is over (as far
 * as the recorder can tell) and sends its last batch as `final`, so the session is analysed at
 * once instead of after the server's idle time. A page that crashed stops beating and stops
 * counting after `staleAfterMs`.
 */
export class SessionPages {
  private readonly loadId: string
  private sessionId: string | null = null

  constructor(
    private readonly device: KeyValueStore,
    private readonly now: () => number,
    newId: () => string,
    private readonly staleAfterMs: number,
  ) {
    this.loadId = newId()
  }

  /** This page is live in `sessionId` (and no longer in the session it was in before). */
  beat(sessionId: string): void {
    if (this.sessionId && this.sessionId !== sessionId) this.leave(this.sessionId)
    this.sessionId = sessionId
    const pages = this.live(sessionId)
    pages[this.loadId] = this.now()
    this.write(sessionId, pages)
  }

  /** Whether any page (this one or another tab's) is live in `sessionId`. */
  hasLive(sessionId: string): boolean {
    return Object.keys(this.live(sessionId)).length > 0
  }

  /** Removes this page from the session; true when no other live page remains in it. */
  leave(sessionId: string): boolean {
    const pages = this.live(sessionId)
    delete pages[this.loadId]
    if (this.sessionId === sessionId) this.sessionId = null
    this.write(sessionId, pages)
    return Object.keys(pages).length === 0
  }

  private live(sessionId: string): Heartbeats {
    const live: Heartbeats = {}
    let stored: unknown
    try {
      stored = JSON.parse(this.device.getItem(PAGES_PREFIX + sessionId) ?? '{}')
    } catch {
      return live
    }
    if (!stored || typeof stored !== 'object') return live
    const cutoff = this.now() - this.staleAfterMs
    const fresh = Object.entries(stored as Record<string, unknown>)
      .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > cutoff)
      .sort((a, b) => b[1] - a[1])
      .slice(0, MAX_PAGES)
    for (const [id, at] of fresh) live[id] = at
    return live
  }

  private write(sessionId: string, pages: Heartbeats): void {
    if (Object.keys(pages).length === 0) this.device.removeItem(PAGES_PREFIX + sessionId)
    else this.device.setItem(PAGES_PREFIX + sessionId, JSON.stringify(pages))
  }
}
