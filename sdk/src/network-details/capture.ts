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
  type HeaderRules,
  isTextualType,
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

function describeBody(body: unknown): string {
  if (typeof FormData !== 'undefined' && body instanceof FormData) return 'FormData'
  if (typeof Blob !== 'undefined' && body instanceof Blob) return 'Blob'
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return 'binary'
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) return 'stream'
  if (typeof Document !== 'undefined' && body instanceof Document) return 'Document'
  return typeof body
}

type BodyResult = { body: string } | { omitted: string }

/**
 * A request body given to fetch or XHR, as text when it is one; the content type is the one
 * set, or the one the browser would set for that body.
 */
function requestBodyText(body: unknown, contentType: string | null): BodyResult | null {
  if (body === undefined || body === null) return null
  if (typeof body === 'string') {
    const type = contentType ?? 'text/plain'
    return isTextualType(type) ? { body } : { omitted: `content-type ${type}` }
  }
  if (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams)
    return { body: body.toString() }
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
    else into[`${side}Body`] = redactBody(result.body, rules)
  }

  /**
   * The response body to read, cloned now: the caller has not yet handed the response to the
   * page, so the page's own reading is never disturbed. An omission reason when it is not read.
   */
  const cloneBody = (response: Response): ReadableStream<Uint8Array> | { omitted: string } | null => {
    if (!response.body) return null
    const type = response.headers.get('content-type')
    if (!isTextualType(type)) return { omitted: `content-type ${type ?? 'unknown'}` }
    if ((type ?? '').toLowerCase().includes('event-stream')) return { omitted: 'event stream' }
    if (Number(response.headers.get('content-length')) > MAX_READ_BYTES)
      return { omitted: `over ${MAX_READ_BYTES} bytes` }
    return response.clone().body
  }

  const readBody = async (stream: ReadableStream<Uint8Array>): Promise<string> => {
    const read = await readCapped(stream, MAX_READ_BYTES)
    return read.capped ? redactBody(read.text, rules, read.text.length) : redactBody(read.text, rules)
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
            requestBody = Promise.resolve({ omitted: `content-type ${type}` })
          else {
            // Copied before fetch reads the original.
            const copy = input.clone().body
            requestBody = copy
              ? readCapped(copy, MAX_READ_BYTES).then(
                  (read): BodyResult =>
                    read.capped ? { omitted: `over ${MAX_READ_BYTES} bytes` } : { body: read.text },
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
                  details.responseBody = await readBody(body)
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
              if (!isTextualType(type)) details.responseBodyOmitted = `content-type ${type ?? 'unknown'}`
              else {
                const text = xhr.responseText
                details.responseBody =
                  text.length > MAX_READ_BYTES
                    ? redactBody(text.slice(0, MAX_READ_BYTES), rules, MAX_READ_BYTES)
                    : redactBody(text, rules)
              }
            } else if (xhr.responseType === 'json') {
              const text = xhr.response === null ? '' : JSON.stringify(xhr.response)
              details.responseBody = redactBody(text, rules)
            } else details.responseBodyOmitted = `responseType ${xhr.responseType}`
            return details
          } catch {
            return {}
          }
        },
      }
    },
  }
}
