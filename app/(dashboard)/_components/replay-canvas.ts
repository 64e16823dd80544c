import type { eventWithTime } from '@rrweb/types'
import { type CanvasFrame, canvasFrameOf } from '@/lib/sessions/canvas-frame'

/**
 * Replays recorded canvas frames (docs/recorder.md#canvas-and-iframes) without rrweb's
 * `UNSAFE_replayCanvas`: that option gives the replay iframe `allow-scripts` beside
 * `allow-same-origin`, and a forged recording could then run script in the dashboard's origin.
 * Here the frame is checked (lib/sessions/canvas-frame.ts), decoded by this page with
 * `createImageBitmap` and drawn onto the rebuilt canvas from this page too: the iframe stays
 * without scripts.
 *
 * A recording may hold many large frames at one moment; each decode holds up to 135 MB. So
 * each canvas decodes one frame at a time and keeps only the newest waiting one, and a frame
 * much larger than its canvas (more than `SIZE_SLACK` times a side) is not decoded at all:
 * rrweb's frames are exactly the canvas's size.
 */

/** How much larger than its canvas, on each side, a frame may be before it is refused. */
export const SIZE_SLACK = 2

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
  /** Canvases with a decode in flight, and the newest frame waiting for it to end (null: none). */
  decoding: WeakMap<Node, CanvasFrame | null>
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
): CanvasReplayPlugin {
  const states = new WeakMap<CanvasReplayer, ReplayState>()

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
    if (state.decoding.has(node)) {
      state.decoding.set(node, frame)
      return
    }
    state.decoding.set(node, null)
    let next: CanvasFrame | null = frame
    while (next) {
      await paint(node, next)
      next = state.decoding.get(node) ?? null
      state.decoding.set(node, null)
    }
    state.decoding.delete(node)
  }

  const stateOf = (replayer: CanvasReplayer): ReplayState => {
    let state = states.get(replayer)
    if (!state) {
      const created: ReplayState = { pending: new Map(), decoding: new WeakMap() }
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
