import type {
  MinifiedFrame,
  OriginalFrame,
  SourceContext,
  SymbolicatedEvidence,
  SymbolicatedFrame,
} from '@/lib/analysis/frames'
import { cutText as cut } from '@/lib/analysis/trail'

/**
 * The original frames of a js_error's evidence (`evidence.frames` and `evidence.release`,
 * lib/analysis/frames.ts), read defensively: the evidence is stored JSON, and every text in
 * it came from a replay (minified frames) or from a customer's source map (original names,
 * files and source lines). Anything malformed is left out rather than shown half-read; texts
 * are cut so one frame cannot fill a page or an agent's answer.
 */

/** Frames kept, as analysis stores them (top first). */
export const MAX_SHOWN_FRAMES = 20
const MAX_NAME = 200
const MAX_LOCATION = 500
const MAX_SOURCE_LINE = 300
const MAX_CONTEXT_LINES = 5

const STATUSES: readonly SymbolicatedFrame['status'][] = ['mapped', 'no_map', 'no_mapping', 'failed']

/** Why a frame is shown minified, in a reader's words. */
export const UNMAPPED_REASON: Record<Exclude<SymbolicatedFrame['status'], 'mapped'>, string> = {
  no_map: 'no source map for this file and release',
  no_mapping: 'the source map has nothing at this position',
  failed: 'the source map could not be read',
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const position = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

/** At most MAX_CONTEXT_LINES, nearest the frame's line: the last ones before it, the first after. */
function lines(value: unknown, nearest: 'last' | 'first'): string[] | null {
  if (!Array.isArray(value)) return null
  const kept = nearest === 'last' ? value.slice(-MAX_CONTEXT_LINES) : value.slice(0, MAX_CONTEXT_LINES)
  return kept.every((line) => typeof line === 'string')
    ? kept.map((line) => cut(line, MAX_SOURCE_LINE))
    : null
}

function contextOf(value: unknown): SourceContext | null {
  if (!isObject(value) || typeof value.line !== 'string') return null
  const pre = lines(value.pre, 'last')
  const post = lines(value.post, 'first')
  if (!pre || !post) return null
  return { pre, line: cut(value.line, MAX_SOURCE_LINE), post }
}

function minifiedOf(value: unknown): MinifiedFrame | null {
  if (!isObject(value) || typeof value.url !== 'string') return null
  const line = position(value.line)
  const column = position(value.column)
  if (line === null || column === null) return null
  return {
    fn: typeof value.fn === 'string' ? cut(value.fn, MAX_NAME) : '',
    url: cut(value.url, MAX_LOCATION),
    line,
    column,
  }
}

function originalOf(value: unknown): OriginalFrame | null {
  if (!isObject(value) || typeof value.source !== 'string') return null
  const line = position(value.line)
  const column = position(value.column)
  if (line === null || column === null) return null
  return {
    fn: typeof value.fn === 'string' ? cut(value.fn, MAX_NAME) : null,
    source: cut(value.source, MAX_LOCATION),
    line,
    column,
    context: contextOf(value.context),
  }
}

function frameOf(value: unknown): SymbolicatedFrame | null {
  if (!isObject(value)) return null
  const minified = minifiedOf(value.minified)
  const status = STATUSES.find((known) => known === value.status)
  if (!minified || !status) return null
  const original = status === 'mapped' ? originalOf(value.original) : null
  // A frame that says mapped without a readable original is shown as what it is: minified.
  return { minified, original, status: status === 'mapped' && !original ? 'failed' : status }
}

/** The evidence's symbolicated frames, or null when it has none (the page is then as before). */
export function symbolicatedFrames(evidence: Record<string, unknown> | null): SymbolicatedEvidence | null {
  if (!evidence || !Array.isArray(evidence.frames)) return null
  const frames = evidence.frames
    .slice(0, MAX_SHOWN_FRAMES)
    .map(frameOf)
    .filter((frame) => frame !== null)
  if (frames.length === 0) return null
  const release = typeof evidence.release === 'string' ? cut(evidence.release, MAX_NAME) : ''
  return { release, frames }
}

/** `at checkout (src/checkout.ts:12:5)`, as a V8 stack line names an original position. */
export function originalFrameLine(frame: OriginalFrame): string {
  const where = `${frame.source}:${frame.line}:${frame.column}`
  return frame.fn ? `at ${frame.fn} (${where})` : `at ${where}`
}

/** The minified frame as the browser printed it. */
export function minifiedFrameLine(frame: MinifiedFrame): string {
  const where = `${frame.url}:${frame.line}:${frame.column}`
  return frame.fn ? `at ${frame.fn} (${where})` : `at ${where}`
}
