import { gzipSync } from 'node:zlib'
import { replayPreflight as OPTIONS, replayIngest as POST } from '@/inngest/replay-ingest'

export const INGEST_URL = 'http://localhost:3000/api/sdk/replay'

export interface SendOptions {
  key?: string | null
  via?: 'header' | 'query'
  contentType?: string | null
  gzip?: boolean
  headers?: Record<string, string>
}

/** Calls the ingest route handler with a real Request, as Next would. */
export function sendBatch(body: unknown, options: SendOptions = {}): Promise<Response> {
  const raw = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body)
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw
  const headers = new Headers(options.headers)
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType
  if (contentType) headers.set('content-type', contentType)
  const url = new URL(INGEST_URL)
  if (options.key) {
    if (options.via === 'query') url.searchParams.set('api_key', options.key)
    else headers.set('x-service-api-key', options.key)
  }
  let payload: Uint8Array = bytes
  if (options.gzip) {
    payload = gzipSync(bytes)
    headers.set('content-encoding', 'gzip')
  }
  return POST(new Request(url, { method: 'POST', headers, body: new Uint8Array(payload) }))
}

export function preflight(): Response {
  return OPTIONS()
}
