/// <reference lib="dom" />
import type { IWindow, listenerHandler, RecordPlugin } from '@rrweb/types'

/** rrweb's `record.addCustomEvent`, passed in so these plugins do not import rrweb itself. */
export type AddCustomEvent = <T>(tag: string, payload: T) => void

export interface CustomEventQueue {
  /** Emits now when rrweb is recording, otherwise keeps the event until it starts. */
  push(tag: string, payload: unknown): void
  /**
   * Lifecycle hook for rrweb's `plugins` option. It emits nothing itself: rrweb calls a plugin's
   * observer exactly when recording starts (after the first full snapshot) and its returned
   * handler when recording stops, which is the only reliable "rrweb is live" signal — with
   * `recordAfter` the call to `record()` returns long before that.
   */
  plugin: RecordPlugin
  /** Events dropped because the buffer was full before recording started. */
  dropped(): number
}

export interface CustomEventQueueOptions {
  /** Plugin name; never appears in events because the hook emits no plugin events. */
  name: string
  addCustomEvent: AddCustomEvent
  win: Window
  /** Events kept before rrweb starts; the earliest are kept because they usually explain the rest. */
  maxBuffered?: number
}

/**
 * Buffers Custom events raised before rrweb records and replays them once it does. rrweb's
 * `addCustomEvent` throws until recording has started, and plugin observers run while rrweb is
 * still initialising (its `recording` flag flips right after), so the flush waits one microtask.
 */
export function createCustomEventQueue(options: CustomEventQueueOptions): CustomEventQueue {
  const { addCustomEvent, win } = options
  const maxBuffered = options.maxBuffered ?? 100
  const buffer: { tag: string; payload: unknown }[] = []
  let live = false
  let droppedCount = 0
  // Bumped on every start and stop so a flush scheduled for a recording that already stopped
  // does not mark a later, stopped state as live.
  let generation = 0

  const keep = (tag: string, payload: unknown) => {
    if (buffer.length >= maxBuffered) {
      droppedCount++
      return
    }
    buffer.push({ tag, payload })
  }

  const push = (tag: string, payload: unknown) => {
    if (!live) {
      keep(tag, payload)
      return
    }
    try {
      addCustomEvent(tag, payload)
    } catch {
      // rrweb stopped without calling our stop handler (e.g. an exception during its teardown):
      // keep the event for the next start instead of losing it.
      live = false
      keep(tag, payload)
    }
  }

  const flush = () => {
    while (live && buffer.length > 0) {
      const next = buffer.shift()!
      push(next.tag, next.payload)
    }
  }

  const plugin: RecordPlugin = {
    name: options.name,
    options: undefined,
    observer: (_cb, observedWin: IWindow): listenerHandler => {
      // rrweb also calls observers for same-origin iframes; the queue belongs to one window.
      if ((observedWin as Window) !== win) return () => {}
      const started = ++generation
      queueMicrotask(() => {
        if (generation !== started) return
        live = true
        flush()
      })
      return () => {
        generation++
        live = false
      }
    },
  }

  return { push, plugin, dropped: () => droppedCount }
}
