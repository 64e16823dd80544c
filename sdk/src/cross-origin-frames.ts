/// <reference lib="dom" />
import type { eventWithTime, RecordPlugin } from '@rrweb/types'

/**
 * The handshake between a recording page and the cross-origin frames in it that load the
 * recorder with `recordCrossOriginIframes` (docs/recorder.md#canvas-and-iframes).
 *
 * rrweb in such a frame posts every event to `window.parent` with target origin '*' and emits
 * nothing itself, and the parent's rrweb takes them only when it records with the same option
 * and already knows the frame's element; anything else is lost without a trace. So the frame
 * asks first (`hello`, posted only to the origins in its `parentOrigins`), and passes its
 * recording up only when a parent of one of those origins answers `listening`: rrweb starts
 * posting only after that, so no other embedding site ever receives the recording. Otherwise it
 * records a session of its own, as without the option. The parent says `snapshot` whenever its
 * rrweb took a full snapshot: the frame then starts, or sends a snapshot of its own again (at
 * most once a second), because the parent's new snapshot no longer holds the frame's content.
 * The messages carry no data.
 *
 * The parent in turn lets rrweb see recording messages only from frames that completed the
 * handshake, and at most `MAX_CHILD_EVENTS_PER_SECOND` of them a second from each: any other
 * frame of the page (an ad) could otherwise write events into the parent's session.
 */

const KEY = 'svcReplayFrame'
type Kind = 'hello' | 'listening' | 'snapshot'
const FULL_SNAPSHOT = 2
/** How often a frame says hello while it waits: the parent's recorder may start a little later. */
const HELLO_EVERY_MS = 250
/** A hostile parent could ask for snapshots in a loop; a frame takes at most one this often. */
export const SNAPSHOT_EVERY_MS = 1_000
/**
 * Recording events a parent takes from one frame in one second. rrweb batches a frame's
 * mutations per task, so a busy legitimate frame stays far below; a flood beyond is dropped.
 */
export const MAX_CHILD_EVENTS_PER_SECOND = 500

function kindOf(data: unknown): Kind | null {
  if (typeof data !== 'object' || data === null) return null
  const kind = (data as Record<string, unknown>)[KEY]
  return kind === 'hello' || kind === 'listening' || kind === 'snapshot' ? kind : null
}

const message = (kind: Kind) => ({ [KEY]: kind })

/** True in a frame whose parent is another origin (its document cannot be read from here). */
export function hasCrossOriginParent(win: Window): boolean {
  if (win.parent === win) return false
  try {
    return !win.parent.document
  } catch {
    return true
  }
}

export interface ChildFrames {
  /** For rrweb's `plugins`: sees this window's full snapshots, also where the recorder gets no events. */
  plugin: RecordPlugin
  detach(): void
}

export interface ChildFramesOptions {
  /** A frame sent more than its share in a second; called once per flood, for a note in the recording. */
  onFlood?: (origin: string) => void
  /** Origins of the frames whose recordings are taken; null or absent: any that says hello. */
  childOrigins?: readonly string[] | null
  /** For tests. */
  now?: () => number
  maxEventsPerSecond?: number
}

/** Tag of the custom event that says a frame's flood was dropped. */
export const FRAME_FLOOD_TAG = 'svc.frames'

/** `onFlood` for a recording window: one custom event, later (rrweb may be mid-emit now). */
export function noteFloodWith(
  addCustomEvent: (tag: string, payload: { dropped: 'rate'; origin: string }) => void,
  win: Window,
): (origin: string) => void {
  return (origin) =>
    win.setTimeout(() => {
      try {
        addCustomEvent(FRAME_FLOOD_TAG, { dropped: 'rate', origin: origin.slice(0, 300) })
      } catch {
        // rrweb not recording (stopped meanwhile): nothing to note it in.
      }
    }, 0)
}

interface Child {
  /** Where messages to the frame go: its origin, or '*' for an opaque one ('null'). */
  target: string
  /** The origin its messages come from. */
  origin: string
  /** Start of the current one-second window and the recording events taken in it. */
  windowStart: number
  taken: number
  /** Dropped events since the last window that had room. */
  flooding: boolean
}

const isRrwebMessage = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (data as Record<string, unknown>).type === 'rrweb'

/**
 * The parent's side: answers the frames of this window that say hello, and keeps recording
 * messages of every other frame away from rrweb. Call before rrweb's `record()`: both listen on
 * this window, and the guard must run first.
 */
export function listenToChildFrames(win: Window, options: ChildFramesOptions = {}): ChildFrames {
  const now = options.now ?? Date.now
  const maxPerSecond = options.maxEventsPerSecond ?? MAX_CHILD_EVENTS_PER_SECOND
  const children = new Map<Window, Child>()
  let live = false

  const isOwnFrame = (source: unknown): source is Window => {
    for (let i = 0; i < win.frames.length; i++) if (win.frames[i] === source) return true
    return false
  }
  const post = (child: Window, kind: Kind, target: string) => {
    try {
      child.postMessage(message(kind), target)
    } catch {
      // The frame navigated away or is gone.
    }
  }
  const onMessage = (event: MessageEvent) => {
    if (kindOf(event.data) !== 'hello' || !isOwnFrame(event.source)) return
    // Unanswered, a frame of another origin never relays, and its messages stay stopped below.
    if (options.childOrigins && !options.childOrigins.includes(event.origin)) return
    // A sandboxed frame has the opaque origin 'null', which postMessage cannot target.
    const target = event.origin === 'null' ? '*' : event.origin
    // Hello again from the same document must not reset its count: that would lift its limit.
    const known = children.get(event.source)
    if (known?.origin !== event.origin)
      children.set(event.source, {
        target,
        origin: event.origin,
        windowStart: now(),
        taken: 0,
        flooding: false,
      })
    post(event.source, 'listening', target)
    if (live) post(event.source, 'snapshot', target)
  }
  /** True when rrweb may take this recording message: from a handshaken frame, within its rate. */
  const admits = (event: MessageEvent): boolean => {
    const source = event.source as Window | null
    const child = source ? children.get(source) : undefined
    // A frame that navigated keeps its window but has another origin: it must say hello again.
    if (!source || !child || child.origin !== event.origin) return false
    const at = now()
    if (at - child.windowStart >= 1_000) {
      child.windowStart = at
      child.taken = 0
      if (child.flooding) {
        child.flooding = false
        // The dropped events leave the frame's replay without nodes later events use.
        post(source, 'snapshot', child.target)
      }
    }
    if (child.taken >= maxPerSecond) {
      if (!child.flooding) {
        child.flooding = true
        options.onFlood?.(child.origin)
      }
      return false
    }
    child.taken++
    return true
  }
  const guard = (event: MessageEvent) => {
    if (isRrwebMessage(event.data) && !admits(event)) event.stopImmediatePropagation()
  }
  // Capture phase: at the window, capturing listeners run before rrweb's (a bubbling one).
  win.addEventListener('message', guard, { capture: true })
  win.addEventListener('message', onMessage)

  const snapshotTaken = () => {
    live = true
    for (const [child, { target }] of children) {
      if (isOwnFrame(child)) post(child, 'snapshot', target)
      else children.delete(child)
    }
  }
  const processEvent = (event: eventWithTime): eventWithTime => {
    if (event.type === FULL_SNAPSHOT) snapshotTaken()
    return event
  }
  return {
    plugin: {
      name: 'sdk/frames',
      options: undefined,
      // rrweb types this as generic over extensions; the event goes back unchanged.
      eventProcessor: processEvent as RecordPlugin['eventProcessor'],
    },
    detach: () => {
      win.removeEventListener('message', onMessage)
      win.removeEventListener('message', guard, { capture: true })
      children.clear()
    },
  }
}

export interface ParentAnswer {
  /** The parent records this frame: pass the recording up, record no session here. */
  listening(): void
  /** The parent took a full snapshot: start, or take one here too. */
  snapshot(): void
  /** No answer in time: the parent does not record with the option. */
  timeout(): void
}

/**
 * The frame's side: says hello to each of `parentOrigins` until a parent of one of them
 * answers or `timeoutMs` passed. Answers from any other origin are ignored. Returns a detach
 * function.
 */
export function askParent(
  win: Window,
  parentOrigins: readonly string[],
  timeoutMs: number,
  answer: ParentAnswer,
  snapshotEveryMs = SNAPSHOT_EVERY_MS,
): () => void {
  let listening = false
  let lastSnapshot = Number.NEGATIVE_INFINITY
  let pendingSnapshot: ReturnType<typeof setTimeout> | undefined
  const hello = () => {
    // One message per allowed origin: the browser delivers each only if the parent is that origin.
    for (const origin of parentOrigins) {
      try {
        win.parent.postMessage(message('hello'), origin)
      } catch {
        // A parent that went away answers nothing; the timeout decides.
      }
    }
  }
  const snapshot = () => {
    pendingSnapshot = undefined
    lastSnapshot = Date.now()
    answer.snapshot()
  }
  const onMessage = (event: MessageEvent) => {
    if (event.source !== win.parent || !parentOrigins.includes(event.origin)) return
    const kind = kindOf(event.data)
    if (kind !== 'listening' && kind !== 'snapshot') return
    if (!listening) {
      listening = true
      clearInterval(repeat)
      clearTimeout(deadline)
      answer.listening()
    }
    if (kind !== 'snapshot' || pendingSnapshot !== undefined) return
    // Asked again within the second: one more snapshot at its end covers every ask meanwhile.
    const wait = lastSnapshot + snapshotEveryMs - Date.now()
    if (wait <= 0) snapshot()
    else pendingSnapshot = setTimeout(snapshot, wait)
  }
  win.addEventListener('message', onMessage)
  const repeat = setInterval(hello, HELLO_EVERY_MS)
  const deadline = setTimeout(() => {
    clearInterval(repeat)
    win.removeEventListener('message', onMessage)
    answer.timeout()
  }, timeoutMs)
  hello()
  return () => {
    clearInterval(repeat)
    clearTimeout(deadline)
    clearTimeout(pendingSnapshot)
    win.removeEventListener('message', onMessage)
  }
}
