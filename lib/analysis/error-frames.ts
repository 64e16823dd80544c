/**
 * The positions the session's error stacks name (AnalysisResult.errorFrames): what
 * symbolication looks up before the second analysis pass (docs/source-maps.md). Only errors
 * reach this, and it stops taking frames once full, so a session of a million identical
 * errors costs a few set lookups per error.
 */

import { clip } from './bounds'
import { frameKey, type MinifiedFrame } from './frames'
import type { PositionedFrame } from './stack'

/** Distinct positions a session reports, at most. */
export const MAX_ERROR_FRAMES = 500

/** Distinct stacks a session reports, at most: a caller's call site names the frame above it. */
export const MAX_ERROR_STACKS = 50

const MAX_STACKS_LOOKED_AT = 1_000

/** Frames of one stack that are looked up and shown symbolicated (the rest are rarely the bug). */
export const MAX_FRAMES_PER_ERROR = 20

// A script URL longer than this is no bundle a map was uploaded for; it would only weigh on
// the memoized result (500 positions of at most this many characters).
const MAX_FRAME_URL_CHARS = 1_024
// Minified names are a few letters; a stack line can carry 2,000 characters of one.
const MAX_FRAME_NAME_CHARS = 200

/** The frame as symbolication addresses it; null when it has no full position to look up. */
export function minifiedFrame(frame: PositionedFrame): MinifiedFrame | null {
  if (frame.line === null || frame.column === null || frame.url.length > MAX_FRAME_URL_CHARS) return null
  return { fn: clip(frame.fn, MAX_FRAME_NAME_CHARS), url: frame.url, line: frame.line, column: frame.column }
}

/**
 * Collects positions in two tiers: the top in-app frame of each js_error first (what its
 * fingerprint is decided by), then every other frame in the order errors came. Each tier holds
 * at most MAX_ERROR_FRAMES, so memory is bounded whatever the session sends.
 */
export class ErrorFrameLog {
  private readonly tops = new Map<string, MinifiedFrame>()
  private readonly rest = new Map<string, MinifiedFrame>()
  private readonly stacks = new Map<string, MinifiedFrame[]>()
  // The same error repeated a million times would build its stack's key each time: after this
  // many stacks looked at, the distinct ones are known well enough.
  private stacksLookedAt = 0

  /** `top`: the frame the error is grouped by, null for errors that are not grouped by one. */
  add(frames: readonly PositionedFrame[], top: PositionedFrame | null): void {
    if (top && this.tops.size < MAX_ERROR_FRAMES) this.put(this.tops, top)
    if (this.stacks.size < MAX_ERROR_STACKS && this.stacksLookedAt++ < MAX_STACKS_LOOKED_AT)
      this.keepStack(frames)
    if (this.rest.size >= MAX_ERROR_FRAMES) return
    const count = Math.min(frames.length, MAX_FRAMES_PER_ERROR)
    for (let i = 0; i < count && this.rest.size < MAX_ERROR_FRAMES; i++) this.put(this.rest, frames[i]!)
  }

  private put(into: Map<string, MinifiedFrame>, frame: PositionedFrame): void {
    const minified = minifiedFrame(frame)
    if (!minified) return
    const key = frameKey(minified)
    if (!into.has(key)) into.set(key, minified)
  }

  private keepStack(frames: readonly PositionedFrame[]): void {
    const stack: MinifiedFrame[] = []
    for (let i = 0; i < frames.length && stack.length < MAX_FRAMES_PER_ERROR; i++) {
      const minified = minifiedFrame(frames[i]!)
      if (minified) stack.push(minified)
    }
    // Only callers name anything: a stack of one frame adds nothing to the frames themselves.
    if (stack.length < 2) return
    const key = stack.map(frameKey).join('\n')
    if (!this.stacks.has(key)) this.stacks.set(key, stack)
  }

  stacksResult(): MinifiedFrame[][] {
    return [...this.stacks.values()]
  }

  result(): MinifiedFrame[] {
    const frames = [...this.tops.values()]
    for (const [key, frame] of this.rest) {
      if (frames.length >= MAX_ERROR_FRAMES) break
      if (!this.tops.has(key)) frames.push(frame)
    }
    return frames
  }
}
