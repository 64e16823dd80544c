// The HTTP server in front of Next's request handler. Plain JavaScript with no dependencies, so
// that production runs it without devDependencies (no tsx) and tests can put it in front of a
// handler of their own.
import { createServer } from 'node:http'

/** Must equal SOCKET_ADDRESS_HEADER in lib/ratelimit/client-address.ts. */
export const SOCKET_ADDRESS_HEADER = 'x-replay-socket-address'

/**
 * Tells lib/ratelimit/client-address.ts that this server is in front and SOCKET_ADDRESS_HEADER is
 * ours. A global symbol rather than an environment variable: an operator's stray variable
 * under `next start` must not make a client-sent header believable.
 */
export const FRONT_SERVER_MARKER = Symbol.for('session-replay-issues.front-server')

export function markFrontServer() {
  globalThis[FRONT_SERVER_MARKER] = true
}

/**
 * Replaces whatever the client sent under SOCKET_ADDRESS_HEADER with the socket's own address.
 * Node builds `req.headers` from `rawHeaders` on first read, so both are cleaned.
 */
export function stampSocketAddress(req) {
  const raw = req.rawHeaders
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i].toLowerCase() === SOCKET_ADDRESS_HEADER) raw.splice(i, 2)
  }
  delete req.headers[SOCKET_ADDRESS_HEADER]
  const address = req.socket.remoteAddress
  if (address) {
    raw.push(SOCKET_ADDRESS_HEADER, address)
    req.headers[SOCKET_ADDRESS_HEADER] = address
  }
}

/**
 * Must equal SERVICE_STOP in inngest/startup.ts: set by the service once started, called after
 * Next has closed, to close the database (and the admin socket) before the process exits.
 */
export const SERVICE_STOP = Symbol.for('session-replay-issues.stop-service')

/** Closes what inngest/startup.ts opened, if it did. */
export async function stopService() {
  await globalThis[SERVICE_STOP]?.()
}

let draining = false

/** The answer to an address whose path Next could not decode (`/issues/%zz`). */
export const MALFORMED_PATH = 'The address has a malformed percent-escape (%) in its path'

/**
 * Whether the request's path decodes: Next decodes dynamic segments itself and answers a bare
 * 500 for `%zz`, before any route or page can say what was wrong. Linear in the path, which
 * Node already bounds with its header size limit.
 */
function pathDecodes(url) {
  const end = url.indexOf('?')
  try {
    decodeURIComponent(end === -1 ? url : url.slice(0, end))
    return true
  } catch {
    return false
  }
}

/** 400 in the form the caller reads: JSON for the APIs (the Data API's error body), text for pages. */
function refuseMalformedPath(req, res) {
  const api = req.url.startsWith('/api/')
  res.statusCode = 400
  res.setHeader('content-type', api ? 'application/json' : 'text/plain; charset=utf-8')
  res.setHeader('cache-control', 'no-store')
  res.end(api ? JSON.stringify({ error: MALFORMED_PATH }) : `${MALFORMED_PATH}.\n`)
}

/**
 * An http.Server that stamps every request (and every upgrade, e.g. the dev server's HMR
 * websocket) before `handle` sees it. `upgrade`, when given, serves upgrades; Next registers
 * its own upgrade listener on the server when it is passed as `httpServer`, and this one runs
 * first because it is registered first.
 */
export function createFrontServer({ handle, upgrade, keepAliveTimeout }) {
  const server = createServer((req, res) => {
    stampSocketAddress(req)
    // While draining, each answer closes its connection instead of keeping it alive.
    if (draining) res.setHeader('connection', 'close')
    if (!pathDecodes(req.url ?? '/')) return refuseMalformedPath(req, res)
    Promise.resolve(handle(req, res)).catch((err) => {
      console.error('request failed', err)
      if (!res.headersSent) {
        res.statusCode = 500
        res.end('Internal Server Error')
      } else res.destroy()
    })
  })
  if (keepAliveTimeout) server.keepAliveTimeout = keepAliveTimeout
  server.on('upgrade', (req, socket, head) => {
    stampSocketAddress(req)
    if (upgrade) upgrade(req, socket, head)
  })
  return server
}

/**
 * On SIGTERM or SIGINT, as `next start` does: stops accepting connections, lets requests in
 * flight finish (idle keep-alive sockets are closed at once; in development every socket, HMR
 * websockets included, as `next dev` does), then runs `close` and exits with the signal's
 * conventional code. A second signal, or `graceMs` without completion, exits at once.
 */
export function exitGracefully(server, close, { dev = false, graceMs = 25_000 } = {}) {
  let started = false
  const stop = (signal) => {
    const code = signal === 'SIGINT' ? 130 : 143
    if (started) process.exit(code)
    started = true
    draining = true
    // Also the code of a natural exit, should the event loop empty before `close` settles.
    process.exitCode = code
    setTimeout(() => process.exit(code), graceMs).unref()
    server.close(() => {
      Promise.resolve(close())
        .catch((err) => console.error(err))
        .finally(() => process.exit(code))
    })
    if (dev) server.closeAllConnections()
    else server.closeIdleConnections()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}
