/**
 * Stack frames as the console plugin writes them (`fn (url:line:col)`, §1.7) and as a raw
 * `error.stack` carries them (V8 `at fn (url:line:col)`, Firefox/Safari `fn@url:line:col`),
 * reduced to what groups an error: function name and file path without build hashes or lines.
 */
import { clip, MAX_STACK_LINE_CHARS, MAX_STACK_LINES } from './bounds'
import { isDigitCode, isLineTerminatorCode, isSpaceAt } from './scan'
import { siteOf } from './url'

export interface Frame {
  fn: string
  /** The frame's URL as written, line and column removed. */
  url: string
}

/** A frame with the position the stack gave it (1-based, as V8 prints), null where it gave none. */
export interface PositionedFrame extends Frame {
  line: number | null
  column: number | null
}

/** A scanner's match: the function name, the URL, and where the URL ends in the line. */
type FrameMatch = [fn: string, url: string, urlEnd: number]

// Frames are read with scanners, not patterns: the patterns that described these shapes
// (`^\s*at\s+(?:(.*?)\s+\()?(.+?)(?::\d+)?(?::\d+)?\)?\s*$` and its Firefox and bare-URL
// siblings) backtrack quadratically on long lines. Each scanner returns exactly what its
// pattern captured: the shortest function name, then the shortest URL the line's end allows.

/** Start of the `:\d+` group that ends at `end`, or -1. */
function portGroupStart(text: string, end: number): number {
  let at = end
  while (at > 0 && isDigitCode(text.charCodeAt(at - 1))) at--
  return at < end && at > 0 && text.charCodeAt(at - 1) === 58 ? at - 1 : -1
}

/**
 * Where the URL starting at `from` ends when the text up to `end` must close with
 * `(?::\d+)?(?::\d+)?` (at least `minGroups` of them): the smallest such position past
 * `from`, as the lazy `(.+?)` picked it, or -1.
 */
function urlEnd(text: string, from: number, end: number, minGroups: number): number {
  const starts = [end]
  const one = portGroupStart(text, end)
  if (one >= 0) {
    starts.push(one)
    const two = portGroupStart(text, one)
    if (two >= 0) starts.push(two)
  }
  let best = -1
  for (let groups = minGroups; groups < starts.length; groups++) {
    const at = starts[groups]!
    if (at > from && (best < 0 || at < best)) best = at
  }
  return best
}

interface Scan {
  text: string
  /** First and last line terminator (`.` matches neither), -1 when there is none. */
  firstBreak: number
  lastBreak: number
}

function scanOf(text: string): Scan {
  let firstBreak = -1
  let lastBreak = -1
  for (let i = 0; i < text.length; i++) {
    if (!isLineTerminatorCode(text.charCodeAt(i))) continue
    if (firstBreak < 0) firstBreak = i
    lastBreak = i
  }
  return { text, firstBreak, lastBreak }
}

/** Whether `.` can match every character in [from, to). */
function dotsOnly(scan: Scan, from: number, to: number): boolean {
  if (scan.firstBreak < 0) return true
  return scan.firstBreak >= to || scan.lastBreak < from
}

/**
 * `(.*?)\s+\((.+?)(?::\d+)?(?::\d+)?<close>$` from `from`: a name, spaces, `(`, a URL. With
 * `closing` the last character must be `)`; otherwise a final `)` is optional.
 */
function namedFrame(scan: Scan, from: number, closing: boolean): FrameMatch | null {
  const { text } = scan
  const last = text.length
  const closes = text.charCodeAt(last - 1) === 41
  if (closing && !closes) return null
  for (let open = text.indexOf('(', from); open >= 0; open = text.indexOf('(', open + 1)) {
    let nameEnd = open
    while (nameEnd > from && isSpaceAt(text, nameEnd - 1)) nameEnd--
    if (nameEnd === open) continue
    // Nothing after this `(` can give a longer name a shorter match.
    if (!dotsOnly(scan, from, nameEnd)) return null
    const urlStart = open + 1
    if (!dotsOnly(scan, urlStart, last)) continue
    let end = closing ? urlEnd(text, urlStart, last - 1, 0) : urlEnd(text, urlStart, last, 0)
    if (!closing && closes) {
      const withParen = urlEnd(text, urlStart, last - 1, 0)
      if (withParen >= 0 && (end < 0 || withParen < end)) end = withParen
    }
    if (end >= 0) return [text.slice(from, nameEnd), text.slice(urlStart, end), end]
  }
  return null
}

/** `at\s+` then a named frame, or a URL with an optional `)` (V8). */
function v8Frame(scan: Scan): FrameMatch | null {
  const { text } = scan
  let from = 2
  while (isSpaceAt(text, from)) from++
  if (from === 2) return null
  const named = namedFrame(scan, from, false)
  if (named) return named
  if (!dotsOnly(scan, from, text.length)) return null
  let end = urlEnd(text, from, text.length, 0)
  if (text.charCodeAt(text.length - 1) === 41) {
    const withParen = urlEnd(text, from, text.length - 1, 0)
    if (withParen >= 0 && (end < 0 || withParen < end)) end = withParen
  }
  return end >= 0 ? ['', text.slice(from, end), end] : null
}

/** `name@url:line:col` (Firefox, Safari): the name ends at the first `@` that leaves a URL. */
function atSignFrame(scan: Scan): FrameMatch | null {
  const { text } = scan
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (!dotsOnly(scan, 0, at)) return null
    if (!dotsOnly(scan, at + 1, text.length)) continue
    const end = urlEnd(text, at + 1, text.length, 0)
    if (end >= 0) return [text.slice(0, at), text.slice(at + 1, end), end]
  }
  return null
}

/** A bare `url:line(:col)` with no space in it. */
function bareFrame(text: string): FrameMatch | null {
  for (let i = 0; i < text.length; i++) if (isSpaceAt(text, i)) return null
  const end = urlEnd(text, 0, text.length, 1)
  return end >= 0 ? ['', text.slice(0, end), end] : null
}

// Longer numbers are no position a browser wrote (V8 lines and columns are 32-bit).
const MAX_POSITION_DIGITS = 9

/** The `:digits` group at `at`, as a number, and where it ends; null when there is none. */
function positionGroup(text: string, at: number): [number, number] | null {
  if (text.charCodeAt(at) !== 58) return null
  let end = at + 1
  while (end < text.length && isDigitCode(text.charCodeAt(end))) end++
  const digits = end - at - 1
  if (digits === 0 || digits > MAX_POSITION_DIGITS) return null
  const value = Number(text.slice(at + 1, end))
  return value > 0 ? [value, end] : null
}

/** A frame with its line and column: what the scanners left after the URL is `(:line)?(:col)?`. */
export function parsePositionedFrame(line: string): PositionedFrame | null {
  const text = line.trim()
  if (!text) return null
  const scan = scanOf(text)
  const match = text.startsWith('at ')
    ? v8Frame(scan)
    : (namedFrame(scan, 0, true) ?? atSignFrame(scan) ?? bareFrame(text))
  if (!match) return null
  const [fn, url, urlEnd] = match
  if (!url || !/[/.:]/.test(url)) return null
  const first = positionGroup(text, urlEnd)
  const second = first ? positionGroup(text, first[1]) : null
  return {
    fn: fn.replace(/^async\s+/, '').trim(),
    url,
    line: first ? first[0] : null,
    column: second ? second[0] : null,
  }
}

export function parseFrame(line: string): Frame | null {
  const frame = parsePositionedFrame(line)
  return frame ? { fn: frame.fn, url: frame.url } : null
}

/** The lines of a trace array or stack string, at most MAX_STACK_LINES, each cut to its bound. */
export function stackLines(trace: unknown): string[] {
  const lines: string[] = []
  if (Array.isArray(trace)) {
    for (const line of trace) {
      if (lines.length >= MAX_STACK_LINES) break
      if (typeof line === 'string') lines.push(clip(line, MAX_STACK_LINE_CHARS))
    }
  } else if (typeof trace === 'string') {
    let start = 0
    while (start <= trace.length && lines.length < MAX_STACK_LINES) {
      const end = trace.indexOf('\n', start)
      const stop = end < 0 ? trace.length : end
      lines.push(
        clip(trace.slice(start, Math.min(stop, start + MAX_STACK_LINE_CHARS + 1)), MAX_STACK_LINE_CHARS),
      )
      if (end < 0) break
      start = end + 1
    }
  }
  return lines
}

/** Frames from a trace array (console plugin) or a stack string (SDK error event), with positions. */
export function parsePositionedFrames(trace: unknown): PositionedFrame[] {
  const lines = stackLines(trace)
  // A stack string starts with the message line, which can look like a frame; V8 marks frames.
  const v8 = typeof trace === 'string' && lines.some((line) => line.trimStart().startsWith('at '))
  const frames: PositionedFrame[] = []
  for (const line of lines) {
    if (v8 && !line.trimStart().startsWith('at ')) continue
    const frame = parsePositionedFrame(line)
    if (frame) frames.push(frame)
    if (frames.length >= 50) break
  }
  return frames
}

/** Frames from a trace array (console plugin) or a stack string (SDK error event). */
export function parseFrames(trace: unknown): Frame[] {
  return parsePositionedFrames(trace).map(({ fn, url }) => ({ fn, url }))
}

const EXTENSION_RE = /^(?:chrome|moz|safari|safari-web|ms-browser)-extension:\/\//i

export function isExtensionFrame(frame: Frame): boolean {
  return EXTENSION_RE.test(frame.url)
}

function frameSite(url: string): string | null {
  const match = /^https?:\/\/([^/?#]+)/i.exec(url)
  return match?.[1] ? siteOf(match[1]) : null
}

/**
 * The top in-app frame (§4.4): first frame served from the page's own site; with no such frame,
 * the first frame with a URL (PostHog's rule for stacks without in-app frames).
 */
export function topInAppFrame<F extends Frame>(frames: F[], pageUrl: string): F | null {
  const pageSite = frameSite(pageUrl)
  for (const frame of frames) {
    if (isExtensionFrame(frame)) continue
    const site = frameSite(frame.url)
    if (site !== null && (pageSite === null || site === pageSite)) return frame
  }
  return frames.find((frame) => /^https?:\/\//i.test(frame.url)) ?? frames[0] ?? null
}

const HEXISH = /^(?=.*\d)[0-9a-f]{6,}$/i
const MIXED = /^(?=.*\d)(?=.*[a-z])[a-z0-9]{8,}$/i
// Vite and Rollup end chunk names with an 8-character base64url hash that may hold no digit.
const ROLLUP_HASH = /^(?=.*(?:[A-Z_]|\d))[A-Za-z0-9_]{8}$/

function hashToken(token: string, isLast: boolean): boolean {
  if (/^\d+$/.test(token)) return true
  if (HEXISH.test(token) || MIXED.test(token)) return true
  return isLast && ROLLUP_HASH.test(token) && /[a-z]/.test(token.slice(1)) && /[A-Z\d_]/.test(token.slice(1))
}

function normaliseFileName(name: string): string {
  const dot = name.lastIndexOf('.')
  const stem = dot > 0 ? name.slice(0, dot) : name
  const ext = dot > 0 ? name.slice(dot) : ''
  const parts = stem.split(/([.\-~])/)
  const tokenCount = Math.ceil(parts.length / 2)
  let index = 0
  const replaced = parts.map((part, i) => {
    if (i % 2 === 1) return part
    index++
    return hashToken(part, index === tokenCount && tokenCount > 1) ? '*' : part
  })
  return replaced.join('') + ext
}

/**
 * What `path.replace(/[?#].*$/, '')` did, without its quadratic retries on a run of `?`: cut
 * at the first `?` or `#` after the last line terminator (`.` stops at those).
 */
export function cutQuery(path: string): string {
  let from = 0
  for (let i = path.length - 1; i >= 0; i--) {
    if (isLineTerminatorCode(path.charCodeAt(i))) {
      from = i + 1
      break
    }
  }
  for (let i = from; i < path.length; i++) {
    const code = path.charCodeAt(i)
    if (code === 63 || code === 35) return path.slice(0, i)
  }
  return path
}

/**
 * `https://cdn.example/assets/app.3f9a2c1d.js?v=2:88:14` → `/assets/app.*.js`: origin, query,
 * fragment, line and column dropped; build hashes replaced so a redeploy keeps the group.
 */
export function normaliseFilePath(url: string): string {
  let path = url.replace(/^[a-z][\w+.-]*:\/\/[^/]*/i, '')
  path = cutQuery(path).replace(/(?::\d+){1,2}$/, '')
  const segments = path.split('/')
  return segments
    .map((segment, i) => {
      if (!segment) return segment
      if (i === segments.length - 1) return normaliseFileName(segment)
      // Directory names such as a Next.js build id are hashes too.
      return segment.length >= 16 && /\d/.test(segment) && /^[\w-]+$/.test(segment) ? '*' : segment
    })
    .join('/')
}
