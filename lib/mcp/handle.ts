import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Db } from '@/db/client'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { logger } from '@/lib/log'
import { toAuthInfo } from './auth-info'
import { createMcpServer } from './server'

type Transport = WebStandardStreamableHTTPServerTransport

/**
 * `tools/call` whose `arguments` is not an object is the client's mistake (-32602 Invalid
 * params); the SDK would report it as -32603 Internal error. Answered before the SDK sees it.
 */
function refuseNonObjectArguments(transport: Transport): void {
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      const args = (message.params as { arguments?: unknown } | undefined)?.arguments
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        void transport.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32602, message: 'Invalid params: arguments must be an object' },
        })
        return
      }
    }
    deliver?.(message, extra)
  }
}

/** One authenticated MCP request, as the route's wrapper (lib/http/mcp.ts) hands it over. */
export interface McpRequest {
  req: Request
  principal: Principal
  /** The bearer string as presented: the SDK's AuthInfo carries it to tool handlers. */
  token: string
  db: Db
  requestId: string
}

/**
 * One MCP POST: a fresh server and a stateless Streamable HTTP transport (no session id, so
 * any instance can answer any request), answering with plain JSON rather than an SSE stream
 * since no tool streams progress. The transport's answer is complete when the promise
 * settles, so both are closed right after.
 */
export async function handleMcpRequest({
  req,
  principal,
  token,
  db,
  requestId,
}: McpRequest): Promise<Response> {
  const server = createMcpServer({ db, requestId })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  // Protocol-level rejections (bad Accept, malformed JSON-RPC) are answered by the SDK; they
  // are the client's mistakes, worth a trace but not an error log.
  server.server.onerror = (error) => logger.debug({ err: error, requestId }, 'MCP protocol error')
  await server.connect(transport)
  refuseNonObjectArguments(transport)
  try {
    return await transport.handleRequest(req, { authInfo: toAuthInfo(principal, token) })
  } finally {
    await server.close()
  }
}
