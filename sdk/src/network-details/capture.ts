/// <reference lib="dom" />
/**
 * The network details part (docs/network-details.md): headers and bodies of fetch/XHR calls
 * to the URLs of `networkDetails.urls`, redacted here before anything is emitted. Loaded
 * only when the option is set: as `sdk-network.js` next to `sdk.js`, or through a dynamic
 * import in the ES module build. Nothing here may throw into the page: a failed read only
 * omits the body.
 */
import type { ResolvedNetworkDetails, UrlPattern } from '../options'
import type { DetailCapturer, RequestDetails } from '../plugins/network'
import {
  type BodyRules,
  bodyRules,
  contentTypeReason,
  type HeaderRules,
  isTextualType,
  omissionReason,
  PARSE_LIMIT,
  redactBody,
  redactHeaders,
} from './redact'

/** A response announcing more than this is not read at all. */
const MAX_READ_BYTES = PARSE_LIMIT
/** A body still streaming after this long is given up (server-sent events, long polls). */
const READ_TIMEOUT_MS = 10_000

export function matchesUrl(url: string, patterns: readonly UrlPattern[]): boolean {
  return patterns.some((p) => (typeof p === 'string' ? url.includes(p) : url.search(p) !== -1))
}

const failed = (status: number) => status === 0 || status >= 400

/** Reads at most `limit` bytes of a stream as text; `capped` when there was more. */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{ text: string; capped: boolean }> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), READ_TIMEOUT_MS)
  })
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout])
      if (next === 'timeout') throw new Error('timeout')
      if (next.done) break
      bytes += next.value.byteLength
      text += decoder.decode(next.value, { stream: true })
      if (bytes > limit) {
        void reader.cancel().catch(() => {})
        return { text, capped: true }
      }
    }
    return { text: text + decoder.decode(), capped: false }
  } catch (error) {
    void reader.cancel().catch(() => {})
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/**
 * `JSON.stringify(value)` when it is at most `limit` characters, else null, found without
 * building more than that: the parsed response of an XHR (`responseType: 'json'`) can be
 * any size, and serialising 50 MB on the page's thread only to cut it would be the cost
 * the read cap exists to avoid. Nesting deeper than 64 levels counts as too large.
 */
export function boundedJson(value: unknown, limit: number): string | null {
  let size = 0
  const fits = (item: unknown, depth: number): boolean => {
    if (depth > 64) return false
    if (typeof item === 'string' && item.length > limit) return false
    if (item === null || typeof item !== 'object') {
      const text = JSON.stringify(item) as string | undefined
      size += text === undefined ? 4 : text.length
      return size <= limit
    }
    if (Array.isArray(item)) {
      size += 1 + item.length
      for (const child of item) if (size > limit || !fits(child, depth + 1)) return false
      return size <= limit
    }
    const entries = Object.entries(item)
    size += 1 + entries.length
    for (const [key, child] of entries) {
      size += key.length + 3
      if (size > limit || !fits(child, depth + 1)) return false
    }
    return size <= limit
  }
  if (!fits(value, 0)) return null
  return value === null ? '' : (JSON.stringify(value) ?? '')
}

function describeBody(body: unknown): string {
  if (typeof FormData !== 'undefined' && body instanceof FormData) return 'FormData'
  if (typeof Blob !== 'undefined' && body instanceof Blob) return 'Blob'
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return 'binary'
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) return 'stream'
  if (typeof Document !== 'undefined' && body instanceof Document) return 'Document'
  return typeof body
}

/** A body read (with the content type it is redacted by) or why it was not. */
type BodyResult = { body: string; type: string | null } | { omitted: string }

/**
 * A request body given to fetch or XHR, as text when it is one; the content type is the one
 * set, or the one the browser would set for that body.
 */
function requestBodyText(body: unknown, contentType: string | null): BodyResult | null {
  if (body === undefined || body === null) return null
  if (typeof body === 'string') {
    const type = contentType ?? 'text/plain'
    return isTextualType(type) ? { body, type } : { omitted: contentTypeReason(type) }
  }
  if (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams)
    return { body: body.toString(), type: 'application/x-www-form-urlencoded' }
  return { omitted: describeBody(body) }
}

export function createDetailCapturer(options: ResolvedNetworkDetails): DetailCapturer {
  const rules: BodyRules = bodyRules(options.redactKeys, options.maxBodyBytes)
  const headerRules: HeaderRules = { allow: options.headers, names: rules.names }
  const wanted = (url: string) => {
    try {
      return matchesUrl(url, options.urls)
    } catch {
      return false
    }
  }

  const redacted = (result: BodyResult | null, into: RequestDetails, side: 'request' | 'response') => {
    if (!result) return
    if ('omitted' in result) into[`${side}BodyOmitted`] = result.omitted
    else into[`${side}Body`] = redactText(result.body, result.type)
  }

  /**
   * A body already in memory (a string sent, an XHR response), redacted: only its first
   * MAX_READ_BYTES characters are looked at, as for a streamed one, so a 50 MB upload costs
   * the page no more than a 1 MiB one.
   */
  const redactText = (text: string, type: string | null): string =>
    text.length > MAX_READ_BYTES
      ? redactBody(text.slice(0, MAX_READ_BYTES), rules, MAX_READ_BYTES, type)
      : redactBody(text, rules, undefined, type)

  /**
   * The response body to read, cloned now: the caller has not yet handed the response to the
   * page, so the page's own reading is never disturbed. An omission reason when it is not read.
   */
  const cloneBody = (response: Response): ReadableStream<Uint8Array> | { omitted: string } | null => {
    if (!response.body) return null
    const type = response.headers.get('content-type')
    if (!isTextualType(type)) return { omitted: contentTypeReason(type) }
    if ((type ?? '').toLowerCase().includes('event-stream')) return { omitted: 'event stream' }
    if (Number(response.headers.get('content-length')) > MAX_READ_BYTES)
      return { omitted: `over ${MAX_READ_BYTES} bytes` }
    return response.clone().body
  }

  const readBody = async (stream: ReadableStream<Uint8Array>, type: string | null): Promise<string> => {
    const read = await readCapped(stream, MAX_READ_BYTES)
    return read.capped
      ? redactBody(read.text, rules, read.text.length, type)
      : redactBody(read.text, rules, undefined, type)
  }

  return {
    fetch(url, input, init) {
      if (!wanted(url)) return null
      const isRequest = typeof Request !== 'undefined' && input instanceof Request
      const headers = new Headers(init?.headers ?? (isRequest ? input.headers : undefined))
      let requestBody: Promise<BodyResult | null> = Promise.resolve(null)
      if (options.requestBody) {
        if (init?.body !== undefined) {
          requestBody = Promise.resolve(requestBodyText(init.body, headers.get('content-type')))
        } else if (isRequest && input.body !== null && !input.bodyUsed) {
          const type = headers.get('content-type')
          if (!isTextualType(type ?? 'text/plain'))
            requestBody = Promise.resolve({ omitted: contentTypeReason(type) })
          else {
            // Copied before fetch reads the original.
            const copy = input.clone().body
            requestBody = copy
              ? readCapped(copy, MAX_READ_BYTES).then(
                  (read): BodyResult =>
                    read.capped ? { omitted: `over ${MAX_READ_BYTES} bytes` } : { body: read.text, type },
                  (): BodyResult => ({ omitted: 'unreadable' }),
                )
              : requestBody
          }
        }
      }
      const requestHeaders = redactHeaders(headers, headerRules)
      return {
        response: (response) => {
          try {
            if (options.failuresOnly && !failed(response?.status ?? 0)) return Promise.resolve({})
            let body: ReturnType<typeof cloneBody> = null
            try {
              body = response && options.responseBody ? cloneBody(response) : null
            } catch {
              body = { omitted: 'unreadable' }
            }
            return (async () => {
              const details: RequestDetails = { requestHeaders }
              redacted(
                await requestBody.catch((): BodyResult => ({ omitted: 'unreadable' })),
                details,
                'request',
              )
              if (!response) return details
              details.responseHeaders = redactHeaders(response.headers, headerRules)
              if (body && 'omitted' in body) details.responseBodyOmitted = body.omitted
              else if (body) {
                try {
                  details.responseBody = await readBody(body, response.headers.get('content-type'))
                } catch {
                  details.responseBodyOmitted = 'unreadable'
                }
              }
              return details
            })().catch(() => ({}))
          } catch {
            return Promise.resolve({})
          }
        },
      }
    },

    xhr(url, xhr, headerList, body) {
      if (!wanted(url)) return null
      const contentType = headerList.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null
      const request = options.requestBody ? requestBodyText(body, contentType) : null
      return {
        done: async () => {
          try {
            const details: RequestDetails = {}
            if (options.failuresOnly && !failed(xhr.status)) return details
            details.requestHeaders = redactHeaders(headerList, headerRules)
            redacted(request, details, 'request')
            if (xhr.status === 0) return details
            const raw = xhr.getAllResponseHeaders()
            const pairs: [string, string][] = []
            for (const line of raw.split('\r\n')) {
              const colon = line.indexOf(':')
              if (colon > 0) pairs.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()])
            }
            details.responseHeaders = redactHeaders(pairs, headerRules)
            if (!options.responseBody) return details
            const type = xhr.getResponseHeader('content-type')
            if (xhr.responseType === '' || xhr.responseType === 'text') {
              if (!isTextualType(type)) details.responseBodyOmitted = contentTypeReason(type)
              else details.responseBody = redactText(xhr.responseText, type)
            } else if (xhr.responseType === 'json') {
              const text = boundedJson(xhr.response, MAX_READ_BYTES)
              if (text === null) details.responseBodyOmitted = `over ${MAX_READ_BYTES} bytes`
              else details.responseBody = redactText(text, type)
            } else details.responseBodyOmitted = omissionReason(`responseType ${xhr.responseType}`)
            return details
          } catch {
            return {}
          }
        },
      }
    },
  }
}
