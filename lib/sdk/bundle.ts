import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** The recorder's script tag build, as `scripts/build-sdk.mjs` writes it. */
export const SDK_BUNDLE_PATH = path.join('sdk', 'dist', 'sdk.js')

export interface SdkBundle {
  body: Uint8Array<ArrayBuffer>
  /** Strong validator from the content, so every server instance answers the same. */
  etag: string
}

let cached: { mtimeMs: number; bundle: SdkBundle } | undefined

/**
 * The built `sdk.js`, read from disk once and kept; read again only when the file changes
 * (a rebuild while `next dev` runs). Null when it was never built.
 */
export function readSdkBundle(cwd: string = process.cwd()): SdkBundle | null {
  const file = path.join(cwd, SDK_BUNDLE_PATH)
  let mtimeMs: number
  try {
    mtimeMs = statSync(file).mtimeMs
  } catch {
    return null
  }
  if (cached?.mtimeMs === mtimeMs) return cached.bundle
  const bytes = readFileSync(file)
  const body = new Uint8Array(bytes.byteLength)
  body.set(bytes)
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
  cached = { mtimeMs, bundle: { body, etag } }
  return cached.bundle
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current entity. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare)
}
