/** Event buffering and batch bodies (spec: "Replay batch"); pure, so Node tests drive it. */

import type { AutomationKind } from './automation'

export interface TimedEvent {
  timestamp: number
  type: number
  data: unknown
}

export type Flush = 'normal' | 'final'

/** Everything of a batch body except the events, taken when the batch is cut. */
export interface BatchEnvelope {
  session: { id: string; windowId: string; startedAt: number; lastActivityAt: number; url: string }
  user: { anonymousId: string; id: string | null; properties: Record<string, unknown> | null }
  page: { url: string; referrer: string | null; viewport: { width: number; height: number } | null }
  metadata: {
    userAgent: string | null
    language: string | null
    /** Left out, not null, when `init` had none: such batches are exactly as before releases. */
    release?: string
    /** Script URL → bundler debug ID, only those this page has not sent yet (debug-ids.ts). */
    debugIds?: Record<string, string>
    /** Left out until the mutation guard stopped recording part of the page (mutation-guard.ts). */
    degraded?: true
    /** Left out for a person's visit; set when automation drives the page (automation.ts). */
    automation?: AutomationKind
  }
}

/** A batch ready to send: its body is fixed once cut, so every retry resends the same bytes. */
export interface PreparedBatch {
  sessionId: string
  sequence: number
  flush: Flush
  json: string
}

/**
 * Events kept as JSON text: each event is stringified once, which also gives its size for the
 * byte limit, and the body is assembled by concatenation.
 */
export class EventBuffer {
  private events: string[] = []
  private size = 0
  private lastTimestamp = 0

  get count(): number {
    return this.events.length
  }

  get bytes(): number {
    return this.size
  }

  /**
   * The server rejects a batch whose timestamps go backwards; a clock adjustment can make
   * `Date.now()` do that, so such an event is pinned to the previous timestamp instead.
   */
  add(event: TimedEvent): void {
    const timestamp = Math.max(event.timestamp, this.lastTimestamp)
    this.lastTimestamp = timestamp
    const json = JSON.stringify(timestamp === event.timestamp ? event : { ...event, timestamp })
    this.events.push(json)
    this.size += json.length
  }

  /**
   * An event already serialized with a timestamp that does not go backwards (error-buffer.ts
   * keeps the same rule), so the text is kept as it is.
   */
  addSerialized(json: string, timestamp: number): void {
    this.lastTimestamp = Math.max(this.lastTimestamp, timestamp)
    this.events.push(json)
    this.size += json.length
  }

  isFull(maxEvents: number, maxBytes: number): boolean {
    return this.events.length >= maxEvents || this.size >= maxBytes
  }

  /** The oldest events that fit both limits; always at least one, so an oversized event goes alone. */
  take(maxEvents: number, maxBytes: number): string[] {
    let n = 0
    let bytes = 0
    while (n < this.events.length && n < maxEvents) {
      const next = this.events[n]!.length
      if (n > 0 && bytes + next > maxBytes) break
      bytes += next
      n++
    }
    const taken = this.events.splice(0, n)
    this.size -= bytes
    return taken
  }
}

export function buildBody(envelope: BatchEnvelope, events: string[], sequence: number, flush: Flush): string {
  return (
    `{"session":${JSON.stringify(envelope.session)},"user":${JSON.stringify(envelope.user)},` +
    `"page":${JSON.stringify(envelope.page)},"replay":{"events":[${events.join(',')}],"sequence":${sequence}},` +
    `"metadata":${JSON.stringify(envelope.metadata)},"flush":"${flush}"}`
  )
}

/** Why a final batch was sent: idle timeout, `stop()`, or the session's last page was left. */
export type SessionEndReason = 'idle' | 'stop' | 'pagehide'

/** A Custom event that carries a final batch when the session ends with nothing else pending. */
export function sessionEndEvent(timestamp: number, reason: SessionEndReason): TimedEvent {
  return { type: 5, timestamp, data: { tag: 'session_end', payload: { reason } } }
}

const ACTIVITY_SOURCES = new Set([1, 2, 3, 4, 5, 6, 7, 12, 14])

/**
 * Whether an rrweb event shows a person using the page (page loads, pointer, scroll, input,
 * selection). Mutations and console or network events do not: a ticking clock or a polling
 * request would otherwise keep an abandoned tab's session open forever.
 */
export function isUserActivity(event: TimedEvent): boolean {
  if (event.type === 0 || event.type === 1 || event.type === 2 || event.type === 4) return true
  if (event.type !== 3) return false
  const source = (event.data as { source?: unknown } | null)?.source
  return typeof source === 'number' && ACTIVITY_SOURCES.has(source)
}
