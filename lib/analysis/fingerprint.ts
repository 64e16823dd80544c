/**
 * Fingerprints (docs/design/analysis.md §4.4): `sha256("v1|" + kind + "|" + parts.join("|"))`. The parts
 * are chosen per kind so that the same problem in another session — short or long, another
 * build, other ids — hashes the same, and a different problem does not.
 */
import { createHash } from 'node:crypto'
import { normaliseLabel, normaliseMessage, splitErrorType } from './normalize'
import { type Frame, normaliseFilePath, topInAppFrame } from './stack'
import type { FindingKind } from './types'

// Repeated occurrences hash the same string again; a small cache keeps that off the hot path.
const cache = new Map<string, string>()
const CACHE_LIMIT = 2048

export function fingerprint(kind: FindingKind, parts: readonly string[]): string {
  const input = `v1|${kind}|${parts.join('|')}`
  let hash = cache.get(input)
  if (hash === undefined) {
    hash = createHash('sha256').update(input).digest('hex')
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(input, hash)
  }
  return hash
}

/** Error type + normalised message + top in-app frame, or the page pattern without a stack. */
export function jsErrorParts(
  message: string,
  frames: Frame[],
  pageUrl: string,
  pagePattern: string,
): string[] {
  const { type, message: text } = splitErrorType(message)
  const top = topInAppFrame(frames, pageUrl)
  const where = top ? `${top.fn || '<anonymous>'} ${normaliseFilePath(top.url)}` : pagePattern
  return [type, normaliseMessage(text), where]
}

export function consoleErrorParts(firstArg: string, pagePattern: string): string[] {
  return [normaliseMessage(firstArg), pagePattern]
}

export type StatusClass = '5xx' | 'failed' | string

export function statusClass(status: number): StatusClass {
  if (status >= 500) return '5xx'
  if (status === 0) return 'failed'
  return String(status)
}

/** Method, host + path pattern (no query) and status class of a failed request. */
export function networkParts(method: string, host: string, pattern: string, status: number): string[] {
  return [method.toUpperCase(), `${host.toLowerCase()}${pattern}`, statusClass(status)]
}

export function clickParts(pagePattern: string, stableSelector: string, text: string): string[] {
  return [pagePattern, stableSelector, normaliseLabel(text)]
}
