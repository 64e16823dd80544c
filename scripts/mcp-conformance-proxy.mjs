// The official MCP conformance tool (@modelcontextprotocol/conformance) connects without a
// credential, and /api/mcp answers every request without one with 401. This proxy listens on
// localhost (the DNS-rebinding scenario only tests localhost URLs), adds the bearer key from
// MCP_CONFORMANCE_KEY to every request and passes everything else, Host and Origin included,
// to the service unchanged. How to run the scenarios: docs/api-and-mcp.md#conformance.
//
//   MCP_CONFORMANCE_KEY=svc_mcp_… node scripts/mcp-conformance-proxy.mjs <listen port> <service URL>
import { createServer, request } from 'node:http'

const [port, target] = process.argv.slice(2)
const key = process.env.MCP_CONFORMANCE_KEY
if (!port || !target || !key) {
  console.error(
    'Usage: MCP_CONFORMANCE_KEY=<key> node scripts/mcp-conformance-proxy.mjs <port> <service URL>',
  )
  process.exit(2)
}
const upstream = new URL(target)

createServer((req, res) => {
  const forwarded = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${key}` },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    },
  )
  forwarded.on('error', (error) => res.writeHead(502).end(String(error)))
  req.pipe(forwarded)
}).listen(Number(port), '127.0.0.1', () => console.log(`http://localhost:${port} → ${upstream.origin}`))
