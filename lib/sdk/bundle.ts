import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** The recorder's script tag files, as `scripts/build-sdk.mjs` writes them, served from the app's root. */
export const SDK_SCRIPTS = ['sdk.js', 'sdk-network.js'] as const
export type SdkScript = (typeof SDK_SCRIPTS)[number]
/** The recorder as an npm package (scripts/sdk-package.mjs), served at `/sdk.tgz`. */
export const SDK_PACKAGE = 'sdk.tgz'
/** What `scripts/build-sdk.mjs` writes to sdk/dist that the app serves. */
export type SdkFile = SdkScript | typeof SDK_PACKAGE

/** The recorder's script tag build. */
export const SDK_BUNDLE_PATH = path.join('sdk', 'dist', 'sdk.js')

export interface SdkBundle {
  body: Uint8Array<ArrayBuffer>
  /** Strong validator from the content, so every server instance answers the same. */
  etag: string
}

const cached = new Map<string, { mtimeMs: number; bundle: SdkBundle }>()

/**
 * A built file of the recorder (`sdk.js`, its network details part `sdk-network.js`, or the
 * package `sdk.tgz`), read from disk once and kept; read again only when the file changes (a
 * rebuild while `next dev` runs). Null when it was never built.
 */
export function readSdkScript(name: SdkFile, cwd: string = process.cwd()): SdkBundle | null {
  const file = path.join(cwd, 'sdk', 'dist', name)
  let mtimeMs: number
  try {
    mtimeMs = statSync(file).mtimeMs
  } catch {
    return null
  }
  const hit = cached.get(file)
  if (hit?.mtimeMs === mtimeMs) return hit.bundle
  const bytes = readFileSync(file)
  const body = new Uint8Array(bytes.byteLength)
  body.set(bytes)
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
  const bundle = { body, etag }
  cached.set(file, { mtimeMs, bundle })
  return bundle
}

/** The built `sdk.js`; see readSdkScript. */
export function readSdkBundle(cwd: string = process.cwd()): SdkBundle | null {
  return readSdkScript('sdk.js', cwd)
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current entity. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare)
}
