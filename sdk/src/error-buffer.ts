/**
 * The in-memory recording of an error-only (`buffer`) session: events kept as JSON text in
 * checkout segments — each starts with a Meta event and its full snapshot — so that whatever is
 * dropped, what is left replays from a snapshot. Pure, so Node tests drive it.
 */
import type { TimedEvent } from './batch'

const META_EVENT = 4
const FULL_SNAPSHOT_EVENT = 2

/** Default memory bound of the buffer: the raw JSON of its events. */
export const ERROR_BUFFER_MAX_BYTES = 5 * 1024 * 1024

interface Segment {
  /** Timestamp of its Meta event. */
  start: number
  /** The page it was recorded on (the Meta event's href). */
  href: string
  events: string[]
  bytes: number
  /** Bytes of the Meta and full snapshot events that open it. */
  snapshotBytes: number
}

/** What a trigger uploads: the events in order, the first one a Meta event. */
export interface BufferedRecording {
  events: string[]
  /** Timestamp of the first event: the session's start as uploaded. */
  startedAt: number
  /** Page of the first event. */
  url: string
  /** Timestamp of the last event; timestamps never go backwards in `events`. */
  lastTimestamp: number
}

export interface ErrorBufferOptions {
  /** The buffer always reaches back this far, from a full snapshot at or before `now - windowMs`. */
  windowMs: number
  /** The JSON kept at most, except that the newest segment is never cut (see `add`). */
  maxBytes?: number
}

/**
 * Keeps the last `windowMs` of a recording. Old segments are dropped whole: one is dropped once
 * the next one starts at or before `now - windowMs` (it is not needed to reach back that far),
 * or while the buffer holds more than `maxBytes` (memory wins over reach). A new checkout is
 * asked for when the newest segment is `windowMs` old, or when its events after the snapshot
 * pass half of `maxBytes`, so no single segment grows without bound. With checkouts on time the
 * buffer holds at most about two windows; its size stays at most `maxBytes`, or, with one
 * segment, its snapshot plus half of `maxBytes` plus one event.
 */
export class ErrorBuffer {
  private segments: Segment[] = []
  private size = 0
  private lastTimestamp = 0
  private checkoutAsked = false
  private readonly windowMs: number
  private readonly maxBytes: number

  constructor(options: ErrorBufferOptions) {
    this.windowMs = options.windowMs
    this.maxBytes = options.maxBytes ?? ERROR_BUFFER_MAX_BYTES
  }

  get bytes(): number {
    return this.size
  }

  get count(): number {
    let n = 0
    for (const segment of this.segments) n += segment.events.length
    return n
  }

  get segmentCount(): number {
    return this.segments.length
  }

  /** Timestamp of the oldest event kept, or null when empty. */
  get startedAt(): number | null {
    return this.segments[0]?.start ?? null
  }

  /**
   * Keeps an event; returns true when a new checkout (full snapshot) should be taken now. Events
   * before the first Meta event are dropped: without a snapshot they cannot be replayed.
   */
  add(event: TimedEvent): boolean {
    // As EventBuffer does: the server refuses timestamps that go backwards.
    const timestamp = Math.max(event.timestamp, this.lastTimestamp)
    if (event.type === META_EVENT) {
      const href = (event.data as { href?: unknown } | null)?.href
      this.segments.push({
        start: timestamp,
        href: typeof href === 'string' ? href : '',
        events: [],
        bytes: 0,
        snapshotBytes: 0,
      })
      this.checkoutAsked = false
    }
    const current = this.segments[this.segments.length - 1]
    if (!current) return false
    this.lastTimestamp = timestamp
    const json = JSON.stringify(timestamp === event.timestamp ? event : { ...event, timestamp })
    current.events.push(json)
    current.bytes += json.length
    this.size += json.length
    if (event.type === META_EVENT || event.type === FULL_SNAPSHOT_EVENT) current.snapshotBytes = current.bytes
    this.trim(timestamp)
    if (this.checkoutAsked) return false
    const due =
      timestamp - current.start >= this.windowMs || current.bytes - current.snapshotBytes > this.maxBytes / 2
    if (due) this.checkoutAsked = true
    return due
  }

  /** Drops what is no longer needed at `now`. */
  trim(now: number): void {
    while (this.segments.length > 1 && this.segments[1]!.start <= now - this.windowMs) this.dropOldest()
    while (this.segments.length > 1 && this.size > this.maxBytes) this.dropOldest()
  }

  /** Everything kept, oldest first, and empties the buffer; null when nothing replayable is kept. */
  take(): BufferedRecording | null {
    const first = this.segments[0]
    const recording: BufferedRecording | null = first
      ? {
          events: this.segments.flatMap((segment) => segment.events),
          startedAt: first.start,
          url: first.href,
          lastTimestamp: this.lastTimestamp,
        }
      : null
    this.clear()
    return recording
  }

  clear(): void {
    this.segments = []
    this.size = 0
    this.checkoutAsked = false
  }

  private dropOldest(): void {
    const dropped = this.segments.shift()!
    this.size -= dropped.bytes
  }
}
