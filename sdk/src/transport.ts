import { classifyStatus, parseRetryAfter, retryDelay } from './backoff'
import type { PreparedBatch } from './batch'
import type { KeyValueStore } from './storage'

export const PENDING_KEY = 'svc_replay:pending'
/** Chromium refuses beacons and keepalive requests beyond 64 KiB in flight; stay under it. */
export const BEACON_MAX_BYTES = 60_000
/** Unsent batches kept at most; beyond it the oldest waiting ones are dropped (server down for long). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024
const REQUEST_TIMEOUT_MS = 30_000
/** The ingest answer is `{ok: true}` and perhaps mask settings; anything longer is not read. */
const MAX_ANSWER_CHARS = 64 * 1024

export interface TransportDeps {
  endpoint: string
  apiKey: string
  /** The page's fetch as it was before the network capture wrapped it. */
  fetch: typeof fetch
  sendBeacon: ((url: string, data: Blob) => boolean) | null
  /** gzip, or null where CompressionStream is missing. */
  compress: ((text: string) => Promise<Uint8Array<ArrayBuffer>>) | null
  tab: KeyValueStore
  random: () => number
  now: () => number
  log: (message: string) => void
  /** 401: the key is wrong or revoked; nothing will ever be accepted. */
  onUnauthorized: () => void
  /** The parsed JSON of an accepted batch's answer (beacons have none to read). */
  onAnswer?: (answer: unknown) => void
}

interface Queued extends PreparedBatch {
  attempts: number
  /** Compressed once, so a retry sends the very same bytes. */
  gzip?: Promise<Uint8Array<ArrayBuffer> | null>
}

function utf8Length(text: string): number {
  return new Blob([text]).size
}

/**
 * Sends batches in sequence order, one request at a time, retrying network failures, 408, 429
 * and 5xx with backoff. When the page is hidden or left, what is queued goes by sendBeacon;
 * what cannot (too large) is kept in sessionStorage and sent by the next page of the tab.
 */
export class Transport {
  private queue: Queued[] = []
  private sending = false
  private timer: ReturnType<typeof setTimeout> | null = null
  private closed = false
  private idleWaiters: (() => void)[] = []
  private inFlight: AbortController | null = null

  constructor(private readonly deps: TransportDeps) {}

  get pending(): number {
    return this.queue.length
  }

  /** Batches a previous page of this tab could not send; they go before anything new. */
  restorePending(): void {
    const text = this.deps.tab.getItem(PENDING_KEY)
    this.deps.tab.removeItem(PENDING_KEY)
    if (!text) return
    try {
      const items = JSON.parse(text) as PreparedBatch[]
      if (!Array.isArray(items)) return
      const restored = items
        .filter((b) => typeof b?.json === 'string' && typeof b.sequence === 'number')
        .map((b) => ({
          sessionId: b.sessionId,
          sequence: b.sequence,
          flush: b.flush,
          json: b.json,
          attempts: 0,
        }))
      this.queue.unshift(...restored)
      this.pump()
    } catch {
      // A damaged entry is worth less than a working recorder.
    }
  }

  enqueue(batch: PreparedBatch): void {
    if (this.closed) return
    this.queue.push({ ...batch, attempts: 0 })
    this.trim()
    this.pump()
  }

  private trim(): void {
    let total = this.queue.reduce((sum, b) => sum + b.json.length, 0)
    // Index 0 may be in flight; drop from the oldest waiting batch.
    while (total > MAX_QUEUED_BYTES && this.queue.length > 2) {
      const [dropped] = this.queue.splice(1, 1)
      total -= dropped!.json.length
      this.deps.log(
        `dropped batch ${dropped!.sequence}: too much unsent data while the ingest API is unreachable`,
      )
    }
  }

  private pump(): void {
    if (this.sending || this.timer !== null || this.closed) return
    const head = this.queue[0]
    if (!head) {
      for (const resolve of this.idleWaiters.splice(0)) resolve()
      return
    }
    this.sending = true
    void this.send(head).finally(() => {
      this.sending = false
      this.pump()
    })
  }

  private body(batch: Queued): Promise<Uint8Array<ArrayBuffer> | null> {
    if (!this.deps.compress) return Promise.resolve(null)
    if (!batch.gzip) {
      const compress = this.deps.compress
      batch.gzip = compress(batch.json).catch(() => null)
    }
    return batch.gzip
  }

  private async send(batch: Queued): Promise<void> {
    batch.attempts++
    const gzip = await this.body(batch)
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-Service-Api-Key': this.deps.apiKey,
    }
    if (gzip) headers['Content-Encoding'] = 'gzip'
    const size = gzip ? gzip.byteLength : batch.json.length
    const abort = typeof AbortController === 'function' ? new AbortController() : null
    const timeout = abort ? setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS) : null
    this.inFlight = abort
    let status: number
    let retryAfter: string | null = null
    let response: Response | null = null
    try {
      response = await this.deps.fetch(this.deps.endpoint, {
        method: 'POST',
        headers,
        body: gzip ?? batch.json,
        credentials: 'omit',
        // A small request outlives a navigation that starts while it is in flight.
        keepalive: size < BEACON_MAX_BYTES,
        signal: abort?.signal,
      })
      status = response.status
      retryAfter = response.headers.get('Retry-After')
    } catch (error) {
      status = 0
      this.deps.log(
        `batch ${batch.sequence} failed: ${error instanceof Error ? error.message : String(error)}`,
      )
    } finally {
      if (timeout !== null) clearTimeout(timeout)
      this.inFlight = null
    }
    if (this.queue[0] !== batch) return
    const outcome = status === 0 ? 'retry' : classifyStatus(status)
    if (outcome === 'delivered') {
      this.queue.shift()
      const onAnswer = this.deps.onAnswer
      // Not awaited: the next batch need not wait for this body.
      if (onAnswer && response)
        void readAnswer(response).then((answer) => {
          if (answer !== undefined && !this.closed) onAnswer(answer)
        })
      return
    }
    if (outcome === 'unauthorized') {
      this.queue = []
      this.deps.onUnauthorized()
      return
    }
    if (outcome === 'drop') {
      this.queue.shift()
      this.deps.log(`batch ${batch.sequence} dropped: the ingest API answered ${status}`)
      return
    }
    const delay = retryDelay(batch.attempts, parseRetryAfter(retryAfter, this.deps.now()), this.deps.random)
    this.deps.log(
      `batch ${batch.sequence} will be retried in ${delay} ms (status ${status || 'network error'})`,
    )
    this.timer = setTimeout(() => {
      this.timer = null
      this.pump()
    }, delay)
  }

  /**
   * The page is hidden or being left: beacon every queued batch that fits, in order, and keep
   * the rest in sessionStorage for the tab's next page. A batch whose fetch is in flight goes
   * again too: the server stores a (session, sequence) once, and its body is identical.
   */
  sendAllByBeacon(): void {
    const url = `${this.deps.endpoint}?api_key=${encodeURIComponent(this.deps.apiKey)}`
    const left: Queued[] = []
    for (const batch of this.queue) {
      let sent = false
      if (left.length === 0 && this.deps.sendBeacon && utf8Length(batch.json) <= BEACON_MAX_BYTES) {
        try {
          // text/plain needs no CORS preflight, which a page being unloaded could not wait for.
          sent = this.deps.sendBeacon(url, new Blob([batch.json], { type: 'text/plain' }))
        } catch {
          sent = false
        }
      }
      if (!sent) left.push(batch)
    }
    this.queue = left
    this.savePending()
  }

  /** Mirrors the unsent batches into sessionStorage (or clears the mirror when none are left). */
  savePending(): void {
    if (this.queue.length === 0) {
      this.deps.tab.removeItem(PENDING_KEY)
      return
    }
    const items: PreparedBatch[] = this.queue.map(({ sessionId, sequence, flush, json }) => ({
      sessionId,
      sequence,
      flush,
      json,
    }))
    this.deps.tab.setItem(PENDING_KEY, JSON.stringify(items))
  }

  /** The page came back (bfcache or visible again): the queue in memory is the truth again. */
  forgetSaved(): void {
    this.deps.tab.removeItem(PENDING_KEY)
    this.pump()
  }

  /** Resolves when the queue is empty, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs)
      this.idleWaiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  /** Consent withdrawn: the request in flight is cut off and nothing queued is sent or kept. */
  discard(): void {
    this.inFlight?.abort()
    this.close()
  }

  close(): void {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.queue = []
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }
}

/** The answer's JSON, or undefined when it is not a small JSON body. */
async function readAnswer(response: Response): Promise<unknown> {
  try {
    if (!response.headers.get('Content-Type')?.includes('json')) return undefined
    const text = await response.text()
    return text.length > MAX_ANSWER_CHARS ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}

/** gzip through CompressionStream, where the browser has it. */
export function gzipCompressor(): ((text: string) => Promise<Uint8Array<ArrayBuffer>>) | null {
  if (typeof CompressionStream !== 'function' || typeof Response !== 'function') return null
  return async (text) => {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'))
    return new Uint8Array(await new Response(stream).arrayBuffer())
  }
}
