/**
 * Stack frames as the console plugin writes them (`fn (url:line:col)`, §1.7) and as a raw
 * `error.stack` carries them (V8 `at fn (url:line:col)`, Firefox/Safari `fn@url:line:col`),
 * reduced to what groups an error: function name and file path without build hashes or lines.
 */
import { siteOf } from './url'

export interface Frame {
  fn: string
  /** The frame's URL as written, line and column removed. */
  url: string
}

const V8_RE = /^\s*at\s+(?:(.*?)\s+\()?(.+?)(?::\d+)?(?::\d+)?\)?\s*$/
const PARENS_RE = /^\s*(.*?)\s+\((.+?)(?::\d+)?(?::\d+)?\)\s*$/
const AT_SIGN_RE = /^\s*(.*?)@(.+?)(?::\d+)?(?::\d+)?\s*$/
const BARE_RE = /^\s*(\S+?)(?::\d+)(?::\d+)?\s*$/

export function parseFrame(line: string): Frame | null {
  const text = line.trim()
  if (!text) return null
  const match = text.startsWith('at ')
    ? V8_RE.exec(text)
    : (PARENS_RE.exec(text) ?? AT_SIGN_RE.exec(text) ?? BARE_RE.exec(text))
  if (!match) return null
  // BARE_RE has only the URL group; the others put the function name first.
  const [fn, url] = match.length === 2 || match[2] === undefined ? ['', match[1]] : [match[1], match[2]]
  if (!url || !/[/.:]/.test(url)) return null
  return { fn: (fn ?? '').replace(/^async\s+/, '').trim(), url }
}

/** Frames from a trace array (console plugin) or a stack string (SDK error event). */
export function parseFrames(trace: unknown): Frame[] {
  const lines = Array.isArray(trace)
    ? trace.filter((line): line is string => typeof line === 'string')
    : typeof trace === 'string'
      ? trace.split('\n')
      : []
  // A stack string starts with the message line, which can look like a frame; V8 marks frames.
  const v8 = typeof trace === 'string' && lines.some((line) => line.trimStart().startsWith('at '))
  const frames: Frame[] = []
  for (const line of lines) {
    if (v8 && !line.trimStart().startsWith('at ')) continue
    const frame = parseFrame(line)
    if (frame) frames.push(frame)
    if (frames.length >= 50) break
  }
  return frames
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
export function topInAppFrame(frames: Frame[], pageUrl: string): Frame | null {
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
 * `https://cdn.example/assets/app.3f9a2c1d.js?v=2:88:14` → `/assets/app.*.js`: origin, query,
 * fragment, line and column dropped; build hashes replaced so a redeploy keeps the group.
 */
export function normaliseFilePath(url: string): string {
  let path = url.replace(/^[a-z][\w+.-]*:\/\/[^/]*/i, '')
  path = path.replace(/[?#].*$/, '').replace(/(?::\d+){1,2}$/, '')
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
