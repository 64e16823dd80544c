import { mcpMethodNotAllowed, mcpPreflight, mcpRoute } from '@/lib/http/mcp'
import { handleMcpRequest } from '@/lib/mcp/handle'

// The SDK's transport and the database drivers need Node, not the edge runtime.
export const runtime = 'nodejs'

export const POST = mcpRoute(handleMcpRequest)
export const GET = mcpMethodNotAllowed
export const DELETE = mcpMethodNotAllowed
export const OPTIONS = mcpPreflight
