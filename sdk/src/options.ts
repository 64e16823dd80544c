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
  /**
   * Request and response headers and bodies of fetch/XHR calls to the listed URLs
   * (docs/network-details.md). Off unless set; loaded as a separate script part when set.
   */
  networkDetails?: NetworkDetailsOptions
  /** Share of sessions recorded in full from their start, 0 to 1 (default 1). */
  sessionSampleRate?: number
  /**
   * Share of the sessions not sampled in full that upload their last `errorBufferMs` of
   * recording, and then record in full, when an uncaught error, a failed request or a rage
   * click happens; 0 to 1 (default 1). The others record nothing.
   */
  errorSampleRate?: number
  /** How much recording an unsampled session keeps in memory for error-only capture (default 60000 ms). */
  errorBufferMs?: number
  /** Pages where recording runs: a string matches a URL that contains it (default: every page). */
  allowPages?: UrlPattern[]
  /** Pages where recording never runs, even when `allowPages` matches them. */
  denyPages?: UrlPattern[]
  /**
   * Stops recording a part of the page that changes faster than the budget and marks the
   * session `degraded`, so the recorder cannot freeze a busy page (default on).
   */
  mutationGuard?: boolean | { maxMutationsPerSecond?: number }
  /** Records `<canvas>` drawings as images (default off): `true`, or a frame rate and image quality. */
  recordCanvas?: boolean | { fps?: number; quality?: number }
  /** Records cross-origin iframes that load the recorder too (default off); the child pages must set it as well. */
  recordCrossOriginIframes?: boolean
  /**
   * In a cross-origin frame with `recordCrossOriginIframes`: the origins (`https://app.example.com`)
   * of parent pages trusted with this frame's recording. The frame passes its recording only to
   * a parent of one of them; without it, or under any other parent, it records its own session.
   */
  parentOrigins?: string[]
  /**
   * In a page with `recordCrossOriginIframes`: the origins of child frames whose recordings it
   * takes. Without it, any frame of the page that completes the handshake is taken.
   */
  childOrigins?: string[]
  /**
   * Whether the visitor agreed to be recorded (default `granted`). `pending` and `denied`
   * start nothing, send nothing and store nothing until `setConsent('granted')` (consent.ts).
   */
  consent?: Consent
  /**
   * Where the recorder keeps its ids (default `browser`: sessionStorage and localStorage).
   * `none`: in memory only, so nothing is written to the device and each page view is a
   * session of its own.
   */
  storage?: StorageMode
}

export type Consent = 'pending' | 'granted' | 'denied'
export type StorageMode = 'browser' | 'none'

/** A string matches a URL that contains it; a RegExp is tested against the whole URL. */
export type UrlPattern = string | RegExp

export interface NetworkDetailsOptions {
  /** URLs whose details are captured (required, non-empty): a string matches a URL that contains it. */
  urls: UrlPattern[]
  /** Header names captured, case-insensitive (default none). Credentials headers are never captured. */
  headers?: string[]
  /** Captures request bodies of text and JSON types (default true). */
  requestBody?: boolean
  /** Captures response bodies of text and JSON types (default true). */
  responseBody?: boolean
  /** A body longer than this many characters is cut, with a marker (default 10000, at most 65536). */
  maxBodyBytes?: number
  /** More JSON key words redacted in bodies, beside the built-in list (password, token, secret, ...). */
  redactKeys?: string[]
  /** Captures details only of requests that failed: status 0 or at least 400 (default false). */
  failuresOnly?: boolean
}

export interface ResolvedNetworkDetails {
  urls: UrlPattern[]
  /** Lower-cased, without the never-captured credential headers. */
  headers: string[]
  requestBody: boolean
  responseBody: boolean
  maxBodyBytes: number
  /** Lower-cased. */
  redactKeys: string[]
  failuresOnly: boolean
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
  /** Null when not set: no headers or bodies are captured and the part is not loaded. */
  networkDetails: ResolvedNetworkDetails | null
  sessionSampleRate: number
  errorSampleRate: number
  errorBufferMs: number
  /** Empty: every page. */
  allowPages: UrlPattern[]
  denyPages: UrlPattern[]
  /** Null when the guard is off. */
  mutationGuard: { maxMutationsPerSecond: number } | null
  /** Null when canvas recording is off. */
  recordCanvas: { fps: number; quality: number } | null
  recordCrossOriginIframes: boolean
  consent: Consent
  storage: StorageMode
  /** Serialized origins (`URL.origin`); empty: this page relays to no parent. */
  parentOrigins: string[]
  /** Serialized origins; null: any frame of this page that completes the handshake. */
  childOrigins: string[] | null
}

/**
 * Header names never captured whatever `networkDetails.headers` says: they carry credentials.
 * The server drops them again at ingest (docs/network-details.md).
 */
export const NEVER_CAPTURED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'set-cookie2',
]

const DEFAULTS = {
  errorBufferMs: 60_000,
  maxMutationsPerSecond: 1_000,
  canvasFps: 2,
  canvasQuality: 0.6,
  maxBodyBytes: 10_000,
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
  'networkDetails',
  'sessionSampleRate',
  'errorSampleRate',
  'errorBufferMs',
  'allowPages',
  'denyPages',
  'mutationGuard',
  'recordCanvas',
  'recordCrossOriginIframes',
  'parentOrigins',
  'childOrigins',
  'consent',
  'storage',
])
const NETWORK_DETAIL_KEYS = new Set([
  'urls',
  'headers',
  'requestBody',
  'responseBody',
  'maxBodyBytes',
  'redactKeys',
  'failuresOnly',
])
/** The server keeps bodies to this size too (lib/ingest network redaction). */
export const MAX_BODY_BYTES = 65_536
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

function rate(value: unknown, name: string): number | string {
  if (value === undefined) return 1
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    return `${name} must be a number from 0 to 1`
  return value
}

function patterns(value: unknown, name: string): UrlPattern[] | string {
  if (value === undefined) return []
  if (
    !Array.isArray(value) ||
    value.some((p) => !(p instanceof RegExp) && (typeof p !== 'string' || p === ''))
  )
    return `${name} must be an array of non-empty strings or regular expressions`
  return value as UrlPattern[]
}

function stringList(value: unknown, name: string): string[] | string {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === ''))
    return `${name} must be an array of non-empty strings`
  return [...new Set((value as string[]).map((v) => v.trim().toLowerCase()))]
}

function networkDetailsOption(value: unknown): ResolvedNetworkDetails | null | string {
  if (value === undefined) return null
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'networkDetails must be an object with urls'
  const raw = value as Record<string, unknown>
  const unknown = Object.keys(raw).filter((key) => !NETWORK_DETAIL_KEYS.has(key))
  if (unknown.length > 0) return `unknown networkDetails option ${unknown.map((k) => `"${k}"`).join(', ')}`
  const urls = patterns(raw.urls, 'networkDetails.urls')
  if (typeof urls === 'string') return urls
  if (urls.length === 0) return 'networkDetails.urls must name at least one URL'
  const headers = stringList(raw.headers, 'networkDetails.headers')
  if (typeof headers === 'string') return headers
  const redactKeys = stringList(raw.redactKeys, 'networkDetails.redactKeys')
  if (typeof redactKeys === 'string') return redactKeys
  for (const flag of ['requestBody', 'responseBody', 'failuresOnly'] as const) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean')
      return `networkDetails.${flag} must be true or false`
  }
  const maxBodyBytes = intInRange(
    raw.maxBodyBytes,
    'networkDetails.maxBodyBytes',
    DEFAULTS.maxBodyBytes,
    0,
    MAX_BODY_BYTES,
  )
  if (typeof maxBodyBytes === 'string') return maxBodyBytes
  return {
    urls,
    headers: headers.filter((h) => !NEVER_CAPTURED_HEADERS.includes(h)),
    requestBody: raw.requestBody !== false,
    responseBody: raw.responseBody !== false,
    maxBodyBytes,
    redactKeys,
    failuresOnly: raw.failuresOnly === true,
  }
}

function guardOption(value: unknown): ResolvedOptions['mutationGuard'] | string {
  if (value === undefined || value === true) return { maxMutationsPerSecond: DEFAULTS.maxMutationsPerSecond }
  if (value === false) return null
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'mutationGuard must be true, false or { maxMutationsPerSecond }'
  const raw = value as Record<string, unknown>
  if (Object.keys(raw).some((key) => key !== 'maxMutationsPerSecond'))
    return 'mutationGuard takes only maxMutationsPerSecond'
  const max = intInRange(
    raw.maxMutationsPerSecond,
    'mutationGuard.maxMutationsPerSecond',
    DEFAULTS.maxMutationsPerSecond,
    10,
    1_000_000,
  )
  if (typeof max === 'string') return max
  return { maxMutationsPerSecond: max }
}

function canvasOption(value: unknown): ResolvedOptions['recordCanvas'] | string {
  if (value === undefined || value === false) return null
  if (value === true) return { fps: DEFAULTS.canvasFps, quality: DEFAULTS.canvasQuality }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'recordCanvas must be true, false or { fps, quality }'
  const raw = value as Record<string, unknown>
  if (Object.keys(raw).some((key) => key !== 'fps' && key !== 'quality'))
    return 'recordCanvas takes only fps and quality'
  const fps = intInRange(raw.fps, 'recordCanvas.fps', DEFAULTS.canvasFps, 1, 30)
  if (typeof fps === 'string') return fps
  const quality = raw.quality ?? DEFAULTS.canvasQuality
  if (typeof quality !== 'number' || !Number.isFinite(quality) || quality <= 0 || quality > 1)
    return 'recordCanvas.quality must be a number above 0 and at most 1'
  return { fps, quality }
}

const MAX_PARENT_ORIGINS = 20
const MAX_ORIGIN_LENGTH = 300

/** One exact http(s) origin, as `event.origin` spells it, or null: no path, wildcard or credentials. */
function exactOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_ORIGIN_LENGTH || value.includes('*')) return null
  try {
    const url = new URL(value)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
    if (url.username || url.password || url.pathname !== '/' || value.includes('?') || value.includes('#'))
      return null
    return url.origin
  } catch {
    return null
  }
}

/** `parentOrigins` or `childOrigins`: 1 to 20 exact origins, only beside recordCrossOriginIframes. */
function originsOption(name: string, value: unknown, recordsFrames: boolean): string[] | string {
  const error = `${name} must be an array of 1 to ${MAX_PARENT_ORIGINS} origins like "https://app.example.com" (no path or wildcard)`
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PARENT_ORIGINS) return error
  const origins: string[] = []
  for (const item of value) {
    const origin = exactOrigin(item)
    if (!origin) return `${error}, got ${JSON.stringify(String(item).slice(0, 100))}`
    if (!origins.includes(origin)) origins.push(origin)
  }
  if (!recordsFrames) return `${name} needs recordCrossOriginIframes: true`
  return origins
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

  const networkDetails = networkDetailsOption(raw.networkDetails)
  if (typeof networkDetails === 'string') return fail(networkDetails)
  const sessionSampleRate = rate(raw.sessionSampleRate, 'sessionSampleRate')
  if (typeof sessionSampleRate === 'string') return fail(sessionSampleRate)
  const errorSampleRate = rate(raw.errorSampleRate, 'errorSampleRate')
  if (typeof errorSampleRate === 'string') return fail(errorSampleRate)
  const errorBufferMs = intInRange(raw.errorBufferMs, 'errorBufferMs', DEFAULTS.errorBufferMs, 1000, 300_000)
  if (typeof errorBufferMs === 'string') return fail(errorBufferMs)
  const allowPages = patterns(raw.allowPages, 'allowPages')
  if (typeof allowPages === 'string') return fail(allowPages)
  const denyPages = patterns(raw.denyPages, 'denyPages')
  if (typeof denyPages === 'string') return fail(denyPages)
  const mutationGuard = guardOption(raw.mutationGuard)
  if (typeof mutationGuard === 'string') return fail(mutationGuard)
  const recordCanvas = canvasOption(raw.recordCanvas)
  if (typeof recordCanvas === 'string') return fail(recordCanvas)
  if (raw.recordCrossOriginIframes !== undefined && typeof raw.recordCrossOriginIframes !== 'boolean')
    return fail('recordCrossOriginIframes must be true or false')
  const recordsFrames = raw.recordCrossOriginIframes === true
  const parentOrigins =
    raw.parentOrigins === undefined ? [] : originsOption('parentOrigins', raw.parentOrigins, recordsFrames)
  if (typeof parentOrigins === 'string') return fail(parentOrigins)
  const childOrigins =
    raw.childOrigins === undefined ? null : originsOption('childOrigins', raw.childOrigins, recordsFrames)
  if (typeof childOrigins === 'string') return fail(childOrigins)

  const consent = raw.consent ?? 'granted'
  if (consent !== 'pending' && consent !== 'granted' && consent !== 'denied')
    return fail('consent must be "pending", "granted" or "denied"')
  const storage = raw.storage ?? 'browser'
  if (storage !== 'browser' && storage !== 'none') return fail('storage must be "browser" or "none"')

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
      networkDetails,
      sessionSampleRate,
      errorSampleRate,
      errorBufferMs,
      allowPages,
      denyPages,
      mutationGuard,
      recordCanvas,
      recordCrossOriginIframes: raw.recordCrossOriginIframes === true,
      parentOrigins,
      childOrigins,
      consent,
      storage,
    },
  }
}
