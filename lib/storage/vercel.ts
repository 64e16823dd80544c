import { del, get, list, put } from '@vercel/blob'
import { toBody } from './body'
import { API_DEADLINE_MS, withDeadline } from './deadline'
import { assertValidBlobKey, assertValidBlobPrefix } from './keys'
import type { BlobStore, PutOptions } from './types'

/**
 * Vercel Blob in production. Replay data is private, so every object is written and read with
 * `access: 'private'` and the read-write token from the configuration; the SDK never falls back
 * to process.env because the token is always passed.
 */

// list() returns at most 1000 blobs per page; deleting in batches of the same size keeps every
// request within what the API is known to accept (list a page, delete that page).
const PAGE_SIZE = 1000

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let length = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    length += value.byteLength
  }
  const out = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

export class VercelBlobStore implements BlobStore {
  readonly kind = 'vercel' as const
  readonly #token: string
  /** How long one call may take, retries included. */
  readonly deadlineMs: number

  constructor(token: string, options: { deadlineMs?: number } = {}) {
    this.#token = token
    this.deadlineMs = options.deadlineMs ?? API_DEADLINE_MS
  }

  /**
   * Runs an API call under the deadline (lib/storage/deadline.ts). The SDK retries a 5xx or a
   * network error 10 times with doubling delays (1 s, 2 s, 4 s, ...), about 17 to 34 minutes in
   * all, and notices the abort only when its next attempt starts.
   */
  #bounded<T>(what: string, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(`Vercel Blob: ${what}`, this.deadlineMs, call)
  }

  async put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<void> {
    assertValidBlobKey(key)
    await this.#bounded('put', (abortSignal) =>
      put(key, toBody(body), {
        access: 'private',
        // The key is the address: a retried batch must land on (and replace) the same object.
        addRandomSuffix: false,
        allowOverwrite: true,
        contentType: options?.contentType,
        token: this.#token,
        abortSignal,
      }),
    )
  }

  private async fetch(key: string): Promise<ReadableStream<Uint8Array> | null> {
    assertValidBlobKey(key)
    const result = await get(key, {
      access: 'private',
      // Overwritten objects can be served stale from the CDN for up to a minute; a retried batch
      // must be read as last written, and the analysis reads each object only a few times.
      useCache: false,
      token: this.#token,
    })
    if (!result) return null
    // 304 only answers an If-None-Match request, which this adapter never sends
    if (result.statusCode !== 200) throw new Error(`Vercel Blob: unexpected status ${result.statusCode}`)
    return result.stream
  }

  async get(key: string): Promise<Uint8Array | null> {
    const stream = await this.fetch(key)
    return stream ? readAll(stream) : null
  }

  async stream(key: string): Promise<ReadableStream<Uint8Array> | null> {
    return this.fetch(key)
  }

  async delete(keys: string[]): Promise<void> {
    // Validate everything first so that a hostile key in the batch deletes nothing.
    for (const key of keys) assertValidBlobKey(key)
    for (let i = 0; i < keys.length; i += PAGE_SIZE) {
      // Unknown pathnames are ignored by the API, matching the port's contract.
      await this.#bounded('delete', (abortSignal) =>
        del(keys.slice(i, i + PAGE_SIZE), { token: this.#token, abortSignal }),
      )
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertValidBlobPrefix(prefix)
    const keys: string[] = []
    let cursor: string | undefined
    do {
      const page = await this.#bounded('list', (abortSignal) =>
        list({ prefix: prefix || undefined, cursor, limit: PAGE_SIZE, token: this.#token, abortSignal }),
      )
      for (const blob of page.blobs) keys.push(blob.pathname)
      // A page claiming more without a cursor would otherwise loop forever on the first page
      cursor = page.hasMore ? page.cursor : undefined
    } while (cursor)
    return keys.sort()
  }
}
