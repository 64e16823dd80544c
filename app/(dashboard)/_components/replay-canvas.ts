import type { eventWithTime } from '@rrweb/types'
import { type CanvasFrame, canvasFrameOf, MAX_FRAME_PIXELS } from '@/lib/sessions/canvas-frame'

/**
 * Replays recorded canvas frames (docs/recorder.md#canvas-and-iframes) without rrweb's
 * `UNSAFE_replayCanvas`: that option gives the replay iframe `allow-scripts` beside
 * `allow-same-origin`, and a forged recording could then run script in the dashboard's origin.
 * Here the frame is checked (lib/sessions/canvas-frame.ts), decoded by this page with
 * `createImageBitmap` and drawn onto the rebuilt canvas from this page too: the iframe stays
 * without scripts.
 *
 * A recording may hold many large frames at one moment; each decode holds up to 135 MB, and
 * each canvas drawn on holds its own pixels. So each canvas decodes one frame at a time and
 * keeps only the newest waiting one; at most MAX_DECODES frames decode at once across all the
 * replay's canvases; the canvases drawn on may hold REPLAY_PIXEL_BUDGET pixels together (a
 * canvas over it is never drawn, and its frames are counted as skipped); and a frame much
 * larger than its canvas (more than `SIZE_SLACK` times a side) is not decoded at all: rrweb's
 * frames are exactly the canvas's size. A forged recording with hundreds of 8K canvases then
 * costs the viewer's tab two 8K canvases and two decodes, not hundreds.
 */

/** How much larger than its canvas, on each side, a frame may be before it is refused. */
export const SIZE_SLACK = 2
/** Frames decoding at once across all the canvases of a replay. */
export const MAX_DECODES = 2
/** Pixels of all the canvases a replay draws on, together: two 8K canvases (about 265 MB). */
export const REPLAY_PIXEL_BUDGET = 2 * MAX_FRAME_PIXELS

/** What the plugin uses of rrweb's Replayer. */
export interface CanvasReplayer {
  getMirror(): { getNode(id: number): Node | null }
  on(event: string, handler: () => void): unknown
}

/** rrweb's ReplayPlugin, with the replayer narrowed to what is used. */
export interface CanvasReplayPlugin {
  handler(event: eventWithTime, isSync: boolean, context: { replayer: CanvasReplayer }): void
}

export type DecodeImage = (blob: Blob) => Promise<ImageBitmap>

interface ReplayState {
  /** While rrweb seeks it applies the events before the new moment at once: only each canvas's last frame matters. */
  pending: Map<number, CanvasFrame>
  /** Canvases with a decode in flight or waiting for a slot, and the newest frame waiting (null: none). */
  decoding: WeakMap<Node, CanvasFrame | null>
  /**
   * Pixels charged to the budget per canvas, by its id in the recording: rrweb rebuilds the
   * document when it seeks back, and the old canvases go with the old document.
   */
  charged: Map<number, number>
  /** Pixels charged in all. */
  used: number
  /** Frames not drawn because their canvas was over the budget, and those canvases' ids. */
  skipped: { frames: number; canvases: Set<number> }
}

/** Told on every frame skipped for the budget: how many frames and canvases so far in this replay. */
export type OnSkipped = (skipped: { frames: number; canvases: number }) => void

/**
 * Decode slots shared by every canvas: `take` is synchronous when a slot is free (a frame
 * decodes at once), else `wait` resolves once one is handed over, in the order asked.
 */
function decodeSlots(limit: number) {
  let free = limit
  const queue: (() => void)[] = []
  return {
    take: () => {
      if (free === 0) return false
      free--
      return true
    },
    wait: () => new Promise<void>((resolve) => queue.push(resolve)),
    give: () => {
      const next = queue.shift()
      if (next) next()
      else free++
    },
  }
}

interface Canvas2d extends Node {
  width: number
  height: number
  getContext(kind: '2d'): CanvasRenderingContext2D | null
}

// The canvas lives in the replay iframe's realm, where `instanceof HTMLCanvasElement` fails.
const isCanvas = (node: Node | null): node is Canvas2d =>
  node !== null && node.nodeName === 'CANVAS' && typeof (node as Partial<Canvas2d>).getContext === 'function'

export function canvasReplayPlugin(
  decode: DecodeImage = (blob) => createImageBitmap(blob),
  onError: (error: unknown) => void = () => {},
  onSkipped: OnSkipped = () => {},
  limits: { decodes: number; pixels: number } = { decodes: MAX_DECODES, pixels: REPLAY_PIXEL_BUDGET },
): CanvasReplayPlugin {
  const states = new WeakMap<CanvasReplayer, ReplayState>()
  const slots = decodeSlots(limits.decodes)

  /** Whether the canvas may be drawn on: charges what it adds to the budget, or counts the frame as skipped. */
  const admit = (state: ReplayState, node: Canvas2d, frame: CanvasFrame): boolean => {
    // The canvas's own pixels are what drawing on it allocates; its frame may be larger.
    const pixels = Math.max(node.width * node.height, frame.width * frame.height)
    const extra = pixels - (state.charged.get(frame.id) ?? 0)
    if (extra <= 0) return true
    if (state.used + extra > limits.pixels) {
      state.skipped.frames++
      state.skipped.canvases.add(frame.id)
      onSkipped({ frames: state.skipped.frames, canvases: state.skipped.canvases.size })
      return false
    }
    state.used += extra
    state.charged.set(frame.id, pixels)
    return true
  }

  const paint = async (node: Canvas2d, frame: CanvasFrame) => {
    let bitmap: ImageBitmap | null = null
    try {
      bitmap = await decode(new Blob([frame.bytes], { type: frame.type }))
      const context = node.getContext('2d')
      if (!context) return
      context.clearRect(0, 0, node.width, node.height)
      context.drawImage(bitmap, 0, 0)
    } catch (error) {
      // A picture the browser cannot decode is skipped; the replay goes on.
      onError(error)
    } finally {
      bitmap?.close()
    }
  }

  const draw = async (replayer: CanvasReplayer, state: ReplayState, frame: CanvasFrame) => {
    const node = replayer.getMirror().getNode(frame.id)
    if (!isCanvas(node)) return
    if (
      frame.width > Math.max(node.width, 1) * SIZE_SLACK ||
      frame.height > Math.max(node.height, 1) * SIZE_SLACK
    )
      return
    // Frames come in time order: a newer one replaces whatever waits, the one in flight finishes.
    const busy = state.decoding.has(node)
    state.decoding.set(node, frame)
    if (busy) return
    for (let next = frame; ; ) {
      if (!slots.take()) {
        await slots.wait()
        // The newest frame by the time a slot is free.
        next = state.decoding.get(node) ?? next
      }
      state.decoding.set(node, null)
      try {
        if (admit(state, node, next)) await paint(node, next)
      } finally {
        slots.give()
      }
      const waiting = state.decoding.get(node)
      if (!waiting) break
      next = waiting
    }
    state.decoding.delete(node)
  }

  const stateOf = (replayer: CanvasReplayer): ReplayState => {
    let state = states.get(replayer)
    if (!state) {
      const created: ReplayState = {
        pending: new Map(),
        decoding: new WeakMap(),
        charged: new Map(),
        used: 0,
        skipped: { frames: 0, canvases: new Set() },
      }
      // rrweb emits `flush` once the events before a sought moment are in the real DOM.
      replayer.on('flush', () => {
        const frames = [...created.pending.values()]
        created.pending.clear()
        for (const frame of frames) void draw(replayer, created, frame)
      })
      states.set(replayer, created)
      state = created
    }
    return state
  }

  return {
    handler(event, isSync, { replayer }) {
      const frame = canvasFrameOf(event)
      if (!frame) return
      const state = stateOf(replayer)
      if (isSync) state.pending.set(frame.id, frame)
      else void draw(replayer, state, frame)
    },
  }
}
