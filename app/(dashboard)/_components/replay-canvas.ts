import type { eventWithTime } from '@rrweb/types'
import { type CanvasFrame, canvasFrameOf } from '@/lib/sessions/canvas-frame'

/**
 * Replays recorded canvas frames (docs/recorder.md#canvas-and-iframes) without rrweb's
 * `UNSAFE_replayCanvas`: that option gives the replay iframe `allow-scripts` beside
 * `allow-same-origin`, and a forged recording could then run script in the dashboard's origin.
 * Here the frame is checked (lib/sessions/canvas-frame.ts), decoded by this page with
 * `createImageBitmap` and drawn onto the rebuilt canvas from this page too: the iframe stays
 * without scripts.
 */

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
  /** The latest frame asked of each canvas, so a slower decode of an older one does not draw over it. */
  latest: WeakMap<Node, number>
  asked: number
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

  const draw = async (replayer: CanvasReplayer, state: ReplayState, frame: CanvasFrame) => {
    const node = replayer.getMirror().getNode(frame.id)
    if (!isCanvas(node)) return
    const ticket = ++state.asked
    state.latest.set(node, ticket)
    let bitmap: ImageBitmap | null = null
    try {
      bitmap = await decode(new Blob([frame.bytes], { type: frame.type }))
      if (state.latest.get(node) !== ticket) return
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

  const stateOf = (replayer: CanvasReplayer): ReplayState => {
    let state = states.get(replayer)
    if (!state) {
      const created: ReplayState = { pending: new Map(), latest: new WeakMap(), asked: 0 }
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
