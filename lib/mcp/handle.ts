import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { McpContext } from '@/lib/http/mcp'
import { logger } from '@/lib/log'
import { toAuthInfo } from './auth-info'
import { createMcpServer } from './server'

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
}: McpContext): Promise<Response> {
  const server = createMcpServer({ db, requestId })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  // Protocol-level rejections (bad Accept, malformed JSON-RPC) are answered by the SDK; they
  // are the client's mistakes, worth a trace but not an error log.
  server.server.onerror = (error) => logger.debug({ err: error, requestId }, 'MCP protocol error')
  await server.connect(transport)
  try {
    return await transport.handleRequest(req, { authInfo: toAuthInfo(principal, token) })
  } finally {
    await server.close()
  }
}
