import { createWriteStream, type WriteStream } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { floorFormAnswer, floorJson } from '../floor-app/payload.js'

/**
 * The benchmarks' bare Node baseline: the least a Node server can do with a request, so the
 * service's figures can be read as a fraction of what this machine allows. Run as its own
 * process, like `next start`, so it never shares an event loop with the load generator.
 *
 * - The floor's routes (harness/floor.ts), answered exactly as the minimal Next app
 *   (floor-app/) answers them: POST /floor/json reads and parses, GET /floor/json?bytes=N
 *   answers N bytes of JSON, POST /floor/form parses a form, OPTIONS answers 204.
 * - Given a file, any other POST is ingest's baseline: read the body, JSON.parse it and
 *   append it to the file.
 *
 * Usage: node --import tsx tests/bench/harness/baseline-server.ts [file to append to]
 */

const file = process.argv[2]
const out: WriteStream | undefined = file ? createWriteStream(file, { flags: 'a' }) : undefined
const json = { 'content-type': 'application/json' }

function readBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => then(Buffer.concat(chunks)))
}

/** JSON.parse the body; false (and a 400 sent) when it is not JSON. */
function parsed(body: Buffer, res: ServerResponse): boolean {
  try {
    JSON.parse(body.toString('utf8'))
    return true
  } catch {
    res.writeHead(400, json).end('{"error":"invalid json"}')
    return false
  }
}

const floorRoutes = new Set(['/floor/json', '/floor/form'])

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (floorRoutes.has(url.pathname)) {
    if (req.method === 'OPTIONS') return void res.writeHead(204).end()
    if (url.pathname === '/floor/json' && req.method === 'GET')
      return void res.writeHead(200, json).end(floorJson(Number(url.searchParams.get('bytes') ?? '0')))
    if (url.pathname === '/floor/json' && req.method === 'POST')
      return readBody(req, (body) => parsed(body, res) && res.writeHead(200, json).end('{"ok":true}'))
    if (url.pathname === '/floor/form' && req.method === 'POST')
      return readBody(req, (body) => {
        let fields = 0
        for (const _ of new URLSearchParams(body.toString('utf8')).keys()) fields++
        res.writeHead(200, { ...json, 'cache-control': 'no-store' }).end(floorFormAnswer(fields))
      })
    return void res.writeHead(405).end()
  }
  if (!out || req.method !== 'POST') return void res.writeHead(404).end()
  readBody(req, (body) => {
    if (!parsed(body, res)) return
    out.write(body)
    out.write('\n')
    res.writeHead(200, json).end('{"ok":true}')
  })
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (typeof address === 'object' && address) console.log(JSON.stringify({ port: address.port }))
})

process.once('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  if (out) out.end(() => process.exit(0))
  else process.exit(0)
})
