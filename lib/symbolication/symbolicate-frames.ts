/**
 * Turns minified stack positions into original ones through parsed source maps
 * (docs/source-maps.md, "Symbolication"). Pure: the maps are parsed and cached elsewhere
 * (parse-map.ts, map-cache.ts); this runs in the analysis worker.
 */
import { traceSegment } from '@jridgewell/trace-mapping'
import { enclosingFunctionName, NAME_SCAN_CHARS, NAME_SCAN_LINES } from './function-name'
import type { ParsedMap } from './parse-map'
import {
  frameKey,
  type MinifiedFrame,
  type OriginalFrame,
  type SourceContext,
  type SymbolicatedFrame,
} from './types'

/** Lines of context on each side of a frame's line. */
export const CONTEXT_LINES = 5
/** Characters kept of a context line: a minified one-line source never floods evidence. */
export const CONTEXT_LINE_CHARS = 300

/** A frame's map: parsed, or the reason it could not be (its frames are `failed`). */
export type MapState = ParsedMap | { failed: string }

/** One frame to resolve, the map of its file, and the frames that called it in some stack. */
export interface FrameInput {
  frame: MinifiedFrame
  map: MapState
  /** The next frame down each stack this frame is in, with its map; a few at most. */
  callers: { frame: MinifiedFrame; map: MapState }[]
}

interface Position {
  /** Index in the map's sources. */
  source: number
  /** 0-based, as the map records them. */
  line: number
  column: number
  name: string | null
}

function isIndex(value: number | undefined, length: number): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 && value < length
}

/**
 * The original position a 1-based V8 frame position maps to. trace-mapping counts generated
 * lines from 0 here (traceSegment) and columns from 0 everywhere, so both lose one. A map's
 * segment is used only when every index in it is in range: a hostile map can hold any number.
 */
function originalPosition(parsed: ParsedMap, frame: MinifiedFrame): Position | null {
  const { line, column } = frame
  if (!Number.isSafeInteger(line) || !Number.isSafeInteger(column) || line < 1 || column < 1) return null
  const segment = traceSegment(parsed.trace, line - 1, column - 1)
  if (!segment || segment.length === 1) return null
  const [, source, sourceLine, sourceColumn] = segment
  const { resolvedSources, names } = parsed.trace
  if (!isIndex(source, resolvedSources.length)) return null
  if (!isIndex(sourceLine, Number.MAX_SAFE_INTEGER) || !isIndex(sourceColumn, Number.MAX_SAFE_INTEGER))
    return null
  const nameIndex = segment.length === 5 ? segment[4] : undefined
  const name = isIndex(nameIndex, names.length) ? (names[nameIndex] ?? null) : null
  return { source, line: sourceLine, column: sourceColumn, name: name || null }
}

function sourceContent(parsed: ParsedMap, source: number): string | null {
  const content = parsed.trace.sourcesContent?.[source]
  return typeof content === 'string' ? content : null
}

/** Offsets where each line of `content` starts (after `\n`, `\r\n` or `\r`), cached per source. */
function lineStarts(parsed: ParsedMap, source: number, content: string): Uint32Array {
  const cached = parsed.lineStarts.get(source)
  if (cached) return cached
  const starts = [0]
  for (let i = 0; i < content.length; i++) {
    const code = content.charCodeAt(i)
    if (code === 10 || (code === 13 && content.charCodeAt(i + 1) !== 10)) starts.push(i + 1)
  }
  // A final line break ends the last line; it does not start an empty one.
  if (starts.length > 1 && starts.at(-1) === content.length) starts.pop()
  const array = Uint32Array.from(starts)
  parsed.lineStarts.set(source, array)
  return array
}

function lineText(content: string, starts: Uint32Array, line: number): string {
  const from = starts[line]!
  let to = line + 1 < starts.length ? starts[line + 1]! : content.length
  while (to > from && (content.charCodeAt(to - 1) === 10 || content.charCodeAt(to - 1) === 13)) to--
  return content.slice(from, Math.min(to, from + 1_000_000))
}

function cut(text: string): string {
  return text.length > CONTEXT_LINE_CHARS ? text.slice(0, CONTEXT_LINE_CHARS) : text
}

/** The frame's own line, cut around its column when too long (one-line sources). */
function cutAround(text: string, column: number): string {
  if (text.length <= CONTEXT_LINE_CHARS) return text
  const from = Math.max(0, Math.min(column - CONTEXT_LINE_CHARS / 2, text.length - CONTEXT_LINE_CHARS))
  return text.slice(from, from + CONTEXT_LINE_CHARS)
}

function contextOf(content: string, starts: Uint32Array, line: number, column: number): SourceContext | null {
  if (line >= starts.length) return null
  const pre: string[] = []
  for (let l = Math.max(0, line - CONTEXT_LINES); l < line; l++) pre.push(cut(lineText(content, starts, l)))
  const post: string[] = []
  for (let l = line + 1; l < Math.min(starts.length, line + 1 + CONTEXT_LINES); l++)
    post.push(cut(lineText(content, starts, l)))
  return { pre, line: cutAround(lineText(content, starts, line), column), post }
}

/** The function the position is written in, read from the source (function-name.ts). */
function scannedName(content: string, starts: Uint32Array, line: number, column: number): string | null {
  if (line >= starts.length) return null
  const end = Math.min(content.length, starts[line]! + column)
  let start = starts[Math.max(0, line - NAME_SCAN_LINES)]!
  if (end - start > NAME_SCAN_CHARS) {
    // From the first line that starts inside the window (a scan begun mid-line may begin in a
    // string), or mid-line when the position's own line is longer than the window.
    const limit = end - NAME_SCAN_CHARS
    let l = line
    while (l > 0 && starts[l - 1]! >= limit) l--
    start = Math.max(starts[l]!, limit)
  }
  return enclosingFunctionName(content, start, end)
}

/** The callee's name at a caller's call site, when it is written in the same original source. */
function callerName(input: FrameInput, source: string): string | null {
  for (const caller of input.callers) {
    if ('failed' in caller.map) continue
    const position = originalPosition(caller.map, caller.frame)
    if (position?.name && caller.map.trace.resolvedSources[position.source] === source) return position.name
  }
  return null
}

/**
 * One frame's original position, source context and function name. The name is, in order:
 * the name the caller's call site records (the next frame down, when it maps into the same
 * source: a call expression names its callee as written); the nearest enclosing named
 * function in the original source; the name the map records at the position itself (often
 * the token that threw); else null.
 */
export function symbolicateFrame(input: FrameInput): SymbolicatedFrame {
  const { frame, map } = input
  if ('failed' in map) return { minified: frame, original: null, status: 'failed' }
  const position = originalPosition(map, frame)
  if (!position) return { minified: frame, original: null, status: 'no_mapping' }
  const source = map.trace.resolvedSources[position.source] ?? ''
  const content = sourceContent(map, position.source)
  const starts = content === null ? null : lineStarts(map, position.source, content)
  const original: OriginalFrame = {
    fn:
      callerName(input, source) ??
      (content !== null && starts ? scannedName(content, starts, position.line, position.column) : null) ??
      position.name,
    source,
    line: position.line + 1,
    column: position.column + 1,
    context: content !== null && starts ? contextOf(content, starts, position.line, position.column) : null,
  }
  return { minified: frame, original, status: 'mapped' }
}

/** A frame to resolve as the server thread sends it to the worker: maps named by blob key. */
export interface FrameLookup {
  frame: MinifiedFrame
  mapKey: string
  callers: { frame: MinifiedFrame; mapKey: string }[]
}

/** Resolves each lookup with the maps `mapFor` gives, by frameKey. */
export function symbolicateLookups(
  lookups: FrameLookup[],
  mapFor: (blobKey: string) => MapState,
): Record<string, SymbolicatedFrame> {
  const frames: Record<string, SymbolicatedFrame> = {}
  for (const lookup of lookups) {
    frames[frameKey(lookup.frame)] = symbolicateFrame({
      frame: lookup.frame,
      map: mapFor(lookup.mapKey),
      callers: lookup.callers.map((caller) => ({ frame: caller.frame, map: mapFor(caller.mapKey) })),
    })
  }
  return frames
}
