import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { HeaderReader } from '@/lib/ratelimit/client-address'

/**
 * Node's request headers read as the web `Headers` would read them: names are already lower
 * case; a repeated header is joined with ", " (Node keeps most repeats as one joined string
 * already, and a few, such as the cookies a response sets, as arrays).
 */
export function nodeHeaderReader(headers: IncomingHttpHeaders): HeaderReader {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

const BODILESS = new Set([204, 304])

/**
 * Writes a web `Response` (built by the same helpers every route uses) to Node's response:
 * status, every header, then the whole body, which on the surfaces that use this is a small
 * JSON document already in memory. A request whose body was not read to its end (refused as
 * too large, or before reading) closes its connection after the answer: the unread rest must
 * not be taken for the next request, nor read on the client's behalf.
 */
export async function sendToNode(
  res: ServerResponse,
  response: Response,
  options: { requestBodyRead: boolean },
): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer())
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  if (!BODILESS.has(response.status)) headers['content-length'] = String(body.byteLength)
  if (!options.requestBodyRead) headers.connection = 'close'
  res.writeHead(response.status, headers)
  res.end(BODILESS.has(response.status) ? undefined : body)
}
