import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { InvalidInputError, PayloadTooLargeError } from '@/lib/errors'
import { isStorableText } from '@/lib/validation'
import { REQUEST_TOO_LARGE, SOURCEMAP_LIMITS, TOO_MANY_FILES } from './limits'

const gunzipAsync = promisify(gunzip)
const MB = 1024 * 1024

/** One file part as a surface hands it over: the relative path it was sent as, and its bytes. */
export interface UploadPart {
  name: string
  bytes: Uint8Array
}

/** A part after its path was checked and a `.gz` part decompressed. */
export interface UploadFile {
  path: string
  bytes: Buffer
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true
  return false
}

const FILE_TOO_LARGE = `at most ${SOURCEMAP_LIMITS.maxFileBytes / MB} MB per file (uncompressed)`

/**
 * The path a part was sent as, cleaned to the relative form stored in addresses. Refused when
 * it could not be a file of a site: empty, absolute on Windows, `.`/`..` or empty segments.
 */
export function uploadPath(name: string): string {
  const trimmed = name.replace(/^(?:\.\/)+/, '').replace(/^\/+/, '')
  const shown = JSON.stringify(name.slice(0, 120))
  if (trimmed === '')
    throw new InvalidInputError('Every file part needs a filename: its path, such as assets/app.js')
  if (name.length > SOURCEMAP_LIMITS.maxPathLength)
    throw new InvalidInputError(
      `File name ${shown} is longer than ${SOURCEMAP_LIMITS.maxPathLength} characters`,
    )
  if (!isStorableText(trimmed) || trimmed.includes('\\') || hasControlCharacter(trimmed))
    throw new InvalidInputError(`File name ${shown} must not contain backslashes or control characters`)
  if (trimmed.split('/').some((s) => s === '' || s === '.' || s === '..'))
    throw new InvalidInputError(`File name ${shown} must be a relative path without empty, . or .. segments`)
  return trimmed
}

/**
 * Checks the count and every size, then undoes `.gz`: each within the per-file limit (zlib's
 * maxOutputLength stops a bomb as soon as it passes it) and all of them together within the
 * request's. Decompression runs on libuv's pool, not the request thread.
 */
export async function readUploadFiles(parts: UploadPart[]): Promise<UploadFile[]> {
  if (parts.length === 0)
    throw new InvalidInputError('No files: send each map and minified file as a file part named by its path')
  if (parts.length > SOURCEMAP_LIMITS.maxFiles) throw new InvalidInputError(TOO_MANY_FILES)
  let total = 0
  const files: UploadFile[] = []
  const seen = new Set<string>()
  for (const part of parts) {
    const gzipped = part.name.toLowerCase().endsWith('.gz')
    const path = uploadPath(gzipped ? part.name.slice(0, -3) : part.name)
    if (seen.has(path)) throw new InvalidInputError(`${path} was sent more than once`)
    seen.add(path)
    if (part.bytes.byteLength > SOURCEMAP_LIMITS.maxFileBytes)
      throw new PayloadTooLargeError(`${path}: ${FILE_TOO_LARGE}`)
    let bytes = Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.byteLength)
    if (gzipped) {
      const room = Math.min(SOURCEMAP_LIMITS.maxFileBytes, SOURCEMAP_LIMITS.maxRequestBytes - total)
      try {
        bytes = await gunzipAsync(bytes, { maxOutputLength: Math.max(room, 1) })
      } catch (error) {
        if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          throw new PayloadTooLargeError(
            room < SOURCEMAP_LIMITS.maxFileBytes ? REQUEST_TOO_LARGE : `${path}: ${FILE_TOO_LARGE}`,
          )
        throw new InvalidInputError(`${part.name.slice(0, 120)} is not valid gzip data`)
      }
    }
    total += bytes.byteLength
    if (total > SOURCEMAP_LIMITS.maxRequestBytes) throw new PayloadTooLargeError(REQUEST_TOO_LARGE)
    files.push({ path, bytes })
  }
  return files
}
