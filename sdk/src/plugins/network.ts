/// <reference lib="dom" />
import type { IWindow, listenerHandler, NetworkData, NetworkRequest, RecordPlugin } from '@rrweb/types'
import { nameWords, PARAM_SECRET_WORDS, redactParams, SecretNames } from '../network-details/redact'

/** PostHog's plugin name: recordings stay readable by tools that know that format (§1.8). */
const NETWORK_PLUGIN_NAME = 'rrweb/network@1'

/** One request as emitted (docs/design/analysis.md §1.9); a `NetworkRequest` from @rrweb/types with more fields. */
export type CapturedRequest = NetworkRequest & {
  /** Absolute URL, secrets in the query and fragment redacted; same value as `name`. */
  name: string
  url: string
  method: string
  initiatorType: 'fetch' | 'xmlhttprequest'
  /** HTTP status; 0 = no response (network failure, CORS, abort). */
  status: number
  statusText: string
  /** Epoch ms when the request started. */
  timestamp: number
  /** ms since performance.timeOrigin. */
  startTime: number
  endTime: number
  /** fetch: until the response headers arrive; XHR: until loadend. */
  duration: number
  /** Only when status is 0, e.g. `TypeError: Failed to fetch`. */
  error?: string
  /**
   * The details below exist only for URLs in `networkDetails.urls` (docs/network-details.md):
   * headers from the header allowlist, bodies of text and JSON types, secrets redacted, cut
   * to `maxBodyBytes` with a marker.
   */
  requestHeaders?: Record<string, string>
  responseHeaders?: Record<string, string>
  requestBody?: string
  responseBody?: string
  /** Why a body was not captured although details were, e.g. `content-type image/png`. */
  requestBodyOmitted?: string
  responseBodyOmitted?: string
}

/** The detail fields of a request, as the network details part fills them. */
export type RequestDetails = Pick<
  CapturedRequest,
  | 'requestHeaders'
  | 'responseHeaders'
  | 'requestBody'
  | 'responseBody'
  | 'requestBodyOmitted'
  | 'responseBodyOmitted'
>

/**
 * The optional part that captures headers and bodies (sdk/src/network-details/capture.ts),
 * set on the plugin when it has loaded. Each method is called before the request is sent and
 * answers null when the request gets no details; its promise never rejects.
 */
export interface DetailCapturer {
  fetch(
    absoluteUrl: string,
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ): { response(response: Response | null): Promise<RequestDetails> } | null
  xhr(
    absoluteUrl: string,
    xhr: XMLHttpRequest,
    headers: [string, string][],
    body: unknown,
  ): { done(): Promise<RequestDetails> } | null
}

export type NetworkPayload = NetworkData & { requests: CapturedRequest[]; isInitial?: true }

export interface NetworkPluginOptions {
  /**
   * URL prefixes never recorded, above all the recorder's own ingest endpoint: recording the
   * upload of a batch would put a request in the next batch, and so on forever.
   */
  ignoreUrls?: string[]
  /** Requests that completed before rrweb started, kept for the one `isInitial` event. */
  maxBuffered?: number
  /** Query/fragment parameter names whose values are replaced; the default covers common secrets. */
  secretParams?: RegExp
  win?: Window
  /**
   * Asked when a request starts: false leaves it unrecorded (no details either), however late
   * it answers. The recorder's page rules: a request of a denied page can answer after the page
   * has moved to an allowed address, and would be recorded then (see docs/recorder.md).
   */
  keep?: () => boolean
}

/**
 * rrweb's `plugins` option takes `RecordPlugin<unknown>` (a typed observer parameter would not be
 * assignable to it), so the options are typed on the property only.
 */
export type NetworkPlugin = RecordPlugin & {
  options: NetworkPluginOptions
  /** Restores the original fetch and XMLHttpRequest. */
  uninstall(): void
  /**
   * Requests that start after this get details (when the capturer wants them); requests
   * already under way, and those that finished before the part loaded, have none.
   */
  setDetailCapturer(capturer: DetailCapturer): void
}

/**
 * The parameter names the body redaction treats as secret (`PARAM_SECRET_WORDS`: word runs
 * such as `access_token`, `apiKey`, one-word `newpassword`; not `monkey`), so a URL and a
 * form body agree on what a secret is.
 */
const DEFAULT_SECRET_NAMES = new SecretNames(PARAM_SECRET_WORDS)

/**
 * Absolute URL with credentials removed and secret-looking query/fragment values replaced.
 * Other parameters stay byte-for-byte as written, so grouping by URL is not disturbed.
 */
export function redactUrl(url: string, base?: string, secretWords?: RegExp): string {
  let parsed: URL
  try {
    parsed = new URL(url, base)
  } catch {
    return url
  }
  parsed.username = ''
  parsed.password = ''
  const isSecret = secretWords
    ? (name: string) => nameWords(name).some((w) => secretWords.test(w))
    : (name: string) => DEFAULT_SECRET_NAMES.isSecret(name)
  // Assigned only when changed: the URL then stays byte for byte as parsed, for grouping.
  if (parsed.search.length > 1) {
    const search = redactParams(parsed.search.slice(1), isSecret)
    if (search !== parsed.search.slice(1)) parsed.search = search
  }
  // OAuth implicit flows put tokens in the fragment (`#access_token=…`).
  if (parsed.hash.includes('=')) {
    const hash = redactParams(parsed.hash.slice(1), isSecret)
    if (hash !== parsed.hash.slice(1)) parsed.hash = hash
  }
  return parsed.href
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  if (typeof error === 'object' && error !== null && 'name' in error && 'message' in error) {
    return `${String(error.name)}: ${String(error.message)}`
  }
  return String(error)
}

interface Pending {
  method: string
  url: string
  /** Before redaction, for the detail capturer's URL list. */
  absoluteUrl: string
  timestamp: number
  startTime: number
}

/**
 * Creates the plugin and wraps fetch and XMLHttpRequest at once — call it at script start so
 * boot-time requests are seen. Requests that finish before rrweb records are buffered and
 * emitted in one `isInitial` event when it starts; after that each request is emitted when its
 * response (or failure) arrives.
 */
export function createNetworkPlugin(options: NetworkPluginOptions = {}): NetworkPlugin {
  // Window's type lacks the constructors (XMLHttpRequest) that every real window has.
  const win = (options.win ?? window) as IWindow
  const ignoreUrls = options.ignoreUrls ?? []
  const maxBuffered = options.maxBuffered ?? 50
  const secretWords = options.secretParams
  const perf = win.performance
  const buffer: CapturedRequest[] = []
  let emit: ((payload: NetworkPayload) => void) | null = null
  let details: DetailCapturer | null = null
  let uninstalled = false

  const absolute = (url: string): string => {
    try {
      return new URL(url, win.location.href).href
    } catch {
      return url
    }
  }
  // Compared before redaction: an ingest URL carrying a key in its query must still match.
  const ignored = (absoluteUrl: string) =>
    ignoreUrls.some((prefix) => absoluteUrl.startsWith(absolute(prefix)))

  const begin = (method: string, rawUrl: string): Pending | null => {
    if (options.keep && !options.keep()) return null
    const url = absolute(rawUrl)
    if (ignored(url)) return null
    return {
      method: method.toUpperCase(),
      url: redactUrl(url, undefined, secretWords),
      absoluteUrl: url,
      timestamp: Date.now(),
      startTime: perf.now(),
    }
  }

  const finish = (
    pending: Pending,
    initiatorType: CapturedRequest['initiatorType'],
    status: number,
    statusText: string,
    error?: string,
    detailsOf?: Promise<RequestDetails>,
  ) => {
    const endTime = perf.now()
    const request: CapturedRequest = {
      name: pending.url,
      url: pending.url,
      method: pending.method,
      initiatorType,
      status,
      statusText,
      timestamp: pending.timestamp,
      startTime: Math.round(pending.startTime),
      endTime: Math.round(endTime),
      duration: Math.round(endTime - pending.startTime),
    }
    if (status === 0) request.error = error ?? 'Network request failed'
    // Timed at the response; emitted once its details (a body read) are in.
    if (detailsOf)
      void detailsOf.then(
        (found) => deliver(Object.assign(request, found)),
        () => deliver(request),
      )
    else deliver(request)
  }

  const deliver = (request: CapturedRequest) => {
    if (emit) {
      emit({ requests: [request] })
    } else if (buffer.length < maxBuffered) {
      buffer.push(request)
    }
  }

  /** A detail promise, or none: a capturer that throws must not reach the page's promise chain. */
  const guarded = (get: () => Promise<RequestDetails> | undefined): Promise<RequestDetails> | undefined => {
    try {
      return get()
    } catch {
      return undefined
    }
  }

  /** The capturer's handle, or null; a capturer that throws costs the request its details only. */
  const detailHandle = <T>(start: (capturer: DetailCapturer) => T | null): T | null => {
    if (!details) return null
    try {
      return start(details)
    } catch {
      return null
    }
  }

  const originalFetch = win.fetch
  win.fetch = function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const isRequest = typeof input === 'object' && !(input instanceof URL)
    const rawUrl = typeof input === 'string' ? input : isRequest ? input.url : input.href
    const method = init?.method ?? (isRequest ? input.method : 'GET')
    const pending = begin(method, rawUrl)
    // Before the call: a Request's body can be copied only while it is unread.
    const detail = pending ? detailHandle((d) => d.fetch(pending.absoluteUrl, input, init)) : null
    const call = originalFetch.call(win, input, init)
    if (!pending) return call
    // The caller receives the very promise chain it would without us: same response object
    // (body untouched; the details part reads a clone made here) and the same rejection.
    return call.then(
      (response) => {
        finish(
          pending,
          'fetch',
          response.status,
          response.statusText,
          undefined,
          guarded(() => detail?.response(response)),
        )
        return response
      },
      (error: unknown) => {
        finish(
          pending,
          'fetch',
          0,
          '',
          describeFailure(error),
          guarded(() => detail?.response(null)),
        )
        throw error
      },
    )
  }

  const xhrProto = win.XMLHttpRequest.prototype
  const originalOpen = xhrProto.open
  const originalSend = xhrProto.send
  const originalSetRequestHeader = xhrProto.setRequestHeader
  const opened = new WeakMap<XMLHttpRequest, { method: string; url: string; headers: [string, string][] }>()

  xhrProto.open = function open(this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
    opened.set(this, { method, url: typeof url === 'string' ? url : url.href, headers: [] })
    return Reflect.apply(originalOpen, this, [method, url, ...rest])
  }
  xhrProto.setRequestHeader = function setRequestHeader(this: XMLHttpRequest, name: string, value: string) {
    // Kept only while the details part is loaded; it filters them.
    if (details) opened.get(this)?.headers.push([String(name), String(value)])
    return originalSetRequestHeader.call(this, name, value)
  }
  xhrProto.send = function send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    const target = opened.get(this)
    const pending = target ? begin(target.method, target.url) : null
    if (pending && target) {
      const detail = detailHandle((d) => d.xhr(pending.absoluteUrl, this, target.headers, body))
      // status is 0 for all three; the event type is the only hint at what went wrong.
      let failure: string | undefined
      this.addEventListener('error', () => {
        failure = 'NetworkError: XMLHttpRequest failed'
      })
      this.addEventListener('abort', () => {
        failure = 'AbortError: XMLHttpRequest aborted'
      })
      this.addEventListener('timeout', () => {
        failure = 'TimeoutError: XMLHttpRequest timed out'
      })
      this.addEventListener('loadend', () => {
        finish(
          pending,
          'xmlhttprequest',
          this.status,
          this.statusText,
          failure,
          guarded(() => detail?.done()),
        )
      })
    }
    return originalSend.call(this, body)
  }

  const pluginOptions: NetworkPluginOptions = { ...options, ignoreUrls }

  return {
    name: NETWORK_PLUGIN_NAME,
    options: pluginOptions,
    observer: (cb, observedWin: IWindow): listenerHandler => {
      // rrweb calls observers for same-origin iframes too; the wrappers belong to one window.
      if (observedWin !== win) return () => {}
      const live = (payload: NetworkPayload) => cb(payload)
      emit = live
      if (buffer.length > 0) live({ requests: buffer.splice(0), isInitial: true })
      return () => {
        if (emit === live) emit = null
      }
    },
    uninstall: () => {
      win.fetch = originalFetch
      xhrProto.open = originalOpen
      xhrProto.send = originalSend
      xhrProto.setRequestHeader = originalSetRequestHeader
      emit = null
      details = null
      uninstalled = true
    },
    setDetailCapturer: (capturer) => {
      // The part may arrive after stop(): the restored fetch and XHR must stay untouched.
      if (!uninstalled) details = capturer
    },
  }
}
