/**
 * The contract between session analysis and symbolication (docs/source-maps.md). Analysis
 * reports the positions its error stacks name; symbolication turns each into a position in
 * the code our users wrote, through the source maps uploaded for the session's release; a
 * second analysis pass then groups, titles and describes errors by those original frames.
 * It lives here, in the analyser's folder, because the analyser reads it: symbolication
 * depends on analysis, never the other way.
 */

/** A stack frame as the browser wrote it, with its position (both 1-based, as V8 prints them). */
export interface MinifiedFrame {
  /** Function name as minified, '' when the frame had none. */
  fn: string
  /** The script's URL, without line and column. */
  url: string
  line: number
  column: number
}

/** A few lines of the original source around a frame, from the map's `sourcesContent`. */
export interface SourceContext {
  /** Lines before the frame's line, oldest first (at most 5). */
  pre: string[]
  line: string
  /** Lines after it (at most 5). */
  post: string[]
}

/** Where a minified frame comes from in the original source. */
export interface OriginalFrame {
  /** The original function name when the map records one; null when it does not. */
  fn: string | null
  /** The original file as the map names it (`src/checkout.ts`, `webpack://app/src/x.ts`). */
  source: string
  line: number
  column: number
  context: SourceContext | null
}

/** One frame of a stack, with what symbolication made of it. */
export interface SymbolicatedFrame {
  minified: MinifiedFrame
  original: OriginalFrame | null
  /**
   * `mapped`: found in a map; `no_map`: no map uploaded for its file and release;
   * `no_mapping`: the map has nothing at that position; `failed`: the map could not be read
   * or parsed, or the time budget ran out.
   */
  status: 'mapped' | 'no_map' | 'no_mapping' | 'failed'
}

/** Key of a frame's position in lookups: the same frame in two errors is resolved once. */
export function frameKey(frame: Pick<MinifiedFrame, 'url' | 'line' | 'column'>): string {
  return `${frame.line}:${frame.column}:${frame.url}`
}

/**
 * What the second analysis pass is given: each position symbolication could resolve, by
 * frameKey, and the release it was resolved for. Positions absent from `frames` were not
 * resolved (their status says why).
 */
export interface Symbolication {
  release: string
  frames: Record<string, SymbolicatedFrame>
}

/**
 * What a js_error's evidence holds once symbolicated (beside the spec's raw `stack`):
 * `evidence.frames`, top first, at most 20, and the release whose maps resolved them.
 */
export interface SymbolicatedEvidence {
  release: string
  frames: SymbolicatedFrame[]
}
