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
  /** The JSON kept at most, except that the newest segment is kept up to its snapshot plus 3/4 of this (see `add`). */
  maxBytes?: number
}

/**
 * How long an asked checkout may stay unanswered before it is asked again (event time). rrweb's
 * `takeFullSnapshot` can throw, or be skipped; without asking again a segment would never end.
 */
export const CHECKOUT_RETRY_MS = 5000

/**
 * Keeps the last `windowMs` of a recording. Old segments are dropped whole: one is dropped once
 * the next one starts at or before `now - windowMs` (it is not needed to reach back that far),
 * or while the buffer holds more than `maxBytes` (memory wins over reach). A new checkout is
 * asked for when the newest segment is `windowMs` old, or when its events after the snapshot
 * pass half of `maxBytes`, and asked again every `CHECKOUT_RETRY_MS` while it does not come.
 * Should those events still pass three quarters of `maxBytes` (the snapshots keep failing), the
 * segment is dropped: an incremental event means nothing without those before it, so a
 * segment can only be cut whole. Nothing is kept then until the next snapshot, which is asked
 * for at once. The quarter between asking and dropping leaves room for the asked snapshot,
 * which comes a turn later. With checkouts on time the buffer holds at most about two windows;
 * its size stays at most `maxBytes`, or, with one segment, its snapshot plus three quarters of
 * `maxBytes` (about half while snapshots come when asked). A promoted buffer goes to the transport whole, whose
 * queue holds 8 MB: a 4 MB snapshot with the default bound still fits.
 */
export class ErrorBuffer {
  private segments: Segment[] = []
  private size = 0
  private lastTimestamp = 0
  /** Event time of the checkout asked and not yet come; null when none is. */
  private askedAt: number | null = null
  /** Set when a segment was dropped for the hard bound: the next snapshot is asked for until it comes. */
  private needsSnapshot = false
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
      this.askedAt = null
      this.needsSnapshot = false
    }
    const current = this.segments[this.segments.length - 1]
    if (!current) return this.needsSnapshot && this.ask(timestamp)
    this.lastTimestamp = timestamp
    const json = JSON.stringify(timestamp === event.timestamp ? event : { ...event, timestamp })
    current.events.push(json)
    current.bytes += json.length
    this.size += json.length
    if (event.type === META_EVENT || event.type === FULL_SNAPSHOT_EVENT) current.snapshotBytes = current.bytes
    this.trim(timestamp)
    const sinceSnapshot = current.bytes - current.snapshotBytes
    if (sinceSnapshot > (this.maxBytes * 3) / 4) {
      // Past the bound it is the only segment (trim dropped the others): nothing replayable is left.
      this.clear()
      this.needsSnapshot = true
      return this.ask(timestamp)
    }
    const due = timestamp - current.start >= this.windowMs || sinceSnapshot > this.maxBytes / 2
    return due && this.ask(timestamp)
  }

  /** True when a checkout is to be asked for now: none is asked, or the last ask went unanswered. */
  private ask(now: number): boolean {
    if (this.askedAt !== null && now - this.askedAt < CHECKOUT_RETRY_MS) return false
    this.askedAt = now
    return true
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
    this.askedAt = null
    this.needsSnapshot = false
  }

  private dropOldest(): void {
    const dropped = this.segments.shift()!
    this.size -= dropped.bytes
  }
}
