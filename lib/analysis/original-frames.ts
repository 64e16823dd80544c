/**
 * An error's stack in the code our users wrote, from the Symbolication the second analysis
 * pass is given (docs/source-maps.md): what its fingerprint, description, evidence and trail
 * entry say once the frames are mapped. Nothing here runs without symbolication.
 */

import { clip, MAX_NAME_CHARS } from './bounds'
import { MAX_FRAMES_PER_ERROR, minifiedFrame } from './error-frames'
import {
  frameKey,
  type OriginalFrame,
  type SourceContext,
  type SymbolicatedFrame,
  type Symbolication,
} from './frames'
import { cutQuery, type PositionedFrame } from './stack'

// Source names come from uploaded maps; nothing real is this long.
const MAX_SOURCE_CHARS = 500
// A context line from `sourcesContent` can be a whole minified vendor file.
const MAX_CONTEXT_LINE_CHARS = 300
const SCHEME = /^[a-z][\w+.-]*:\/\//i

/**
 * `webpack://app/./src/x.ts`, `webpack:///./src/x.ts`, `../src/x.ts` and `./src/x.ts` all
 * become `src/x.ts`: scheme, bundler namespace, query and leading `./` `../` are build
 * details that change with the bundler's configuration, not with the code.
 */
export function normaliseSourcePath(source: string): string {
  let path = cutQuery(clip(source, MAX_SOURCE_CHARS)).replaceAll('\\', '/')
  const scheme = SCHEME.exec(path)
  if (scheme) {
    path = path.slice(scheme[0].length)
    // What follows the scheme is the bundler's namespace (`app`, `_N_E`), or nothing.
    const slash = path.indexOf('/')
    path = slash < 0 ? path : path.slice(slash + 1)
  }
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.')
  let start = 0
  while (start < segments.length && segments[start] === '..') start++
  return segments.slice(start).join('/')
}

/** The original function's name; maps are uploaded by our users' builds, still bounded. */
function originalName(original: OriginalFrame): string {
  return original.fn === null ? '<anonymous>' : clip(original.fn, MAX_NAME_CHARS)
}

/** How the original frame is named in texts: `checkout (src/checkout.ts:12)`. */
export function originalPlace(original: OriginalFrame): string {
  return `${originalName(original)} (${normaliseSourcePath(original.source)}:${original.line})`
}

/** The mapped original frame of `frame`, or null when it did not map. */
export function mappedFrame(
  frame: PositionedFrame | null,
  symbolication: Symbolication | undefined,
): OriginalFrame | null {
  if (!frame || !symbolication || frame.line === null || frame.column === null) return null
  const found = symbolication.frames[frameKey({ url: frame.url, line: frame.line, column: frame.column })]
  if (found?.status !== 'mapped' || !found.original) return null
  return normaliseSourcePath(found.original.source) ? found.original : null
}

/** The fingerprint's frame part for an original frame, as §4.4 builds it from a minified one. */
export function originalFramePart(original: OriginalFrame): string {
  return `${originalName(original)} ${normaliseSourcePath(original.source)}`
}

function boundedContext(context: SourceContext | null): SourceContext | null {
  if (!context) return null
  const cut = (line: string) => clip(line, MAX_CONTEXT_LINE_CHARS)
  return {
    pre: context.pre.slice(-5).map(cut),
    line: cut(context.line),
    post: context.post.slice(0, 5).map(cut),
  }
}

/** The first MAX_FRAMES_PER_ERROR frames with a position, each as symbolication resolved it. */
export function symbolicatedFrames(
  frames: readonly PositionedFrame[],
  symbolication: Symbolication,
): SymbolicatedFrame[] {
  const out: SymbolicatedFrame[] = []
  for (const frame of frames) {
    if (out.length >= MAX_FRAMES_PER_ERROR) break
    const minified = minifiedFrame(frame)
    if (!minified) continue
    const found = symbolication.frames[frameKey(minified)]
    // A position symbolication was not asked about (past MAX_ERROR_FRAMES) has no map found for it.
    if (!found) out.push({ minified, original: null, status: 'no_map' })
    else
      out.push({
        minified,
        original: found.original
          ? { ...found.original, context: boundedContext(found.original.context) }
          : null,
        status: found.status,
      })
  }
  return out
}

/** `at checkout (src/checkout.ts:12:5)` for mapped frames, the minified position for the others. */
export function originalStack(frames: readonly SymbolicatedFrame[]): string {
  return frames
    .map(({ minified, original, status }) =>
      status === 'mapped' && original
        ? `at ${originalName(original)} (${normaliseSourcePath(original.source)}:${original.line}:${original.column})`
        : `at ${minified.fn || '<anonymous>'} (${minified.url}:${minified.line}:${minified.column})`,
    )
    .join('\n')
}
