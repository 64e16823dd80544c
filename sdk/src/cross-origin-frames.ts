/// <reference lib="dom" />
import type { eventWithTime, RecordPlugin } from '@rrweb/types'

/**
 * The handshake between a recording page and the cross-origin frames in it that load the
 * recorder with `recordCrossOriginIframes` (docs/recorder.md#canvas-and-iframes).
 *
 * rrweb in such a frame posts every event to `window.parent` and emits nothing itself, and
 * the parent's rrweb takes them only when it records with the same option and already knows
 * the frame's element; anything else is lost without a trace. So the frame asks first
 * (`hello`), and passes its recording up only when the parent's recorder answers `listening`;
 * otherwise it records a session of its own, as without the option. The parent says
 * `snapshot` whenever its rrweb took a full snapshot: the frame then starts, or sends a
 * snapshot of its own again, because the parent's new snapshot no longer holds the frame's
 * content. The messages carry no data.
 */

const KEY = 'svcReplayFrame'
type Kind = 'hello' | 'listening' | 'snapshot'
const FULL_SNAPSHOT = 2
/** How often a frame says hello while it waits: the parent's recorder may start a little later. */
const HELLO_EVERY_MS = 250

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

/** The parent's side: answers the frames of this window that say hello. */
export function listenToChildFrames(win: Window): ChildFrames {
  // Frame window → the origin its hello came from (messages go only there).
  const children = new Map<Window, string>()
  let live = false

  const isOwnFrame = (source: unknown): source is Window => {
    for (let i = 0; i < win.frames.length; i++) if (win.frames[i] === source) return true
    return false
  }
  const post = (child: Window, kind: Kind, origin: string) => {
    try {
      child.postMessage(message(kind), origin)
    } catch {
      // The frame navigated away or is gone.
    }
  }
  const onMessage = (event: MessageEvent) => {
    if (kindOf(event.data) !== 'hello' || !isOwnFrame(event.source)) return
    // A sandboxed frame has the opaque origin 'null', which postMessage cannot target.
    const origin = event.origin === 'null' ? '*' : event.origin
    children.set(event.source, origin)
    post(event.source, 'listening', origin)
    if (live) post(event.source, 'snapshot', origin)
  }
  win.addEventListener('message', onMessage)

  const snapshotTaken = () => {
    live = true
    for (const [child, origin] of children) {
      if (isOwnFrame(child)) post(child, 'snapshot', origin)
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

/** The frame's side: says hello until the parent answers or `timeoutMs` passed. Returns a detach function. */
export function askParent(win: Window, timeoutMs: number, answer: ParentAnswer): () => void {
  let listening = false
  const hello = () => {
    try {
      win.parent.postMessage(message('hello'), '*')
    } catch {
      // A parent that went away answers nothing; the timeout decides.
    }
  }
  const onMessage = (event: MessageEvent) => {
    if (event.source !== win.parent) return
    const kind = kindOf(event.data)
    if (kind !== 'listening' && kind !== 'snapshot') return
    if (!listening) {
      listening = true
      clearInterval(repeat)
      clearTimeout(deadline)
      answer.listening()
    }
    if (kind === 'snapshot') answer.snapshot()
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
    win.removeEventListener('message', onMessage)
  }
}
