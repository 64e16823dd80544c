import type { Readable } from 'node:stream'
import { createGunzip, createInflate } from 'node:zlib'
import { MalformedBodyError, PayloadTooLargeError, UnsupportedMediaTypeError } from '@/lib/errors'
import type { HeaderReader } from '@/lib/ratelimit/client-address'
import { readCapped } from '@/lib/storage/read-capped'

export interface BodyLimits {
  /** Compressed bytes on the wire when Content-Encoding is set. */
  maxWireBytes: number
  /** Bytes after decompression: what a zip bomb would inflate. */
  maxDecodedBytes: number
  tooLargeMessage: string
}

async function readWithin(stream: ReadableStream<Uint8Array>, max: number, message: string): Promise<Buffer> {
  const bytes = await readCapped(stream, max)
  if (!bytes) throw new PayloadTooLargeError(message)
  return bytes
}

function decode(
  compressed: Buffer,
  encoding: 'gzip' | 'deflate',
  max: number,
  message: string,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxOutputLength is not enough on its own for streams; count as we go and stop early.
    const inflater = encoding === 'gzip' ? createGunzip() : createInflate()
    const chunks: Buffer[] = []
    let total = 0
    inflater.on('data', (chunk: Buffer) => {
      total += chunk.byteLength
      if (total > max) {
        inflater.destroy()
        reject(new PayloadTooLargeError(message))
        return
      }
      chunks.push(chunk)
    })
    inflater.on('error', () => reject(new MalformedBodyError(`Request body is not valid ${encoding} data`)))
    inflater.on('end', () => resolve(Buffer.concat(chunks, total)))
    inflater.end(compressed)
  })
}

/**
 * Reads a request body within size limits, undoing `Content-Encoding: gzip|deflate`. A
 * declared Content-Length over the limit is refused before anything is read.
 */
export function readBody(req: Request, limits: BodyLimits): Promise<Buffer> {
  const { body } = req
  return readEncodedBody(req.headers, limits, (max) =>
    body ? readWithin(body, max, limits.tooLargeMessage) : Promise.resolve(Buffer.alloc(0)),
  )
}

/** readBody for Node's own request stream (a Pages Router API route with its body parser off). */
export function readNodeBody(stream: Readable, headers: HeaderReader, limits: BodyLimits): Promise<Buffer> {
  return readEncodedBody(headers, limits, (max) => readNodeWithin(stream, max, limits.tooLargeMessage))
}

async function readEncodedBody(
  headers: HeaderReader,
  limits: BodyLimits,
  readWire: (max: number) => Promise<Buffer>,
): Promise<Buffer> {
  const encoding = (headers.get('content-encoding') ?? 'identity').trim().toLowerCase()
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate')
    throw new UnsupportedMediaTypeError(`Unsupported Content-Encoding: ${encoding} (use gzip or none)`)
  const wireCap = encoding === 'identity' ? limits.maxDecodedBytes : limits.maxWireBytes
  const declared = Number(headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > wireCap) throw new PayloadTooLargeError(limits.tooLargeMessage)
  const wire = await readWire(wireCap)
  if (encoding === 'identity') return wire
  return decode(wire, encoding, limits.maxDecodedBytes, limits.tooLargeMessage)
}

/**
 * A Node stream read whole but never past `max` bytes. Past it, reading stops and the rest is
 * left unread (the answer closes the connection); a stream that fails (the client went away)
 * rejects with its error.
 */
function readNodeWithin(stream: Readable, max: number, message: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const finish = (settle: () => void) => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
      settle()
    }
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength
      if (total > max) {
        stream.pause()
        finish(() => reject(new PayloadTooLargeError(message)))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks, total)))
    const onError = (error: Error) => finish(() => reject(error))
    const onClose = () => finish(() => reject(new Error('the request closed before its body ended')))
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
  })
}

/**
 * A multipart/form-data body, read within `limits` (readBody) before anything parses it:
 * undici's parser then works on bytes already counted, never on the open stream.
 */
export async function readForm(req: Request, limits: BodyLimits): Promise<FormData> {
  const type = req.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data;/i.test(type.trim()))
    throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data')
  const bytes = await readBody(req, limits)
  try {
    // A view, not a copy: the body can be 50 MB (a source map upload).
    const view = new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength)
    return await new Response(view, { headers: { 'content-type': type } }).formData()
  } catch {
    throw new MalformedBodyError('Request body is not valid multipart/form-data')
  }
}
