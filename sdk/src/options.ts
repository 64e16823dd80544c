/** Public options of `init()` and their validation; pure, so it runs in Node tests too. */

export type ConsoleLevel = 'error' | 'warn' | 'info' | 'log' | 'debug' | 'assert'

export interface RecorderOptions {
  /** Public ingest key (`svc_pk_…`), safe in page code. */
  apiKey: string
  /** Origin (and optional path prefix) of the ingest API; batches go to `${ingestUrl}/api/sdk/replay`. */
  ingestUrl: string
  /** Masks every input value (default true). Password, email and tel inputs are masked regardless. */
  maskAllInputs?: boolean
  /** CSS selector of more elements to block entirely, added to `[data-svc-block]`. */
  blockSelector?: string
  /** CSS selector of more elements whose text is masked, added to `[data-svc-mask]`. */
  maskTextSelector?: string
  /** A batch is sent at least this often while events are pending (default 5000). */
  flushIntervalMs?: number
  /** Events per batch at most (default 50). */
  maxBatchEvents?: number
  /** Raw JSON size of a batch's events at most, in bytes (default 512 KB); one larger event goes alone. */
  maxBatchBytes?: number
  /** Without user activity for this long the session ends and the next activity starts a new one (default 30 min). */
  sessionIdleTimeoutMs?: number
  /** Console levels recorded (default error, warn, assert). */
  consoleLevels?: ConsoleLevel[]
  /** URL prefixes whose fetch/XHR requests are never recorded (the ingest endpoint always is excluded). */
  networkIgnoreUrls?: string[]
  /** Logs transport decisions (dropped batches, retries) to the console. */
  debug?: boolean
  /** The build this page runs (a commit, a version), as its source maps were uploaded for; sent as `metadata.release`. */
  release?: string
}

export interface ResolvedOptions {
  apiKey: string
  ingestUrl: string
  /** `${ingestUrl}/api/sdk/replay` */
  endpoint: string
  maskAllInputs: boolean
  blockSelector: string
  maskTextSelector: string
  flushIntervalMs: number
  maxBatchEvents: number
  maxBatchBytes: number
  sessionIdleTimeoutMs: number
  consoleLevels: ConsoleLevel[]
  networkIgnoreUrls: string[]
  debug: boolean
  /** Null when not set: batches then carry no `metadata.release`. */
  release: string | null
}

const DEFAULTS = {
  flushIntervalMs: 5000,
  maxBatchEvents: 50,
  maxBatchBytes: 512 * 1024,
  sessionIdleTimeoutMs: 30 * 60 * 1000,
  consoleLevels: ['error', 'warn', 'assert'] as ConsoleLevel[],
}

const CONSOLE_LEVELS: readonly ConsoleLevel[] = ['error', 'warn', 'info', 'log', 'debug', 'assert']
const KNOWN = new Set([
  'apiKey',
  'ingestUrl',
  'maskAllInputs',
  'blockSelector',
  'maskTextSelector',
  'flushIntervalMs',
  'maxBatchEvents',
  'maxBatchBytes',
  'sessionIdleTimeoutMs',
  'consoleLevels',
  'networkIgnoreUrls',
  'debug',
  'release',
])
// The ingest API's limit (lib/ingest/schema.ts MAX_RELEASE_LENGTH): a longer one would refuse every batch.
const MAX_RELEASE_LENGTH = 200

export type OptionsResult = { ok: true; options: ResolvedOptions } | { ok: false; error: string }

function intInRange(
  value: unknown,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number | string {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    return `${name} must be a whole number from ${min} to ${max}`
  return value
}

/**
 * A selector the browser cannot parse would make rrweb throw on every node; checked here so a
 * typo is reported once at init instead. Without a DOM (Node tests) only emptiness is checked.
 */
function selectorError(value: unknown, name: string): string | null {
  if (value === undefined) return null
  if (typeof value !== 'string' || value.trim() === '') return `${name} must be a non-empty CSS selector`
  if (typeof document !== 'undefined') {
    try {
      document.createDocumentFragment().querySelector(value)
    } catch {
      return `${name} is not a valid CSS selector: ${value}`
    }
  }
  return null
}

export function resolveOptions(input: unknown): OptionsResult {
  const fail = (error: string): OptionsResult => ({ ok: false, error })
  if (typeof input !== 'object' || input === null)
    return fail('options must be an object with apiKey and ingestUrl')
  const raw = input as Record<string, unknown>
  const unknown = Object.keys(raw).filter((key) => !KNOWN.has(key))
  if (unknown.length > 0) return fail(`unknown option ${unknown.map((k) => `"${k}"`).join(', ')}`)

  const apiKey = raw.apiKey
  if (typeof apiKey !== 'string' || !/^svc_pk_\S+$/.test(apiKey.trim()))
    return fail('apiKey must be the public ingest key that starts with svc_pk_')

  if (typeof raw.ingestUrl !== 'string')
    return fail('ingestUrl must be the http(s) address of the ingest API')
  let ingestUrl: string
  try {
    const url = new URL(raw.ingestUrl)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('protocol')
    if (url.search || url.hash || url.username || url.password) throw new Error('extras')
    ingestUrl = url.href.replace(/\/+$/, '')
  } catch {
    return fail(`ingestUrl must be an http(s) address without query or credentials, got "${raw.ingestUrl}"`)
  }

  for (const flag of ['maskAllInputs', 'debug'] as const) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean')
      return fail(`${flag} must be true or false`)
  }
  const blockError = selectorError(raw.blockSelector, 'blockSelector')
  if (blockError) return fail(blockError)
  const maskError = selectorError(raw.maskTextSelector, 'maskTextSelector')
  if (maskError) return fail(maskError)

  const flushIntervalMs = intInRange(
    raw.flushIntervalMs,
    'flushIntervalMs',
    DEFAULTS.flushIntervalMs,
    100,
    600_000,
  )
  if (typeof flushIntervalMs === 'string') return fail(flushIntervalMs)
  const maxBatchEvents = intInRange(raw.maxBatchEvents, 'maxBatchEvents', DEFAULTS.maxBatchEvents, 1, 10_000)
  if (typeof maxBatchEvents === 'string') return fail(maxBatchEvents)
  // The server accepts 10 MiB of JSON per batch; half leaves room for the envelope and escaping.
  const maxBatchBytes = intInRange(
    raw.maxBatchBytes,
    'maxBatchBytes',
    DEFAULTS.maxBatchBytes,
    1024,
    5 * 1024 * 1024,
  )
  if (typeof maxBatchBytes === 'string') return fail(maxBatchBytes)
  const sessionIdleTimeoutMs = intInRange(
    raw.sessionIdleTimeoutMs,
    'sessionIdleTimeoutMs',
    DEFAULTS.sessionIdleTimeoutMs,
    1000,
    24 * 60 * 60 * 1000,
  )
  if (typeof sessionIdleTimeoutMs === 'string') return fail(sessionIdleTimeoutMs)

  let consoleLevels = DEFAULTS.consoleLevels
  if (raw.consoleLevels !== undefined) {
    const levels = raw.consoleLevels
    if (!Array.isArray(levels) || levels.some((l) => !CONSOLE_LEVELS.includes(l as ConsoleLevel)))
      return fail(`consoleLevels must be an array of: ${CONSOLE_LEVELS.join(', ')}`)
    consoleLevels = [...new Set(levels as ConsoleLevel[])]
  }

  let networkIgnoreUrls: string[] = []
  if (raw.networkIgnoreUrls !== undefined) {
    const urls = raw.networkIgnoreUrls
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string' || u === ''))
      return fail('networkIgnoreUrls must be an array of URL prefixes')
    networkIgnoreUrls = urls as string[]
  }

  let release: string | null = null
  if (raw.release !== undefined) {
    const value = typeof raw.release === 'string' ? raw.release.trim() : ''
    // The server refuses a NUL with the whole batch; no build is named with control characters.
    if (value === '' || value.length > MAX_RELEASE_LENGTH || Array.from(value).some((c) => c < ' '))
      return fail(
        `release must be a non-empty string of at most ${MAX_RELEASE_LENGTH} characters without control characters`,
      )
    release = value
  }

  const extend = (base: string, extra: unknown) => (typeof extra === 'string' ? `${base}, ${extra}` : base)
  return {
    ok: true,
    options: {
      apiKey: apiKey.trim(),
      ingestUrl,
      endpoint: `${ingestUrl}/api/sdk/replay`,
      maskAllInputs: raw.maskAllInputs !== false,
      blockSelector: extend('[data-svc-block]', raw.blockSelector),
      maskTextSelector: extend('[data-svc-mask]', raw.maskTextSelector),
      flushIntervalMs,
      maxBatchEvents,
      maxBatchBytes,
      sessionIdleTimeoutMs,
      consoleLevels,
      networkIgnoreUrls,
      debug: raw.debug === true,
      release,
    },
  }
}
