// What `npm start` runs: Next's request handler behind a server of ours, so that the app
// learns each request's socket address in a way no client can forge (server/front.mjs,
// lib/ratelimit/client-address.ts). Same command line as `next start`: -p/--port (or PORT),
// -H/--hostname, --keepAliveTimeout; `--dev` runs the development server instead.
import { parseArgs } from 'node:util'
import { quietClientAborts } from './server/client-abort.mjs'
import { createFrontServer, exitGracefully, markFrontServer, stopService } from './server/front.mjs'

/**
 * Must equal SERVICE_STARTED in inngest/startup.ts, which settles it once the service has started
 * (configuration accepted, database migrated) from instrumentation.ts's register().
 */
const SERVICE_STARTED = Symbol.for('session-replay-issues.service-started')
const serviceStarted = new Promise((resolve, reject) => {
  globalThis[SERVICE_STARTED] = { resolve, reject }
})
// Awaited in production only; a development start that fails says so itself.
serviceStarted.catch(() => {})

const { values } = parseArgs({
  options: {
    port: { type: 'string', short: 'p' },
    hostname: { type: 'string', short: 'H' },
    keepAliveTimeout: { type: 'string' },
    dev: { type: 'boolean', default: false },
  },
})

const dev = values.dev
// As `next start` and `next dev` do; set before Next (and React) load.
process.env.NODE_ENV ??= dev ? 'development' : 'production'
const port = Number(values.port ?? process.env.PORT ?? 3000)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid port: ${values.port ?? process.env.PORT}`)
  process.exit(1)
}
const hostname = values.hostname
const keepAliveTimeout = values.keepAliveTimeout === undefined ? undefined : Number(values.keepAliveTimeout)

// Before Next loads: from here on, the socket-address header is ours, and a client that goes
// away mid-answer (a dropped RSC stream) is a debug line rather than an error.
markFrontServer()
quietClientAborts()
const { default: next } = await import('next')

let handle
const server = createFrontServer({ handle: (req, res) => handle(req, res), keepAliveTimeout })
const app = next({ dev, dir: import.meta.dirname, hostname, port, httpServer: server })
await app.prepare()
handle = app.getRequestHandler()
// In production Next runs register() in the background, not within prepare(): listening and
// "Ready" wait for the service, so a configuration it refuses ends the process first, naming
// each missing variable (inngest/startup.ts), and "Ready" is never printed.
if (!dev) await serviceStarted

server.once('error', (err) => {
  console.error(err)
  process.exit(1)
})
server.listen(port, hostname, () => {
  const address = server.address()
  const shown = typeof address === 'object' && address ? address.port : port
  console.log(`> Ready on http://${hostname ?? 'localhost'}:${shown}${dev ? ' (development)' : ''}`)
})
exitGracefully(
  server,
  async () => {
    await app.close()
    await stopService()
  },
  { dev },
)
