import { describe, expect, it } from 'vitest'
import {
  type CanvasReplayer,
  canvasReplayPlugin,
  MAX_DECODES,
  REPLAY_PIXEL_BUDGET,
} from '@/app/(dashboard)/_components/replay-canvas'
import {
  canvasFrameOf,
  decodeBase64,
  MAX_FRAME_BASE64_CHARS,
  MAX_FRAME_PIXELS,
} from '@/lib/sessions/canvas-frame'

/** The start of a PNG: signature and IHDR with the given size (enough for the header check). */
function png(width: number, height: number): Uint8Array {
  const b = new Uint8Array(33)
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
  new DataView(b.buffer).setUint32(16, width)
  new DataView(b.buffer).setUint32(20, height)
  return b
}

/** The start of an extended WebP (VP8X) of the given size. */
function webp(width: number, height: number): Uint8Array {
  const b = new Uint8Array(40)
  b.set(
    [...'RIFF'].map((c) => c.charCodeAt(0)),
    0,
  )
  b.set(
    [...'WEBPVP8X'].map((c) => c.charCodeAt(0)),
    8,
  )
  const view = new DataView(b.buffer)
  view.setUint32(24, width - 1, true)
  view.setUint32(27, height - 1, true)
  return b
}

/** The start of a lossless WebP (VP8L) of the given size. */
function webpLossless(width: number, height: number): Uint8Array {
  const b = new Uint8Array(40)
  b.set(
    [...'RIFF'].map((c) => c.charCodeAt(0)),
    0,
  )
  b.set(
    [...'WEBPVP8L'].map((c) => c.charCodeAt(0)),
    8,
  )
  b[20] = 0x2f
  new DataView(b.buffer).setUint32(21, ((width - 1) | ((height - 1) << 14)) >>> 0, true)
  return b
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** A CanvasMutation event as rrweb's fps sampling writes it. */
function frameEvent(base64: string, type: string, id = 7, timestamp = 1000) {
  return {
    type: 3,
    timestamp,
    data: {
      source: 9,
      id,
      type: 0,
      commands: [
        { property: 'clearRect', args: [0, 0, 10, 10] },
        {
          property: 'drawImage',
          args: [
            {
              rr_type: 'ImageBitmap',
              args: [{ rr_type: 'Blob', data: [{ rr_type: 'ArrayBuffer', base64 }], type }],
            },
            0,
            0,
          ],
        },
      ],
    },
  }
}

describe('canvasFrameOf', () => {
  it('reads a WebP or PNG frame with its size', () => {
    expect(canvasFrameOf(frameEvent(b64(webp(300, 150)), 'image/webp'))).toMatchObject({
      id: 7,
      type: 'image/webp',
      width: 300,
      height: 150,
    })
    expect(canvasFrameOf(frameEvent(b64(webpLossless(64, 32)), 'image/webp'))).toMatchObject({
      width: 64,
      height: 32,
    })
    const frame = canvasFrameOf(frameEvent(b64(png(20, 10)), 'image/png'))
    expect(frame).toMatchObject({ type: 'image/png', width: 20, height: 10 })
    expect(Buffer.from(frame!.bytes)).toEqual(Buffer.from(png(20, 10)))
  })

  it('refuses types that are not canvas images, and bytes that are not the type they claim', () => {
    for (const type of ['image/svg+xml', 'text/html', 'application/octet-stream', 'image/gif', ''])
      expect(canvasFrameOf(frameEvent(b64(png(20, 10)), type))).toBeNull()
    expect(canvasFrameOf(frameEvent(b64(png(20, 10)), 'image/webp'))).toBeNull()
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    expect(canvasFrameOf(frameEvent(svg.toString('base64'), 'image/png'))).toBeNull()
  })

  it('refuses huge base64 before decoding it, and pictures too large to hold', () => {
    expect(canvasFrameOf(frameEvent('A'.repeat(MAX_FRAME_BASE64_CHARS + 4), 'image/png'))).toBeNull()
    expect(canvasFrameOf(frameEvent(b64(png(16_385, 1)), 'image/png'))).toBeNull()
    expect(canvasFrameOf(frameEvent(b64(png(0, 10)), 'image/png'))).toBeNull()
    expect(canvasFrameOf(frameEvent(b64(png(0xffffffff, 0xffffffff)), 'image/png'))).toBeNull()
    const side = Math.ceil(Math.sqrt(MAX_FRAME_PIXELS)) + 1
    expect(canvasFrameOf(frameEvent(b64(webp(side, side)), 'image/webp'))).toBeNull()
    expect(canvasFrameOf(frameEvent(b64(webp(7680, 4320)), 'image/webp'))).not.toBeNull()
  })

  it('refuses malformed events and base64', () => {
    const good = frameEvent(b64(png(2, 2)), 'image/png')
    expect(canvasFrameOf(good)).not.toBeNull()
    expect(canvasFrameOf(null)).toBeNull()
    expect(canvasFrameOf({ ...good, type: 2 })).toBeNull()
    expect(canvasFrameOf({ ...good, data: { ...good.data, source: 0 } })).toBeNull()
    expect(canvasFrameOf({ ...good, data: { ...good.data, id: -1 } })).toBeNull()
    expect(canvasFrameOf({ ...good, data: { ...good.data, id: '7' } })).toBeNull()
    expect(canvasFrameOf({ ...good, data: { ...good.data, commands: [good.data.commands[1]] } })).toBeNull()
    expect(canvasFrameOf({ ...good, data: { ...good.data, commands: 'x' } })).toBeNull()
    expect(canvasFrameOf(frameEvent('iVBO R!==', 'image/png'))).toBeNull()
    expect(canvasFrameOf(frameEvent('', 'image/png'))).toBeNull()
    expect(decodeBase64('QUJD')).toEqual(new Uint8Array([65, 66, 67]))
    expect(decodeBase64('QUI=')).toEqual(new Uint8Array([65, 66]))
    expect(decodeBase64('QQ==')).toEqual(new Uint8Array([65]))
    for (const bad of ['QQ=A', 'Q===', 'QUJ', ' QUJ', 'QU\u00e9D', '=QUJ'])
      expect(decodeBase64(bad)).toBeNull()
  })
})

/** The width in a PNG frame's header, as the decoder was handed it. */
const widthOf = async (blob: Blob) => new DataView(await blob.arrayBuffer()).getUint32(16)

interface Drawn {
  canvas: string
  image: string
}

/** A replayer with a mirror of fake canvases, and a decoder that resolves when told. */
function harness() {
  const drawn: Drawn[] = []
  const canvas = (name: string) => ({
    nodeName: 'CANVAS',
    width: 10,
    height: 10,
    getContext: () => ({
      clearRect: () => {},
      drawImage: (image: { name: string }) => drawn.push({ canvas: name, image: image.name }),
    }),
  })
  const nodes = new Map<number, unknown>([
    [7, canvas('seven')],
    [8, canvas('eight')],
    [9, { nodeName: 'DIV' }],
  ])
  const flushes: (() => void)[] = []
  const replayer: CanvasReplayer = {
    getMirror: () => ({ getNode: (id: number) => (nodes.get(id) as Node | undefined) ?? null }),
    on: (event, handler) => {
      if (event === 'flush') flushes.push(handler)
    },
  }
  const decodes: { blob: Blob; resolve: () => void }[] = []
  const plugin = canvasReplayPlugin(
    (blob) =>
      new Promise<ImageBitmap>((resolve) => {
        const name = `${blob.type}#${decodes.length}`
        decodes.push({ blob, resolve: () => resolve({ name, close: () => {} } as unknown as ImageBitmap) })
      }),
  )
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
  return { drawn, replayer, plugin, decodes, flushes, settle }
}

describe('canvasReplayPlugin', () => {
  const event = (id: number, width = 4) =>
    frameEvent(b64(png(width, 4)), 'image/png', id) as unknown as Parameters<
      ReturnType<typeof canvasReplayPlugin>['handler']
    >[0]

  it('draws a frame on its canvas, and skips a missing or non-canvas node', async () => {
    const h = harness()
    h.plugin.handler(event(7), false, { replayer: h.replayer })
    h.plugin.handler(event(404), false, { replayer: h.replayer })
    h.plugin.handler(event(9), false, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(1)
    expect(h.decodes[0]!.blob.type).toBe('image/png')
    h.decodes[0]!.resolve()
    await h.settle()
    expect(h.drawn).toEqual([{ canvas: 'seven', image: 'image/png#0' }])
  })

  it('decodes one frame of a canvas at a time and then only the newest that waited', async () => {
    const h = harness()
    for (let width = 1; width <= 6; width++)
      h.plugin.handler(event(7, width), false, { replayer: h.replayer })
    h.plugin.handler(event(8), false, { replayer: h.replayer })
    // One decode in flight per canvas; another canvas decodes beside it.
    expect(h.decodes).toHaveLength(2)
    h.decodes[0]!.resolve()
    await h.settle()
    expect(h.decodes).toHaveLength(3)
    expect(await widthOf(h.decodes[2]!.blob)).toBe(6)
    h.decodes[1]!.resolve()
    h.decodes[2]!.resolve()
    await h.settle()
    expect(h.drawn).toEqual([
      { canvas: 'seven', image: 'image/png#0' },
      { canvas: 'eight', image: 'image/png#1' },
      { canvas: 'seven', image: 'image/png#2' },
    ])
    expect(h.decodes).toHaveLength(3)
    // Idle again: the next frame decodes at once.
    h.plugin.handler(event(7), false, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(4)
  })

  it('refuses a frame more than twice its canvas on a side without decoding it', () => {
    const h = harness()
    h.plugin.handler(event(7, 21), false, { replayer: h.replayer })
    h.plugin.handler(frameEvent(b64(png(4, 21)), 'image/png', 7) as never, false, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(0)
    h.plugin.handler(event(7, 20), false, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(1)
  })

  it('while seeking keeps only the last frame of each canvas and draws it when rrweb flushes', async () => {
    const h = harness()
    for (let i = 0; i < 50; i++) h.plugin.handler(event(7, (i % 10) + 1), true, { replayer: h.replayer })
    h.plugin.handler(event(8), true, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(0)
    expect(h.flushes).toHaveLength(1)
    h.flushes[0]!()
    expect(h.decodes).toHaveLength(2)
    for (const decode of h.decodes) decode.resolve()
    await h.settle()
    expect(h.drawn.map((d) => d.canvas).sort()).toEqual(['eight', 'seven'])
    h.flushes[0]!()
    expect(h.decodes).toHaveLength(2)
  })

  it('ignores events that are not valid frames', () => {
    const h = harness()
    const hostile = frameEvent('A'.repeat(MAX_FRAME_BASE64_CHARS + 4), 'image/png') as unknown as Parameters<
      ReturnType<typeof canvasReplayPlugin>['handler']
    >[0]
    h.plugin.handler(hostile, false, { replayer: h.replayer })
    h.plugin.handler(frameEvent(b64(png(2, 2)), 'text/html') as never, false, { replayer: h.replayer })
    expect(h.decodes).toHaveLength(0)
  })
})

describe('canvasReplayPlugin across many canvases', () => {
  it('decodes at most MAX_DECODES frames at once and draws on canvases only within the pixel budget', async () => {
    const drawnOn = new Set<number>()
    const nodes = new Map<number, unknown>()
    const canvas = (id: number, width: number, height: number) => ({
      nodeName: 'CANVAS',
      width,
      height,
      getContext: () => ({ clearRect: () => {}, drawImage: () => drawnOn.add(id) }),
    })
    for (let id = 1; id <= 300; id++) nodes.set(id, canvas(id, 7680, 4320))
    nodes.set(301, canvas(301, 100, 100))
    const replayer: CanvasReplayer = {
      getMirror: () => ({ getNode: (id: number) => (nodes.get(id) as Node | undefined) ?? null }),
      on: () => {},
    }
    let inFlight = 0
    let most = 0
    const finish: (() => void)[] = []
    const skipped: { frames: number; canvases: number }[] = []
    const plugin = canvasReplayPlugin(
      () => {
        most = Math.max(most, ++inFlight)
        return new Promise<ImageBitmap>((resolve) =>
          finish.push(() => {
            inFlight--
            resolve({ close: () => {} } as unknown as ImageBitmap)
          }),
        )
      },
      undefined,
      (s) => skipped.push(s),
    )
    const frame = (id: number, width: number, height: number) =>
      frameEvent(b64(png(width, height)), 'image/png', id) as never
    // A forged recording: 300 8K canvases, two frames each as playback brings them.
    for (let round = 0; round < 2; round++)
      for (let id = 1; id <= 300; id++) plugin.handler(frame(id, 7680, 4320), false, { replayer })
    while (finish.length > 0) {
      finish.shift()!()
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    expect(most).toBe(MAX_DECODES)
    // Two 8K canvases fill the budget: each drew its newest frame after its first.
    expect(REPLAY_PIXEL_BUDGET).toBe(2 * 7680 * 4320)
    expect([...drawnOn].sort((a, b) => a - b)).toEqual([1, 2])
    // The others waited for a slot, then only their newest frame was counted, never decoded.
    expect(skipped.at(-1)).toEqual({ frames: 298, canvases: 298 })
    // Once spent, the budget holds for a small canvas too.
    plugin.handler(frame(301, 100, 100), false, { replayer })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(finish).toHaveLength(0)
    expect(skipped.at(-1)).toEqual({ frames: 299, canvases: 299 })
  })
})
