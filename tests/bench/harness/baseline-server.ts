import { createWriteStream } from 'node:fs'
import { createServer } from 'node:http'

/**
 * The benchmark's baseline: the least a Node ingest endpoint can do with a batch — read the
 * body, JSON.parse it and append it to a file — so the service's figures can be read as a
 * fraction of what this machine allows. Run as its own process, like `next start`, so it
 * never shares an event loop with the load generator.
 *
 * Usage: node --import tsx tests/bench/baseline-server.ts <file to append to>
 */

const file = process.argv[2]
if (!file) {
  console.error('usage: baseline-server.ts <file>')
  process.exit(2)
}
const out = createWriteStream(file, { flags: 'a' })

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const body = Buffer.concat(chunks)
    try {
      JSON.parse(body.toString('utf8'))
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid json"}')
      return
    }
    out.write(body)
    out.write('\n')
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (typeof address === 'object' && address) console.log(JSON.stringify({ port: address.port }))
})

process.once('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  out.end(() => process.exit(0))
})
