import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici'

/**
 * A local stand-in for a *private* Vercel Blob store, answering the HTTP requests @vercel/blob
 * 2.x really makes (read from node_modules/@vercel/blob/dist/*.js):
 *
 * - API calls go to `${VERCEL_BLOB_API_URL ?? 'https://vercel.com/api/blob'}` + a suffix, read
 *   from the environment on every call (getApiUrl), each with `authorization: Bearer <token>`,
 *   `x-api-version`, `x-vercel-blob-store-id`, `x-api-blob-request-id` and
 *   `x-api-blob-request-attempt`:
 *     put   PUT  /api/blob/?pathname=<p>  body = bytes; options as headers `x-vercel-blob-access`,
 *                `x-add-random-suffix`, `x-allow-overwrite`, `x-content-type`,
 *                `x-cache-control-max-age` → {url, downloadUrl, pathname, contentType,
 *                contentDisposition, etag}
 *     head  GET  /api/blob?url=<url or pathname> → metadata, or 404 {error: {code: 'not_found'}}
 *     list  GET  /api/blob?prefix=&limit=&cursor=&mode= → {blobs: [{url, downloadUrl, pathname,
 *                size, uploadedAt, etag}], cursor?, hasMore}
 *     del   POST /api/blob/delete  {"urls": [url or pathname, ...]}
 *   Errors are JSON `{error: {code, message}}`; the SDK maps the code to an error class and only
 *   retries `unknown_error`/`service_unavailable`, so the fake answers `bad_request`/`forbidden`
 *   to fail fast.
 * - `get()` of a private blob does NOT go through the API URL: it fetches
 *   `https://<storeId>.private.blob.vercel-storage.com/<pathname>` (storeId = fourth `_` field of
 *   the token, `?cache=0` when useCache is false) with undici's fetch and the bearer token. No
 *   option or environment variable changes that host, so the fake installs an undici global
 *   dispatcher (the SDK's own tests swap it the same way) that sends requests for
 *   `*.blob.vercel-storage.com` to this server while keeping the original Host header, which is
 *   how the server tells content requests from API calls.
 *
 * start() points VERCEL_BLOB_API_URL at the fake and installs the dispatcher; close() undoes both.
 */

export interface RecordedRequest {
  method: string
  host: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: Buffer
}

interface StoredBlob {
  pathname: string
  body: Buffer
  contentType: string
  cacheControlMaxAge: number
  uploadedAt: Date
  etag: string
}

export interface VercelBlobFake {
  readonly storeId: string
  /** A read-write token in the SDK's format: vercel_blob_rw_<storeId>_<secret>. */
  readonly token: string
  readonly apiUrl: string
  readonly contentHost: string
  readonly requests: RecordedRequest[]
  readonly blobs: Map<string, StoredBlob>
  /** Page size the server uses when it is lower than the client's limit (lets tests paginate). */
  pageSize: number
  close(): Promise<void>
}

const API_PATH = '/api/blob'
const BLOB_HOST_SUFFIX = '.blob.vercel-storage.com'
const ONE_MONTH_SECONDS = 30 * 24 * 60 * 60
const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  txt: 'text/plain',
  bin: 'application/octet-stream',
  gz: 'application/gzip',
}

function contentTypeFor(pathname: string): string {
  const extension = pathname.split('/').at(-1)?.split('.').at(-1)?.toLowerCase() ?? ''
  return CONTENT_TYPES[extension] ?? 'application/octet-stream'
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value))
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
  res.end(body)
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } })
}

/** Sends requests for Vercel Blob content hosts to the fake, keeping the Host header. */
class BlobHostRedirect extends Agent {
  constructor(private readonly target: string) {
    super()
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = options.origin ? new URL(String(options.origin)) : undefined
    if (!origin?.hostname.endsWith(BLOB_HOST_SUFFIX)) return super.dispatch(options, handler)
    return super.dispatch(
      { ...options, origin: this.target, headers: withHost(options.headers, origin.host) },
      handler,
    )
  }
}

function withHost(
  headers: Dispatcher.DispatchOptions['headers'],
  host: string,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i])] = String(headers[i + 1])
  } else if (headers && Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>)
      if (value !== undefined) out[name] = value
  } else if (headers) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value
  }
  for (const name of Object.keys(out)) if (name.toLowerCase() === 'host') delete out[name]
  out.host = host
  return out
}

export async function startVercelBlobFake(
  options: { storeId?: string; pageSize?: number } = {},
): Promise<VercelBlobFake> {
  // Real store ids are 16 lowercase alphanumerics; no `_`, which would break token parsing
  const storeId = options.storeId ?? randomBytes(8).toString('hex')
  const token = `vercel_blob_rw_${storeId}_${randomBytes(15).toString('hex')}`
  const contentHost = `${storeId}.private${BLOB_HOST_SUFFIX}`
  const blobs = new Map<string, StoredBlob>()
  const requests: RecordedRequest[] = []

  const urlOf = (pathname: string) => `https://${contentHost}/${pathname}`
  const downloadUrlOf = (pathname: string) => `${urlOf(pathname)}?download=1`
  const dispositionOf = (pathname: string) => `attachment; filename="${pathname.split('/').at(-1)}"`

  // A pathname or one of this store's URLs, as put/head/del accept both.
  const pathnameOf = (urlOrPathname: string): string | null => {
    if (!/^https?:\/\//.test(urlOrPathname)) return urlOrPathname
    const url = new URL(urlOrPathname)
    return url.host === contentHost ? decodeURIComponent(url.pathname.slice(1)) : null
  }

  const handleContent = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden')
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end()
      return
    }
    const blob = blobs.get(decodeURIComponent(url.pathname.slice(1)))
    if (!blob) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('The requested blob does not exist')
      return
    }
    if (req.headers['if-none-match'] === blob.etag) {
      res.writeHead(304, { etag: blob.etag }).end()
      return
    }
    res.writeHead(200, {
      'content-type': blob.contentType,
      'content-length': blob.body.length,
      'content-disposition': dispositionOf(blob.pathname),
      'cache-control':
        url.searchParams.get('cache') === '0' ? 'no-store' : `private, max-age=${blob.cacheControlMaxAge}`,
      'last-modified': blob.uploadedAt.toUTCString(),
      etag: blob.etag,
    })
    res.end(req.method === 'HEAD' ? undefined : blob.body)
  }

  const handlePut = (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) => {
    let pathname = url.searchParams.get('pathname') ?? ''
    if (!pathname) return sendError(res, 400, 'bad_request', 'pathname is required')
    if (pathname.includes('//')) return sendError(res, 400, 'bad_request', 'pathname cannot contain "//"')
    if (req.headers['x-vercel-blob-access'] !== 'private')
      return sendError(res, 400, 'bad_request', 'Cannot use public access on a private store')
    if (req.headers['x-add-random-suffix'] === '1') {
      const dot = pathname.lastIndexOf('.')
      const suffix = randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')
      pathname =
        dot > pathname.lastIndexOf('/')
          ? `${pathname.slice(0, dot)}-${suffix}${pathname.slice(dot)}`
          : `${pathname}-${suffix}`
    }
    if (blobs.has(pathname) && req.headers['x-allow-overwrite'] !== '1')
      return sendError(
        res,
        400,
        'bad_request',
        'This blob already exists, use `allowOverwrite: true` if you want to overwrite it. Or `addRandomSuffix: true` to generate a unique filename.',
      )
    const contentTypeHeader = req.headers['x-content-type']
    const maxAge = Number(req.headers['x-cache-control-max-age'] ?? ONE_MONTH_SECONDS)
    const blob: StoredBlob = {
      pathname,
      body,
      contentType: typeof contentTypeHeader === 'string' ? contentTypeHeader : contentTypeFor(pathname),
      cacheControlMaxAge: Number.isFinite(maxAge) ? maxAge : ONE_MONTH_SECONDS,
      uploadedAt: new Date(),
      etag: `"${createHash('sha1').update(body).digest('hex')}"`,
    }
    blobs.set(pathname, blob)
    sendJson(res, 200, {
      url: urlOf(pathname),
      downloadUrl: downloadUrlOf(pathname),
      pathname,
      contentType: blob.contentType,
      contentDisposition: dispositionOf(pathname),
      etag: blob.etag,
    })
  }

  const handleHead = (res: ServerResponse, urlOrPathname: string) => {
    const pathname = pathnameOf(urlOrPathname)
    const blob = pathname === null ? undefined : blobs.get(pathname)
    if (!blob) return sendError(res, 404, 'not_found', 'The requested blob does not exist')
    sendJson(res, 200, {
      url: urlOf(blob.pathname),
      downloadUrl: downloadUrlOf(blob.pathname),
      pathname: blob.pathname,
      size: blob.body.length,
      uploadedAt: blob.uploadedAt.toISOString(),
      contentType: blob.contentType,
      contentDisposition: dispositionOf(blob.pathname),
      cacheControl: `private, max-age=${blob.cacheControlMaxAge}`,
      etag: blob.etag,
    })
  }

  const handleList = (res: ServerResponse, url: URL) => {
    if (url.searchParams.get('mode') === 'folded')
      return sendError(res, 400, 'bad_request', 'the fake does not implement mode=folded')
    const prefix = url.searchParams.get('prefix') ?? ''
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 1000) || 1000, 1000, fake.pageSize)
    const cursor = url.searchParams.get('cursor')
    // The cursor is opaque to clients; here it is the last pathname already returned
    const after = cursor ? Buffer.from(cursor, 'base64url').toString('utf8') : null
    const matching = [...blobs.keys()]
      .filter((p) => p.startsWith(prefix) && (after === null || p > after))
      .sort()
    const page = matching.slice(0, limit)
    const hasMore = matching.length > page.length
    sendJson(res, 200, {
      blobs: page.map((p) => {
        const blob = blobs.get(p)!
        return {
          url: urlOf(p),
          downloadUrl: downloadUrlOf(p),
          pathname: p,
          size: blob.body.length,
          uploadedAt: blob.uploadedAt.toISOString(),
          etag: blob.etag,
        }
      }),
      ...(hasMore ? { cursor: Buffer.from(page.at(-1)!, 'utf8').toString('base64url') } : {}),
      hasMore,
    })
  }

  const handleDelete = (res: ServerResponse, body: Buffer) => {
    let urls: unknown
    try {
      urls = (JSON.parse(body.toString('utf8')) as { urls?: unknown }).urls
    } catch {
      return sendError(res, 400, 'bad_request', 'body must be JSON')
    }
    if (!Array.isArray(urls) || !urls.every((u) => typeof u === 'string'))
      return sendError(res, 400, 'bad_request', '"urls" must be an array of strings')
    // Unknown blobs are not an error
    for (const u of urls) {
      const pathname = pathnameOf(u)
      if (pathname !== null) blobs.delete(pathname)
    }
    sendJson(res, 200, {})
  }

  const server = createServer(async (req, res) => {
    try {
      const body = await readBody(req)
      const url = new URL(req.url ?? '/', 'http://fake')
      const host = req.headers.host ?? ''
      requests.push({
        method: req.method ?? '',
        host,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      })

      if (host.endsWith(BLOB_HOST_SUFFIX)) {
        if (host !== contentHost) return sendError(res, 404, 'store_not_found', 'This store does not exist.')
        return handleContent(req, res, url)
      }
      if (url.pathname !== API_PATH && !url.pathname.startsWith(`${API_PATH}/`))
        return sendError(res, 404, 'bad_request', `not an API path: ${url.pathname}`)
      if (req.headers.authorization !== `Bearer ${token}`)
        return sendError(
          res,
          403,
          'forbidden',
          'Access denied, please provide a valid token for this resource.',
        )
      if (!req.headers['x-api-version']) return sendError(res, 400, 'bad_request', 'missing x-api-version')

      const route = url.pathname.slice(API_PATH.length).replace(/^\/$/, '')
      if (req.method === 'PUT' && route === '') return handlePut(req, res, url, body)
      if (req.method === 'GET' && route === '') {
        const target = url.searchParams.get('url')
        return target === null ? handleList(res, url) : handleHead(res, target)
      }
      if (req.method === 'POST' && route === '/delete') return handleDelete(res, body)
      // Copy, rename, multipart and the like are not used by the adapter
      sendError(res, 400, 'bad_request', `the fake does not implement ${req.method} ${url.pathname}`)
    } catch (error) {
      sendError(res, 400, 'bad_request', `fake failed: ${String(error)}`)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`

  const previousDispatcher = getGlobalDispatcher()
  const redirect = new BlobHostRedirect(origin)
  setGlobalDispatcher(redirect)
  const previousApiUrl = process.env.VERCEL_BLOB_API_URL
  process.env.VERCEL_BLOB_API_URL = `${origin}${API_PATH}`

  const fake: VercelBlobFake = {
    storeId,
    token,
    apiUrl: `${origin}${API_PATH}`,
    contentHost,
    requests,
    blobs,
    pageSize: options.pageSize ?? 1000,
    async close() {
      setGlobalDispatcher(previousDispatcher)
      if (previousApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL
      else process.env.VERCEL_BLOB_API_URL = previousApiUrl
      await redirect.close()
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
    },
  }
  return fake
}
