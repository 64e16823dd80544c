/**
 * Bundler debug IDs of the page's scripts (docs/source-maps.md). Sentry's bundler plugins and
 * `sentry-cli sourcemaps inject` put a snippet at the top of each bundle that registers
 * `globalThis._sentryDebugIds[new Error().stack] = '<debug id>'`: the stack's top frame names
 * the bundle's own URL. The server finds a file's source map by that ID even when the URL it
 * was uploaded under differs (CDN hosts, cache-busting queries). Pure, so Node tests drive it.
 */

/** The server keeps at most this many per session (lib/ingest/schema.ts). */
export const MAX_DEBUG_IDS = 100
// The server's limit on a URL key; longer ones would refuse the whole batch.
const MAX_URL_LENGTH = 2048
// A registration's stack is a few short lines: anything far longer is not one.
const MAX_STACK_LENGTH = 8192
const MAX_FRAMES_READ = 10
// Fixed length, no backtracking (the server checks the same pattern).
const DEBUG_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const REGISTRIES = ['_sentryDebugIds', '_debugIds'] as const

/** Whether `text` is one or more ASCII digits. */
function digits(text: string): boolean {
  if (text === '') return false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 48 || code > 57) return false
  }
  return true
}

/**
 * The script URL of one stack line, without its `:line:column`: V8's `at fn (url:1:2)` and
 * `at url:1:2`, Firefox's and Safari's `fn@url:1:2`. Null for a line without a position.
 */
export function frameUrl(line: string): string | null {
  let location = line.trim()
  if (location.startsWith('at ')) {
    location = location.slice(3)
    const open = location.lastIndexOf('(')
    if (open >= 0 && location.endsWith(')')) location = location.slice(open + 1, -1)
  } else {
    const at = location.lastIndexOf('@')
    if (at >= 0) location = location.slice(at + 1)
  }
  const columnColon = location.lastIndexOf(':')
  if (columnColon < 0 || !digits(location.slice(columnColon + 1))) return null
  const lineColon = location.lastIndexOf(':', columnColon - 1)
  const end = lineColon >= 0 && digits(location.slice(lineColon + 1, columnColon)) ? lineColon : columnColon
  const url = location.slice(0, end)
  return url === '' || url.length > MAX_URL_LENGTH ? null : url
}

/** The URL of a registration stack's top frame (the first line with a position). */
export function firstFrameUrl(stack: string): string | null {
  if (stack.length > MAX_STACK_LENGTH) return null
  const lines = stack.split('\n', MAX_FRAMES_READ + 1)
  for (const line of lines) {
    const url = frameUrl(line)
    if (url) return url
  }
  return null
}

/**
 * A batch carries at most this much of them (JSON characters): the envelope of a beacon has
 * 8 KB of room (recorder.ts), and a page with many chunks sends the rest with its next batches.
 */
export const MAX_BATCH_DEBUG_ID_CHARS = 4096

/**
 * Collects the page's URL → debug ID pairs and hands out those not sent yet. A registry only
 * grows, so it is read again only when its size changed: a batch costs a key count.
 */
export class DebugIdTracker {
  /** Every pair found, at most MAX_DEBUG_IDS URLs; a URL registered again takes its new ID. */
  private readonly found = new Map<string, string>()
  private readonly sent = new Map<string, string>()
  private readonly sizes = new Map<string, number>()

  constructor(private readonly root: Record<string, unknown>) {}

  private scan(): void {
    for (const name of REGISTRIES) {
      let registry: unknown
      let keys: string[]
      try {
        registry = this.root[name]
        if (typeof registry !== 'object' || registry === null) continue
        keys = Object.keys(registry)
      } catch {
        // A hostile or broken global must not stop a batch.
        continue
      }
      if (this.sizes.get(name) === keys.length) continue
      this.sizes.set(name, keys.length)
      for (const stack of keys) {
        const id = (registry as Record<string, unknown>)[stack]
        if (typeof id !== 'string' || !DEBUG_ID.test(id)) continue
        const url = firstFrameUrl(stack)
        if (url && (this.found.has(url) || this.found.size < MAX_DEBUG_IDS)) this.found.set(url, id)
      }
    }
  }

  /**
   * Pairs not sent yet (all of them on a page's first batch), up to `maxChars` of JSON (one
   * pair always goes), or null when none are waiting.
   */
  takeNew(maxChars = MAX_BATCH_DEBUG_ID_CHARS): Record<string, string> | null {
    this.scan()
    let fresh: Record<string, string> | null = null
    let chars = 0
    for (const [url, id] of this.found) {
      if (this.sent.get(url) === id) continue
      // Quotes, colon and comma around the two strings (URLs are plain ASCII, rarely escaped).
      const size = url.length + id.length + 6
      if (fresh && chars + size > maxChars) break
      chars += size
      this.sent.set(url, id)
      fresh ??= {}
      fresh[url] = id
    }
    return fresh
  }
}
