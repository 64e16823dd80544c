import { createGunzip, createInflate } from 'node:zlib'
import { MalformedBodyError, PayloadTooLargeError, UnsupportedMediaTypeError } from '@/lib/errors'
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
export async function readBody(req: Request, limits: BodyLimits): Promise<Buffer> {
  const encoding = (req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase()
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate')
    throw new UnsupportedMediaTypeError(`Unsupported Content-Encoding: ${encoding} (use gzip or none)`)
  const wireCap = encoding === 'identity' ? limits.maxDecodedBytes : limits.maxWireBytes
  const declared = Number(req.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > wireCap) throw new PayloadTooLargeError(limits.tooLargeMessage)
  if (!req.body) return Buffer.alloc(0)
  const wire = await readWithin(req.body, wireCap, limits.tooLargeMessage)
  if (encoding === 'identity') return wire
  return decode(wire, encoding, limits.maxDecodedBytes, limits.tooLargeMessage)
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
    return await new Response(new Uint8Array(bytes), { headers: { 'content-type': type } }).formData()
  } catch {
    throw new MalformedBodyError('Request body is not valid multipart/form-data')
  }
}
