/**
 * Canvas image frames in a recording, read for the dashboard's replay (docs/recorder.md#canvas-and-iframes).
 *
 * With `recordCanvas` the recorder has rrweb snapshot every canvas `fps` times a second and
 * emit each changed picture as a CanvasMutation event: `clearRect(0, 0, w, h)` then
 * `drawImage(ImageBitmap(Blob([ArrayBuffer(base64)], type)), 0, 0)`. Every recording is
 * written by whoever holds the public ingest key, so this reads exactly that shape and nothing
 * else, bounds the base64 before decoding it, accepts only the image types a canvas encodes to
 * (WebP, and PNG where the browser cannot encode WebP), checks the bytes are that type, and
 * reads the picture's size from its header so that no decoder is handed a picture too large
 * to hold in memory. Pure: no DOM, so it runs in Node tests.
 */

const INCREMENTAL_SNAPSHOT = 3
const CANVAS_MUTATION = 9

/** A batch is at most 10 MiB of JSON (lib/ingest/limits.ts); one frame stays well below it. */
export const MAX_FRAME_BASE64_CHARS = 8 * 1024 * 1024
/** Larger than any canvas a browser allows on one side. */
export const MAX_FRAME_SIDE = 16_384
/** 8K UHD; a decoded frame holds 4 bytes a pixel, so this caps one frame near 135 MB. */
export const MAX_FRAME_PIXELS = 7_680 * 4_320

export type CanvasFrameType = 'image/webp' | 'image/png'

export interface CanvasFrame {
  /** The canvas's node id in the recording. */
  id: number
  type: CanvasFrameType
  bytes: Uint8Array<ArrayBuffer>
  width: number
  height: number
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The one element of an array of exactly one, else undefined. */
function only(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? value[0] : undefined
}

/** The base64 text and declared type of a `drawImage` command's ImageBitmap argument. */
function imageOf(command: unknown): { base64: string; type: string } | null {
  if (!isObject(command) || command.property !== 'drawImage' || !Array.isArray(command.args)) return null
  const bitmap = command.args[0]
  if (!isObject(bitmap) || bitmap.rr_type !== 'ImageBitmap') return null
  const blob = only(bitmap.args)
  if (!isObject(blob) || blob.rr_type !== 'Blob' || typeof blob.type !== 'string') return null
  const buffer = only(blob.data)
  if (!isObject(buffer) || buffer.rr_type !== 'ArrayBuffer' || typeof buffer.base64 !== 'string') return null
  return { base64: buffer.base64, type: blob.type }
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const BASE64_VALUES = (() => {
  const table = new Int16Array(128).fill(-1)
  for (let i = 0; i < BASE64.length; i++) table[BASE64.charCodeAt(i)] = i
  return table
})()

/** Strict standard base64 (padding required, no whitespace); null on any other character. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length === 0 || text.length % 4 !== 0) return null
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  const out = new Uint8Array((text.length / 4) * 3 - padding)
  let o = 0
  for (let i = 0; i < text.length; i += 4) {
    let quad = 0
    for (let j = 0; j < 4; j++) {
      const code = text.charCodeAt(i + j)
      const last = i + 4 === text.length
      if (code === 61 /* = */ && last && j >= 4 - padding) {
        quad <<= 6
        continue
      }
      const value = code < 128 ? BASE64_VALUES[code]! : -1
      if (value < 0) return null
      quad = (quad << 6) | value
    }
    out[o++] = (quad >> 16) & 0xff
    if (o < out.length) out[o++] = (quad >> 8) & 0xff
    if (o < out.length) out[o++] = quad & 0xff
  }
  return out
}

const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
const u32be = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!)
const ascii = (b: Uint8Array, at: number, text: string) => {
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false
  return true
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Width and height from a PNG's IHDR chunk, which must come first. */
function pngSize(b: Uint8Array): { width: number; height: number } | null {
  if (b.length < 24 || PNG_SIGNATURE.some((byte, i) => b[i] !== byte) || !ascii(b, 12, 'IHDR')) return null
  return { width: u32be(b, 16), height: u32be(b, 20) }
}

/** Width and height from a WebP's first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X). */
function webpSize(b: Uint8Array): { width: number; height: number } | null {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return null
  if (ascii(b, 12, 'VP8 ')) {
    // Key frame start code, then 14-bit dimensions (the top two bits are scaling).
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff }
  }
  if (ascii(b, 12, 'VP8L')) {
    if (b[20] !== 0x2f) return null
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (ascii(b, 12, 'VP8X')) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 }
  return null
}

/** The picture's size when the bytes are the declared type, else null. */
export function imageSize(
  bytes: Uint8Array,
  type: CanvasFrameType,
): { width: number; height: number } | null {
  return type === 'image/png' ? pngSize(bytes) : webpSize(bytes)
}

/**
 * The image frame an event carries, or null when it is not one of ours, or is malformed,
 * too large, not an image or not the type it says.
 */
export function canvasFrameOf(event: unknown): CanvasFrame | null {
  if (!isObject(event) || event.type !== INCREMENTAL_SNAPSHOT) return null
  const data = event.data
  if (!isObject(data) || data.source !== CANVAS_MUTATION) return null
  const id = data.id
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return null
  // rrweb's frame is [clearRect, drawImage]; command lists from `sampling: 'all'` are not frames.
  const commands = data.commands
  if (!Array.isArray(commands) || commands.length !== 2) return null
  const image = imageOf(commands[1])
  if (!image) return null
  if (image.type !== 'image/webp' && image.type !== 'image/png') return null
  if (image.base64.length > MAX_FRAME_BASE64_CHARS) return null
  const bytes = decodeBase64(image.base64)
  if (!bytes) return null
  const size = imageSize(bytes, image.type)
  if (!size || size.width < 1 || size.height < 1) return null
  if (size.width > MAX_FRAME_SIDE || size.height > MAX_FRAME_SIDE) return null
  if (size.width * size.height > MAX_FRAME_PIXELS) return null
  return { id, type: image.type, bytes, ...size }
}
