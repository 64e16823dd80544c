/**
 * Turns minified stack positions into original ones through parsed source maps
 * (docs/source-maps.md, "Symbolication"). Pure: the maps are parsed and cached elsewhere
 * (parse-map.ts, map-cache.ts); this runs in the analysis worker.
 */
import { traceSegment } from '@jridgewell/trace-mapping'
import { clip } from '../analysis/bounds'
import {
  frameKey,
  type MinifiedFrame,
  type OriginalFrame,
  type SourceContext,
  type SymbolicatedFrame,
} from '../analysis/frames'
import { enclosingFunctionName, NAME_SCAN_CHARS, NAME_SCAN_LINES } from './function-name'
import type { ParsedMap } from './parse-map'

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

/** Longest original function name and file name kept: what a real build names stays far below. */
const MAX_ORIGINAL_NAME_CHARS = 200
const MAX_ORIGINAL_SOURCE_CHARS = 500

function cutOrNull(value: string | null | undefined, max: number): string | null {
  return value ? clip(value, max) : null
}

/** What a caller's call site says of its callee: the name written there, in its original source. */
interface CallSite {
  name: string
  source: string
}

/** A frame resolved through its own map, before its callers' call sites may name it. */
interface OwnResolution {
  frame: SymbolicatedFrame
  /** The original source it maps into (uncut), compared with the callers' sources. */
  source: string
  /** The enclosing function's name read from the source, and the mapping's own name. */
  scanned: string | null
  named: string | null
}

function callSite(map: MapState, frame: MinifiedFrame): CallSite | null {
  if ('failed' in map) return null
  const position = originalPosition(map, frame)
  if (!position?.name) return null
  return { name: position.name, source: map.trace.resolvedSources[position.source] ?? '' }
}

function resolveOwn(frame: MinifiedFrame, map: MapState): OwnResolution {
  const unresolved = { source: '', scanned: null, named: null }
  if ('failed' in map) return { frame: { minified: frame, original: null, status: 'failed' }, ...unresolved }
  const position = originalPosition(map, frame)
  if (!position) return { frame: { minified: frame, original: null, status: 'no_mapping' }, ...unresolved }
  const source = map.trace.resolvedSources[position.source] ?? ''
  const content = sourceContent(map, position.source)
  const starts = content === null ? null : lineStarts(map, position.source, content)
  const original: OriginalFrame = {
    fn: null,
    source: clip(source, MAX_ORIGINAL_SOURCE_CHARS),
    line: position.line + 1,
    column: position.column + 1,
    context: content !== null && starts ? contextOf(content, starts, position.line, position.column) : null,
  }
  return {
    frame: { minified: frame, original, status: 'mapped' },
    source,
    scanned: content !== null && starts ? scannedName(content, starts, position.line, position.column) : null,
    named: position.name,
  }
}

/** The frame with its function name: read from the source, else the first call site in the same source, else the mapping's. */
function withName(own: OwnResolution, callSites: (CallSite | null)[]): SymbolicatedFrame {
  const { frame } = own
  if (!frame.original) return frame
  const caller = callSites.find((site) => site !== null && site.source === own.source)?.name ?? null
  return {
    ...frame,
    original: {
      ...frame.original,
      fn: cutOrNull(own.scanned ?? caller ?? own.named, MAX_ORIGINAL_NAME_CHARS),
    },
  }
}

/**
 * One frame's original position, source context and function name. The name is, in order:
 * the nearest enclosing named function in the original source; the name the caller's call
 * site records (the next frame down, when it maps into the same original source: a call
 * expression names its callee as written); the name the map records at the position itself
 * (often the token that threw); else null. The scan comes first because it depends on the
 * frame's own position only: the name goes into the error's fingerprint, and a function
 * called through an alias in one session must not be named after the alias there.
 *
 * Names and sources come from an uploaded map and are cut to bounds: they travel into
 * memoized step results, evidence, texts and model prompts.
 */
export function symbolicateFrame(input: FrameInput): SymbolicatedFrame {
  return withName(
    resolveOwn(input.frame, input.map),
    input.callers.map((caller) => callSite(caller.map, caller.frame)),
  )
}

/** A frame to resolve as the server thread sends it to the worker: maps named by blob key. */
export interface FrameLookup {
  frame: MinifiedFrame
  mapKey: string
  callers: { frame: MinifiedFrame; mapKey: string }[]
}

/**
 * Resolves lookups one map at a time (docs/source-maps.md, "Memory"): each map is `apply`-ed
 * once, to every frame and call site that needs it, and can be dropped before the next is
 * parsed. Between maps only the small per-frame answers are kept, never a map, so the memory
 * a symbolication holds does not grow with the number of maps it reads.
 */
export class LookupResolver {
  private readonly own: (OwnResolution | undefined)[] = []
  private readonly sites: (CallSite | null)[][]
  /** For each map, the lookups it resolves and the call sites ([lookup, caller]) it reads. */
  private readonly uses = new Map<string, { frames: number[]; callers: [number, number][] }>()

  constructor(private readonly lookups: FrameLookup[]) {
    this.sites = lookups.map((lookup) => lookup.callers.map(() => null))
    const use = (key: string) => {
      let entry = this.uses.get(key)
      if (!entry) {
        entry = { frames: [], callers: [] }
        this.uses.set(key, entry)
      }
      return entry
    }
    lookups.forEach((lookup, i) => {
      use(lookup.mapKey).frames.push(i)
      lookup.callers.forEach((caller, j) => {
        use(caller.mapKey).callers.push([i, j])
      })
    })
  }

  /** The maps the lookups need, in the order they first name them. */
  get mapKeys(): string[] {
    return [...this.uses.keys()]
  }

  /**
   * Resolves with one map everything that needs it. What is kept is cloned: a context line or
   * a name is a slice of the map's sourcesContent, and a slice keeps the whole source alive.
   */
  apply(blobKey: string, map: MapState): void {
    const uses = this.uses.get(blobKey)
    if (!uses) return
    for (const i of uses.frames) this.own[i] = structuredClone(resolveOwn(this.lookups[i]!.frame, map))
    for (const [i, j] of uses.callers)
      this.sites[i]![j] = structuredClone(callSite(map, this.lookups[i]!.callers[j]!.frame))
  }

  /** Every lookup's frame, by frameKey; a frame whose map was never applied is `failed`. */
  result(): Record<string, SymbolicatedFrame> {
    const frames: Record<string, SymbolicatedFrame> = {}
    this.lookups.forEach((lookup, i) => {
      const own = this.own[i] ?? resolveOwn(lookup.frame, { failed: 'the map was not sent' })
      frames[frameKey(lookup.frame)] = withName(own, this.sites[i]!)
    })
    return frames
  }
}
